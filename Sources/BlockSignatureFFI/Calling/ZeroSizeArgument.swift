// The address handed for a zero-size argument, which clang does not pass.

/// Where a zero-size argument (`{E=}`, `[0i]`: clang passes nothing for it) is read from by the
/// code that reads a call's arguments (a made block's handler, a hook, a method made from a
/// block): 16 bytes no one writes, of which no bytes are read.
package enum ZeroSizeArgument {
  /// Allocated once, never freed, never written: sharing it across threads is safe.
  nonisolated(unsafe) package static let address = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
}
