import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// `ELFLoadCheck`: what the dynamic linker would map or read out of range is refused, with
/// where and why; a library clang links passes.
@Suite struct ELFLoadCheckTests {
  /// A small shared library with a global block, a constructor and relocations, linked by clang.
  static let library: Result<Data, any Error> = Result {
    let (directory, product) = try Toolchain.compileC(
      """
      static int counter;
      __attribute__((constructor)) static void start(void) { counter = 1; }
      int *counter_address(void) { return &counter; }
      const char *names[] = {"one", "two", "three"};

      """, arguments: ["-shared", "-fPIC", "-O1"], output: "libcheck.so")
    defer { try? FileManager.default.removeItem(at: directory) }
    return try Data(contentsOf: product)
  }

  func verify(_ bytes: Data) -> BinaryScanError? {
    bytes.withUnsafeBytes { raw -> BinaryScanError? in
      do throws(BinaryScanError) {
        try ELFLoadCheck.verify(raw)
        return nil
      } catch {
        return error
      }
    }
  }

  /// The little-endian 64-bit word at `offset`.
  func word(_ bytes: Data, _ offset: Int) -> UInt64 {
    bytes[offset..<(offset + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
  }

  func setWord(_ bytes: inout Data, _ offset: Int, _ value: UInt64) {
    for index in 0..<8 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
  }

  @Test func aLinkedLibraryPasses() throws {
    #expect(verify(try Self.library.get()) == nil)
    // And the toolchain's own libraries.
    let folder = try #require(Toolchain.runtimeLibraryDirectory)
    for name in ["libdispatch.so", "libBlocksRuntime.so"] {
      #expect(throws: Never.self) { try ELFLoadCheck.verify(fileAt: folder.appendingPathComponent(name).path) }
    }
  }

  /// Cut anywhere before its end, the file is refused: the message names the segment or table
  /// and both sizes in hex.
  @Test func truncationsAreRefusedWithWhereAndWhy() throws {
    let bytes = try Self.library.get()
    for size in [0, 3, 63, 64, 200, 4096, bytes.count / 2, bytes.count - 100, bytes.count - 1] {
      let error = try #require(verify(bytes.prefix(size)), "cut to \(size)")
      if size >= 64 {
        #expect(error.kind == .malformed, "\(size): \(error)")
        #expect(error.message.contains("past the end of the file (0x\(String(size, radix: 16)) bytes)"), "\(error)")
      }
    }
    let segment = try #require(verify(bytes.prefix(4096)))
    #expect(segment.message.hasPrefix("segment "), "\(segment)")
    #expect(segment.offset != nil)
  }

  /// Another machine, another class, or not a shared library: unsupported, with what it is.
  @Test func otherMachinesAndKindsAreUnsupported() throws {
    var bytes = try Self.library.get()
    bytes[18] = 183  // EM_AARCH64
    bytes[19] = 0
    let machine = try #require(verify(bytes))
    #expect(machine.kind == .unsupportedVariant)
    #expect(machine.message.contains("ELF machine 183 (AArch64), not for this machine"), "\(machine)")
    bytes = try Self.library.get()
    bytes[16] = 1  // ET_REL
    #expect(verify(bytes)?.message == "the file is a relocatable object (.o), not a shared library")
    bytes = try Self.library.get()
    bytes[4] = 1  // ELFCLASS32
    #expect(verify(bytes)?.kind == .unsupportedVariant)
    let text = Data("not a library at all, only words".utf8)
    #expect(verify(text)?.kind == .unrecognizedFormat)
  }

  /// A relocation that would write outside every segment is found before ld.so applies it.
  @Test func aWildRelocationIsRefused() throws {
    var bytes = try Self.library.get()
    let programOffset = Int(word(bytes, 32))
    let count = Int(bytes[56]) | Int(bytes[57]) << 8
    // The dynamic section: find DT_RELA (7) and its first entry's r_offset.
    var loads: [(offset: UInt64, address: UInt64, size: UInt64)] = []
    var dynamic = 0
    for index in 0..<count {
      let entry = programOffset + index * 56
      let type = bytes[entry]
      if type == 1 { loads.append((word(bytes, entry + 8), word(bytes, entry + 16), word(bytes, entry + 32))) }
      if type == 2 { dynamic = Int(word(bytes, entry + 8)) }
    }
    var rela: UInt64?
    var entry = dynamic
    while word(bytes, entry) != 0 {
      if word(bytes, entry) == 7 { rela = word(bytes, entry + 8) }
      entry += 16
    }
    let address = try #require(rela)
    let load = try #require(loads.first { address >= $0.address && address < $0.address + $0.size })
    let fileOffset = Int(load.offset + (address - load.address))
    setWord(&bytes, fileOffset, 0x7fff_0000_0000)
    let error = try #require(verify(bytes))
    #expect(error.message == "relocation 0 of DT_RELA writes at 0x7fff00000000, outside the file's loaded segments")
    #expect(error.offset == UInt64(fileOffset))
  }
}
