import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// The loadable segments (`PT_LOAD`) the ELF loader reads, against what `llvm-objdump -p`
/// prints for the same file: both classes, both byte orders.
@Suite struct LoadSegmentTests {
  @Test(arguments: ["x86_64-linux-gnu", "i386-linux-gnu", "aarch64-linux-gnu", "powerpc64-linux-gnu"])
  func segmentsAreTheProgramHeaders(_ triple: String) throws {
    let (folder, product) = try Toolchain.compileC(
      "int value = 1;\nchar zeroed[9000];\nint read_value(void) { return value; }\n", fileName: "segments.c",
      arguments: ["--target=\(triple)", "-fPIC", "-shared", "-nostdlib", "-fuse-ld=lld"], output: "libsegments.so")
    defer { try? FileManager.default.removeItem(at: folder) }
    let dump = try Toolchain.run(Toolchain.tool("llvm-objdump"), ["-p", product.path])
    let expected = try Self.loads(inObjdump: dump.stdout)
    try #require(expected.count >= 2, "\(dump.stdout)")
    #expect(expected.contains { $0.memorySize > $0.fileSize }, "a .bss tail")
    let file = try MappedFile(path: product.path)
    let image = try ELFLoader.load(file.bytes, readingRelocations: false)
    #expect(image.loadSegments == expected)
  }

  /// The `LOAD` entries of `llvm-objdump -p`: `off`, `vaddr` on one line, `filesz`, `memsz`
  /// on the next.
  static func loads(inObjdump text: String) throws -> [LoadSegment] {
    let lines = text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
    return try lines.indices.filter { lines[$0].first == "LOAD" }.map { index in
      func field(_ name: String, _ line: [String]) throws -> UInt64 {
        let position = try #require(line.firstIndex(of: name), "\(name) in \(line)")
        return try #require(UInt64(line[position + 1].dropFirst(2), radix: 16), "\(line)")
      }
      let (header, sizes) = (lines[index], lines[index + 1])
      return LoadSegment(
        address: try field("vaddr", header), fileOffset: try field("off", header),
        fileSize: try field("filesz", sizes), memorySize: try field("memsz", sizes))
    }
  }
}
