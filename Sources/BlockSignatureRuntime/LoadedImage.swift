// Where the dynamic linker put an image file in a process, worked out from the process's
// mappings of the file and the file's own segments.

import BlockSignatureBinary

/// An image file as the dynamic linker loaded it into a process.
///
/// The same file may be mapped more than once, by a program that reads it as data (a binary
/// scanner, a debugger), and a reading of `/proc/<pid>/maps` may lose a line; the load is the
/// one placement of the segments that explains the most of the file's mappings.
struct LoadedImage {
  /// What the file's addresses are moved by: 0 for an executable that is not position
  /// independent, where the image sits for a shared object or PIE (their addresses start at 0).
  var bias: UInt
  /// Where the image starts: its lowest segment's page, as `dladdr` gives `dli_fbase`.
  var base: UInt
  /// The addresses its segments cover, their zero-filled tails (`.bss`) included: the part of
  /// `.bss` past the file's last page is anonymous memory, in no mapping of the file.
  var extent: Range<UInt>

  /// Places `segments` by the file's `mappings` (each of them a mapping of that file), with
  /// pages of `pageSize` bytes. Each mapping whose offset starts a page of a segment gives a
  /// bias; the bias the most mappings agree on wins, one that places an executable mapping
  /// first on a tie. Nil when no mapping is a page of a segment.
  init?(segments: [LoadSegment], mappings: [MemoryMap.Region], pageSize: UInt) {
    var votes: [UInt: (mappings: Int, executable: Bool)] = [:]
    for mapping in mappings {
      var biases: Set<UInt> = []
      for segment in segments {
        guard let address = segment.address(ofMappingAt: UInt64(mapping.fileOffset), pageSize: UInt64(pageSize))
        else { continue }
        biases.insert(mapping.range.lowerBound &- UInt(truncatingIfNeeded: address))
      }
      for bias in biases {
        let vote = votes[bias, default: (0, false)]
        votes[bias] = (vote.mappings + 1, vote.executable || mapping.protection.executable)
      }
    }
    let best = votes.max { a, b in
      (a.value.mappings, a.value.executable ? 1 : 0, b.key) < (b.value.mappings, b.value.executable ? 1 : 0, a.key)
    }
    guard let bias = best?.key else { return nil }
    let loaded = segments.filter { $0.memorySize > 0 }
    let low = loaded.map { $0.address - $0.address % UInt64(pageSize) }.min() ?? 0
    let high = loaded.map { $0.address &+ $0.memorySize }.max() ?? 0
    self.bias = bias
    base = bias &+ UInt(truncatingIfNeeded: low)
    extent = base..<max(base, bias &+ UInt(truncatingIfNeeded: high))
  }

  /// An image whose file has no segments to place it by (it could not be read, or is not
  /// ELF): its base is the lowest start, less its file offset, of `mappings`, and its extent
  /// their span.
  init?(mappings: [MemoryMap.Region]) {
    guard let base = mappings.map({ $0.range.lowerBound &- $0.fileOffset }).min(),
      let high = mappings.map(\.range.upperBound).max()
    else { return nil }
    bias = base
    self.base = base
    extent = base..<max(base, high)
  }
}
