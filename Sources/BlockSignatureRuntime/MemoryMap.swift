/// A process's memory mappings, from `/proc/<pid>/maps` (or `/proc/self/maps`).

import BlockSignature
import BlockSignatureBinary
import BlockSignatureSystem

struct MemoryMap {
  struct Protection: Hashable {
    var readable: Bool
    var executable: Bool
  }

  /// One line of the maps file.
  struct Region {
    var range: Range<UInt>
    var protection: Protection
    /// Where the mapping starts in its file.
    var fileOffset: UInt
    /// The file mapped (an absolute path), a kernel name such as `[heap]` or `[stack]`, or
    /// empty for anonymous memory.
    var path: String
  }

  /// The mappings, in address order.
  private(set) var regions: [Region] = []
  /// Why the maps file could not be read (`No such process` when the process is gone), or
  /// nil when it was.
  private(set) var error: SystemCallError? = nil

  /// The mappings of process `pid`, or of this process when `pid` is nil; empty, with
  /// ``error`` set, when they cannot be read.
  init(pid: Int32? = nil) {
    // The kernel hands the file out a page of lines per read, and the process may map or
    // unmap meanwhile (a dlopen, a thread's stack): a reading can lose the lines at a page
    // boundary. Read until two readings agree (at most four); when none do, lines lost in the
    // last reading are taken from earlier ones where they overlap nothing it has.
    let path = pid.map { "/proc/\($0)/maps" } ?? "/proc/self/maps"
    var readings: [[UInt8]] = []
    reading: for _ in 0..<4 {
      switch system_readProcFile(path) {
      case .success(let bytes):
        if bytes == readings.last { break reading }
        readings.append(bytes)
      case .failure(let failure):
        if !readings.isEmpty { break reading }
        error = SystemCallError(
          call: failure.call, code: failure.code,
          explanation: failure.code == SystemErrno.noSuchFile ? "No such process" : nil)
        return
      }
    }
    regions = Self.merged(readings.map(Self.regions(in:)))
  }

  /// The regions of the last reading, with those of earlier readings that overlap none of
  /// them, in address order.
  static func merged(_ readings: [[Region]]) -> [Region] {
    guard var result = readings.last else { return [] }
    let latest = result
    for earlier in readings.dropLast() {
      for region in earlier where !latest.contains(where: { $0.range.overlaps(region.range) }) {
        if !result.contains(where: { $0.range.overlaps(region.range) }) { result.append(region) }
      }
    }
    return result.sorted { $0.range.lowerBound < $1.range.lowerBound }
  }

  /// The regions listed in one reading of a maps file.
  static func regions(in text: [UInt8]) -> [Region] {
    var regions: [Region] = []
    for line in text.split(separator: UInt8(ascii: "\n")).map({ String(decoding: $0, as: UTF8.self) }) {
      // start-end perms offset dev inode [path]
      let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
      guard fields.count >= 5 else { continue }
      let bounds = fields[0].split(separator: "-")
      let permissions = Array(fields[1].utf8)
      guard bounds.count == 2, let low = UInt(bounds[0], radix: 16), let high = UInt(bounds[1], radix: 16),
        low < high, let offset = UInt(fields[2], radix: 16), permissions.count >= 3
      else { continue }
      var path = fields.count == 6 ? fields[5].drop { $0 == " " } : ""
      while path.hasSuffix(" ") { path = path.dropLast() }
      regions.append(
        Region(
          range: low..<high,
          protection: Protection(
            readable: permissions[0] == UInt8(ascii: "r"), executable: permissions[2] == UInt8(ascii: "x")),
          fileOffset: offset, path: String(path)))
    }
    return regions
  }

  /// This process's mappings now (empty where `/proc/self/maps` is unavailable).
  static func current() -> MemoryMap { MemoryMap() }

  /// The protection of the mapping that contains `address`, or nil when none does.
  func protection(of address: UInt) -> Protection? {
    regions.first { $0.range.contains(address) }?.protection
  }
}
