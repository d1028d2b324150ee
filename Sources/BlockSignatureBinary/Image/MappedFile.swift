// A read-only memory mapping of a whole file: the scanner reads sections in place, never copies them.

import BlockSignature
import BlockSignatureSystem

/// A file mapped read-only into memory for the lifetime of the value.
///
/// Opening goes through `open`/`fstat`/`mmap` of BlockSignatureSystem, the one platform room;
/// an empty file maps to an empty buffer.
package final class MappedFile: @unchecked Sendable {
  /// The mapped bytes (valid until `self` is released).
  package let bytes: UnsafeRawBufferPointer
  private let mapping: UnsafeMutableRawPointer?
  private let length: Int

  /// Maps the file at `path`.
  ///
  /// - Throws: `BinaryScanError` of kind `.unreadable` naming the failed call and its `errno`.
  package init(path: String) throws(BinaryScanError) {
    switch system_mapFile(path) {
    case .success(let (address, size)):
      mapping = address
      length = size
      bytes = UnsafeRawBufferPointer(start: address, count: size)
    case .failure(let error):
      throw BinaryScanError(.unreadable, offset: nil, "cannot read file: \(error.message)")
    }
  }

  deinit {
    if let mapping { system_unmap(mapping, length) }
  }
}
