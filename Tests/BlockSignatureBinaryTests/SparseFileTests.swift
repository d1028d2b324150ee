import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// A 4 GiB sparse file: an object whose section header table sits at the very end, with a
/// 4 GiB hole in between. The scanner maps it and reads both ends; it must not read the hole
/// into memory.
@Suite struct SparseFileTests {
  static let size: Int = 4 << 30

  /// Writes the sparse file, scans it and deletes it; returns the reports and the blocks of the
  /// same object scanned from memory.
  static func scanSparseFile() throws -> (sparse: BinaryScanReport, plain: BinaryScanReport) {
    var elf = BinaryHardeningTests.ELF(bytes: try BinaryHardeningTests.object())
    let plain = try #require(BinaryHardeningTests.scan(elf.bytes).report)
    // Move the section header table to the end of the 4 GiB file.
    let table = Array(elf.bytes[elf.sectionOffset..<(elf.sectionOffset + 64 * elf.sectionCount)])
    let tableOffset = size - table.count
    elf.write(0x28, 8, UInt64(tableOffset))
    let directory = try Toolchain.temporaryDirectory("sparse")
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("sparse.o").path
    let descriptor = open(path, O_CREAT | O_RDWR | O_TRUNC, 0o644)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    try #require(ftruncate(descriptor, off_t(size)) == 0)
    try #require(elf.bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } == elf.bytes.count)
    try #require(
      table.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(tableOffset)) } == table.count)
    // Sparse: almost nothing is allocated on disk.
    var status = stat()
    try #require(fstat(descriptor, &status) == 0)
    try #require(Int(status.st_size) == size)
    #expect(Int(status.st_blocks) * 512 < 1 << 24)
    let sparse = try #require(try BinaryScanner.scan(fileAt: path).first)
    return (sparse, plain)
  }

  @Test func fourGiBSparseFileScansLikeTheObject() throws {
    let (sparse, plain) = try Self.scanSparseFile()
    #expect(sparse.warnings.isEmpty, "\(sparse.warnings)")
    #expect(sparse.blocks.map(\.signature) == plain.blocks.map(\.signature))
    #expect(sparse.blocks.map(\.size) == plain.blocks.map(\.size))
  }

  /// In a fresh child process, the peak resident set (`VmHWM`: heap and touched file pages)
  /// after the scan stays under 1 GiB: neither the hole is read nor anything proportional to
  /// the 4 GiB file allocated.
  @Test func fourGiBSparseFileScanKeepsPeakMemoryUnderOneGiB() async throws {
    await #expect(processExitsWith: .success) {
      let (sparse, plain) = try SparseFileTests.scanSparseFile()
      guard sparse.blocks.map(\.signature) == plain.blocks.map(\.signature), !plain.blocks.isEmpty else { exit(1) }
      let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
      let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
      let kilobytes = try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
      exit(kilobytes < 1 << 20 ? 0 : 3)
    }
  }
}
