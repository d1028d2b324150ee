import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// Hostile Mach-O files: truncated anywhere, load commands that loop or count absurdly.
extension BinaryHardeningTests {
  @Test func machOTruncatedAtEveryLoadCommandAndTable() throws {
    let bytes = try Self.machOObject()
    let whole = try #require(Self.scan(bytes).report)
    #expect(whole.warnings.isEmpty)
    #expect(!whole.blocks.isEmpty)
    let elf = ELF(bytes: bytes)  // same little-endian field reads
    var boundaries: Set<Int> = [0, 4, 16, 20, 24, 28, 32]
    var at = 32
    for _ in 0..<Int(elf.read(16, 4)) {
      boundaries.formUnion([at, at + 8])
      let command = elf.read(at, 4)
      if command == 0x19 {  // LC_SEGMENT_64: its sections' data and relocations
        for section in 0..<Int(elf.read(at + 64, 4)) {
          let header = at + 72 + 80 * section
          boundaries.insert(header)
          let offset = Int(elf.read(header + 48, 4))
          boundaries.formUnion([offset, offset + Int(elf.read(header + 40, 8))])
          let relocations = Int(elf.read(header + 56, 4))
          boundaries.formUnion([relocations, relocations + 8 * Int(elf.read(header + 60, 4))])
        }
      } else if command == 0x2 {  // LC_SYMTAB
        let symbols = Int(elf.read(at + 8, 4))
        let strings = Int(elf.read(at + 16, 4))
        boundaries.formUnion([symbols, symbols + 16 * Int(elf.read(at + 12, 4)), strings])
      }
      at += Int(elf.read(at + 4, 4))
    }
    for boundary in boundaries.sorted() where boundary > 0 && boundary < bytes.count {
      for length in [boundary - 1, boundary] {
        let outcome = Self.scan(Array(bytes.prefix(length)))
        // The string table ends the file, so every cut leaves a load command naming bytes
        // that are not there (shorter than the magic: not recognisably Mach-O).
        #expect(
          outcome.error?.kind == (length < 4 ? .unrecognizedFormat : .malformed),
          "Mach-O cut at \(length) scanned without error")
      }
    }
  }

  /// A Mach-O object cut anywhere is a typed error with an offset, like an ELF file cut
  /// anywhere: its load commands name a segment, symbol table or string table past the new end
  /// of the file. It is never a clean report that calls the file stripped because its symbol
  /// table was cut off (a cut at 1000 bytes, one of the lengths tried, drops the symbol table).
  @Test(arguments: ["arm64-apple-macos11", "x86_64-apple-macos11"])
  func machOObjectCutAnywhereIsMalformedNotStripped(_ target: String) throws {
    let bytes = try Self.build("b.o", ["-target", target, "-c"])
    let whole = try #require(Self.scan(bytes).report)
    #expect(whole.hasSymbols && whole.warnings.isEmpty)
    for length in Array(stride(from: 0, to: bytes.count, by: 7)) + [1000, bytes.count - 1] {
      switch Self.scan(Array(bytes.prefix(length))) {
      case .failure(let error):
        // Shorter than the magic is not recognisably Mach-O.
        #expect(error.kind == .malformed || (length < 4 && error.kind == .unrecognizedFormat), "\(length): \(error)")
        #expect(error.offset != nil, "\(length): \(error)")
      case .report(let report):
        Issue.record("\(target) cut at \(length) of \(bytes.count): a report, hasSymbols \(report.hasSymbols)")
      }
    }
    // The message names what is missing and where.
    let cutInStrings = Self.scan(Array(bytes.dropLast()))
    #expect(cutInStrings.error?.message.hasPrefix("string table (load command at 0x") == true, "\(cutInStrings)")
  }

  @Test func machOLoadCommandCyclesAndHugeCounts() throws {
    let original = ELF(bytes: try Self.machOObject())
    // cmdsize 0 would revisit the same command forever.
    var zero = original
    zero.write(32 + 4, 4, 0)
    let error = try #require(Self.scan(zero.bytes).error)
    #expect(error.kind == .malformed)
    #expect(try #require(error.offset) == 32)
    // ncmds far beyond what sizeofcmds holds.
    var count = original
    count.write(16, 4, 0xffff_ffff)
    #expect(Self.scan(count.bytes).error?.kind == .malformed)
    // Every section's relocation count beyond the file.
    var relocations = original
    let segment = 32
    try #require(original.read(segment, 4) == 0x19)
    for section in 0..<Int(original.read(segment + 64, 4)) {
      relocations.write(segment + 72 + 80 * section + 60, 4, 0xffff_ff00)
    }
    let report = try #require(Self.scan(relocations.bytes).report)
    #expect(!report.warnings.isEmpty)
  }
}
