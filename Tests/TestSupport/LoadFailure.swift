// The error a test helper throws when a library or a symbol it needs does not load.

/// A library or symbol that did not load, with `dlerror`'s message or the reason.
package struct LoadFailure: Error {
  package var message: String
  package init(message: String) { self.message = message }
}
