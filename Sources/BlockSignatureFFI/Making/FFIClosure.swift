// A libffi closure: the writable closure record and the separate code address C calls (equal on
// Debian's build, different where static trampolines are on), freed together.

import CFFI

/// The C function libffi calls with a closure's arguments: the interface, the result buffer,
/// the argument pointers (one per passed argument) and the closure's user data.
package typealias FFIClosureFunction =
  @convention(c) (
    UnsafeMutablePointer<ffi_cif>?, UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    UnsafeMutableRawPointer?
  ) -> Void

/// An executable entry point that calls `function` with `userData`. The interface and
/// `userData` must outlive it.
package final class FFIClosure: @unchecked Sendable {
  private let closure: UnsafeMutableRawPointer
  /// The address C calls.
  package let code: UnsafeRawPointer

  package init(cif: UnsafeMutablePointer<ffi_cif>, userData: UnsafeMutableRawPointer?, function: FFIClosureFunction)
    throws(InvocationError)
  {
    var code: UnsafeMutableRawPointer?
    guard let closure = ffi_closure_alloc(MemoryLayout<ffi_closure>.size, &code), let code else {
      throw InvocationError(kind: .preparationFailed, message: "ffi_closure_alloc could not map a closure")
    }
    let status = ffi_prep_closure_loc(
      closure.assumingMemoryBound(to: ffi_closure.self), cif, function, userData, code)
    guard status == FFI_OK else {
      ffi_closure_free(closure)
      throw InvocationError(
        kind: .preparationFailed, message: "ffi_prep_closure_loc returned status \(status.rawValue)")
    }
    self.closure = closure
    self.code = UnsafeRawPointer(code)
  }

  deinit {
    ffi_closure_free(closure)
  }
}
