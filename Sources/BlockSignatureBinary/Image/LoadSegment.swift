// A part of a file the loader maps into memory (an ELF `PT_LOAD`), which is what ties a
// process's mappings of the file to the file's own addresses.

/// A loadable segment: `fileSize` bytes at `fileOffset` in the file go to `address`, and the
/// rest of its `memorySize` bytes (`.bss`) is zero-filled.
package struct LoadSegment: Equatable, Sendable {
  package var address: UInt64
  package var fileOffset: UInt64
  package var fileSize: UInt64
  package var memorySize: UInt64

  package init(address: UInt64, fileOffset: UInt64, fileSize: UInt64, memorySize: UInt64) {
    self.address = address
    self.fileOffset = fileOffset
    self.fileSize = fileSize
    self.memorySize = memorySize
  }

  /// The address the file byte at `offset` gets when a mapping made with pages of `pageSize`
  /// bytes starts there; nil when no page of this segment's contents starts at `offset`. A
  /// mapping starts at a page boundary, so the segment's first page may begin before
  /// `fileOffset` (with the bytes of the segment before it).
  package func address(ofMappingAt offset: UInt64, pageSize: UInt64) -> UInt64? {
    guard fileSize > 0, pageSize > 0, offset % pageSize == 0 else { return nil }
    let firstPage = fileOffset - fileOffset % pageSize
    guard offset >= firstPage, offset < fileOffset &+ fileSize else { return nil }
    return offset &+ (address &- fileOffset)
  }
}
