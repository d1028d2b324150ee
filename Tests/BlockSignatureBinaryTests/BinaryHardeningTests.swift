import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// Hostile binaries: truncated at every header boundary, tables outside the file or
/// overflowing, indices out of range, relocation counts beyond the file, self-referencing
/// tables, absurd descriptors and a 4 GiB sparse file. Each gives a report with warnings or a
/// typed `BinaryScanError` with an offset; nothing traps.
@Suite struct BinaryHardeningTests {
  @Test(arguments: ["object", "shared"])
  func truncatedAtEveryHeaderBoundary(_ kind: String) throws {
    let elf = ELF(bytes: kind == "object" ? try Self.object() : try Self.sharedLibrary())
    let whole = try #require(Self.scan(elf.bytes).report)
    #expect(whole.warnings.isEmpty)
    #expect(whole.blocks.count == 4)
    for boundary in elf.boundaries.sorted() {
      for length in [boundary - 1, boundary, boundary + 1] where length >= 0 && length < elf.bytes.count {
        let outcome = Self.scan(Array(elf.bytes.prefix(length)))
        // The section header table is the last thing in the file: any cut damages it.
        let error = try #require(outcome.error, "\(kind) cut at \(length) scanned without error")
        // Shorter than `e_ident` (16 bytes) is not recognisably ELF.
        #expect(error.kind == .malformed || (length < 16 && error.kind == .unrecognizedFormat), "\(length): \(error)")
        #expect(error.offset != nil)
      }
    }
  }

  // MARK: Section and segment tables

  @Test func sectionOffsetsAndSizesOutsideTheFileOrOverflowing() throws {
    let original = ELF(bytes: try Self.object())
    let allocated = (1..<original.sectionCount).filter { original.read(original.header($0) + 8, 8) & 2 != 0 }
    try #require(allocated.count >= 3)
    let patches: [(field: Int, value: UInt64)] = [
      (0x18, UInt64.max - 0xff),  // offset near the top of the address space: offset + size overflows
      (0x18, UInt64(original.bytes.count) - 1),  // starts in the file, ends past it
      (0x20, UInt64.max),  // size overflowing
      (0x20, 1 << 40),  // size beyond the file
    ]
    for index in allocated where original.sectionType(index) != 8 {  // not .bss
      for patch in patches {
        var elf = original
        elf.write(elf.header(index) + patch.field, 8, patch.value)
        let outcome = Self.scan(elf.bytes)
        let report = try #require(
          outcome.report, "\(original.name(index)) patch \(patch): \(outcome.error.map(String.init(describing:)) ?? "")"
        )
        #expect(
          report.warnings.contains { $0.message.contains(original.name(index)) },
          "\(original.name(index)): \(report.warnings)")
      }
    }
  }

  @Test func sectionAddressesWrappingAround() throws {
    let original = ELF(bytes: try Self.sharedLibrary())
    let index = try #require(original.index(named: ".data.rel.ro"))
    var elf = original
    elf.write(elf.header(index) + 0x10, 8, UInt64.max - 7)
    let report = try #require(Self.scan(elf.bytes).report)
    #expect(report.warnings.contains { $0.message.contains("wraps around") && $0.kind == .wrapsAround })
  }

  @Test func programAndSectionHeaderTablesOutsideTheFile() throws {
    let original = ELF(bytes: try Self.sharedLibrary())
    // Program headers: past the end, overflowing offset + count × size, a tiny entry size.
    for (field, size, value) in [
      (0x20, 8, UInt64.max - 8), (0x20, 8, UInt64(original.bytes.count)), (0x38, 2, 0xffff), (0x36, 2, 1),
    ] {
      var elf = original
      elf.write(field, size, value)
      let report = try #require(Self.scan(elf.bytes).report)
      #expect(
        report.warnings.contains { $0.message.hasPrefix("program header table") && $0.kind == .pastEndOfFile },
        "\(field)=\(value)")
    }
    // Section headers: past the end, overflowing, entry size too small, count too large, and
    // the e_shnum escape (0) pointing at a first entry with an absurd count.
    var cases: [(Int, Int, UInt64)] = [
      (0x28, 8, UInt64.max - 8), (0x28, 8, UInt64(original.bytes.count)), (0x3A, 2, 8), (0x3C, 2, 0xfffe),
    ]
    cases.append((0x28, 8, 0))
    for (field, size, value) in cases {
      var elf = original
      elf.write(field, size, value)
      let error = try #require(Self.scan(elf.bytes).error, "\(field)=\(value)")
      #expect(error.kind == .malformed)
      #expect(error.offset != nil)
    }
    var escape = original
    escape.write(0x3C, 2, 0)
    escape.write(escape.header(0) + 0x20, 8, UInt64.max)  // section 0's size = the real count
    let error = try #require(Self.scan(escape.bytes).error)
    #expect(error.kind == .malformed)
    #expect(try #require(error.offset) == UInt64(original.sectionOffset))
  }

  // MARK: Symbol, string and relocation tables

  /// A symbol table whose bytes lie past the end of the file is a damaged table, warned about,
  /// not a stripped file (as a Mach-O symbol table past the end is an error, not "stripped").
  @Test func symbolTablePastTheEndIsDamagedNotStripped() throws {
    var elf = ELF(bytes: try Self.object())
    let symtab = try #require(elf.indices(ofType: 2).first)
    elf.write(elf.header(symtab) + 0x18, 8, UInt64(elf.bytes.count) + 0x1000)
    let report = try #require(Self.scan(elf.bytes).report)
    #expect(report.hasSymbols)
    #expect(
      report.warnings.contains { $0.message.hasPrefix("symbol table .symtab at ") && $0.kind == .pastEndOfFile },
      "\(report.warnings)")
  }

  @Test func symbolAndStringTableIndicesOutOfRange() throws {
    let original = ELF(bytes: try Self.object())
    let symtab = try #require(original.indices(ofType: 2).first)
    let baseline = try #require(Self.scan(original.bytes).report).blocks.map(\.signature)

    // sh_link of the symbol table: out of range, and pointing at the table itself (a cycle).
    for link in [UInt64(0xffff), UInt64(original.sectionCount), UInt64(symtab)] {
      var elf = original
      elf.write(elf.header(symtab) + 0x28, 4, link)
      let report = try #require(Self.scan(elf.bytes).report, "link \(link)")
      // Names come from the wrong table (the cycle) or none; what the symbols point at is lost,
      // and relocations through them are dropped with a warning rather than misread.
      if link != UInt64(symtab) {
        #expect(
          report.warnings.contains {
            $0.message.hasPrefix("symbol table .symtab links to string table section \(link)")
          }, "\(report.warnings)")
        #expect(
          report.warnings.contains {
            $0.message.contains("which is not a readable symbol table") && $0.kind == .indexOutOfRange
          })
      }
      #expect(report.blocks.allSatisfy { block in baseline.contains(block.signature) })
    }
    // Every symbol's name offset and section index out of range.
    var names = original
    let symbols = original.sectionFileRange(symtab)
    for at in stride(from: symbols.lowerBound + 24, to: symbols.upperBound, by: 24) {
      names.write(at, 4, 0xffff_fff0)
      names.write(at + 6, 2, 0xfeff)
    }
    let report = try #require(Self.scan(names.bytes).report)
    #expect(
      report.warnings.contains {
        $0.message.contains(
          "symbols in .symtab have a name offset past the end of their string table (first: symbol 1)")
      }, "\(report.warnings)")
    #expect(
      report.warnings.contains {
        $0.message.contains("symbols in .symtab refer to a section past the section header table (first: symbol 1)")
      })
    // e_shstrndx out of range: no names, and a warning that says why.
    var strings = original
    strings.write(0x3E, 2, 0xfff0)
    let unnamed = try #require(Self.scan(strings.bytes).report)
    #expect(
      unnamed.warnings.contains {
        $0.message.hasPrefix("section name table index 65520 is past the section header table")
      })
  }

  @Test func relocationsBeyondTheFileOrTheSymbolTable() throws {
    let original = ELF(bytes: try Self.object())
    let relocationSections = original.indices(ofType: 4)
    try #require(!relocationSections.isEmpty)
    for index in relocationSections {
      // A count larger than the file.
      var large = original
      large.write(large.header(index) + 0x20, 8, UInt64(original.bytes.count) * 24)
      let report = try #require(Self.scan(large.bytes).report)
      #expect(report.warnings.contains { $0.message.contains(original.name(index)) }, "\(report.warnings)")
      // Symbol indices past the symbol table.
      var symbols = original
      let range = original.sectionFileRange(index)
      for at in stride(from: range.lowerBound, to: range.upperBound, by: 24) {
        symbols.write(at + 12, 4, 0xffff_fff0)
      }
      let symbolReport = try #require(Self.scan(symbols.bytes).report)
      // Only pointer relocations (in data) are read; code relocations are skipped unread.
      if original.name(index).hasPrefix(".rela.data") {
        #expect(
          symbolReport.warnings.contains { $0.message.contains("past end of symbol table") },
          "\(original.name(index)): \(symbolReport.warnings)")
      }
    }
  }

  /// A relocation table of 100 000 entries that all name a symbol past the table: the report
  /// keeps the first ``BinaryScanReport/warningLimit`` warnings and counts the rest, so a
  /// hostile table costs no memory per bad entry.
  @Test func hugeTablesOfBadRelocationsKeepABoundedWarningList() throws {
    var elf = ELF(bytes: try Self.object())
    let index = try #require(
      elf.indices(ofType: 4).first { elf.name($0).hasPrefix(".rela.data") && !elf.sectionFileRange($0).isEmpty })
    let entry = Array(elf.bytes[elf.sectionFileRange(index).prefix(24)])
    let count = 100_000
    let start = elf.bytes.count
    for _ in 0..<count { elf.bytes += entry }
    for at in stride(from: start, to: elf.bytes.count, by: 24) { elf.write(at + 12, 4, 0xffff_fff0) }
    elf.write(elf.header(index) + 0x18, 8, UInt64(start))
    elf.write(elf.header(index) + 0x20, 8, UInt64(24 * count))
    let report = try #require(Self.scan(elf.bytes).report)
    let bad = report.warnings.filter { $0.message.contains("past end of symbol table") }
    #expect(bad.count == BinaryScanReport.warningLimit, "\(report.warnings.count) warnings")
    #expect(report.warnings.count == BinaryScanReport.warningLimit + 1)
    let last = try #require(report.warnings.last)
    #expect(last.message.hasSuffix("are kept)"), "\(last.message)")
    let shown = report.warnings.count - 1
    let dropped = try #require(Int(last.message.prefix { $0.isNumber }))
    // Every entry was counted: the shown ones (some may be about other tables) plus the rest.
    #expect(shown + dropped >= count, "\(shown) shown, \(dropped) dropped")
  }

  /// Code that is nothing but loads of one descriptor's address (70 000 `lea`s): the sites
  /// stop at 65 536 with a warning that says so, rather than one
  /// window's scan and one entry per 7 bytes of a file as large as an attacker likes.
  @Test func codeOfNothingButDescriptorLoadsKeepsABoundedSiteList() throws {
    let (report, block) = try ConstructionSiteTests.scanStackBlock(
      """
      extern void use(void (^)(void));
      void f(int k) { use(^{ (void)k; }); }
      __asm__(".text\\n.globl flood\\nflood:\\n.rept 70000\\nlea __block_descriptor_tmp(%rip), %rax\\n.endr\\nret");

      """, arguments: ["-fblocks", "-O1", "-shared", "-fPIC", "-nostdlib"], output: "libflood.so")
    #expect(block.constructionSites.count == 1 << 16)
    let addresses = block.constructionSites.map(\.location.sectionOffset)
    #expect(addresses == addresses.sorted() && Set(addresses).count == addresses.count)
    let warning = try #require(report.warnings.last)
    #expect(warning.message.hasPrefix("more than 65536 loads of a block descriptor in the code"), "\(warning)")
  }

  /// Code of 5 000 descriptor loads each stored at once but with no invoke beside them: each
  /// would be traced back 4 KiB; at most 4 096 are, and a warning counts the rest.
  @Test func sitesTracedBackAreBounded() throws {
    let (report, block) = try ConstructionSiteTests.scanStackBlock(
      """
      extern void use(void (^)(void));
      void f(int k) { use(^{ (void)k; }); }
      __asm__(".text\\n.globl flood\\nflood:\\n.rept 5000\\nlea __block_descriptor_tmp(%rip), %rax\\nmov %rax, 8(%rsp)\\n.endr\\nret");

      """, arguments: ["-fblocks", "-O1", "-shared", "-fPIC", "-nostdlib"], output: "libtraced.so")
    #expect(block.constructionSites.count == 5001)
    #expect(block.constructionSites.filter { $0.invoke != nil }.count == 1)  // f's
    #expect(
      report.warnings.map(\.message).contains(
        "904 construction sites were not traced back for their invoke: at most 4096 are"), "\(report.warnings)")
  }

  /// Code the scanner cannot trust: a `.text` of random bytes, of bytes that are all the
  /// start of a `lea` or a `movabs`, and one whose size runs past the end of the file. Sites
  /// are read from the bytes there are; nothing traps.
  @Test func hostileCodeSections() throws {
    let original = try Self.build("libcode.so", ["-shared", "-fPIC", "-nostdlib"])
    let elf = ELF(bytes: original)
    let text = try #require(elf.indices(ofType: 1).first { elf.name($0) == ".text" })
    let range = elf.sectionFileRange(text)
    let full = try #require(Self.scan(original).report)
    #expect(full.blocks.filter { $0.kind == .stack }.allSatisfy { !$0.constructionSites.isEmpty })
    // Random bytes from a fixed seed (xorshift64), so that a failure can be replayed.
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    let random = (0..<range.count).map { _ -> UInt8 in
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      return UInt8(truncatingIfNeeded: state >> 32)
    }
    let fills: [[UInt8]] = [
      random,
      [0x48, 0x8D, 0x05], [0x48, 0xB8], [0x48, 0xC7, 0x44, 0x24], [0x48, 0x89, 0x44, 0x24, 0x08],
    ]
    for fill in fills {
      var filled = elf
      for (offset, position) in range.enumerated() { filled.bytes[position] = fill[offset % fill.count] }
      let report = try #require(Self.scan(filled.bytes).report)
      #expect(report.blocks.count == full.blocks.count)
    }
    var long = elf
    long.write(elf.header(text) + 0x20, 8, UInt64(original.count))
    _ = Self.scan(long.bytes)
  }

  // MARK: Descriptors

  @Test func descriptorsWithAbsurdSizeOrSignaturePointer() throws {
    let original = try Self.staticExecutable()
    let baseline = try #require(Self.scan(original).report)
    try #require(baseline.blocks.count == 4)
    for block in baseline.blocks {
      let descriptor = try #require(block.descriptor.fileOffset).asInt
      let signatureSlot = descriptor + (block.copyHelper != nil ? 32 : 16)
      for (slot, value) in [
        (descriptor + 8, UInt64.max), (descriptor + 8, 1 << 40), (descriptor + 8, 3),
        (signatureSlot, UInt64.max - 15), (signatureSlot, 0x10), (signatureSlot, 0),
      ] {
        var elf = ELF(bytes: original)
        elf.write(slot, 8, value)
        let report = try #require(Self.scan(elf.bytes).report)
        // The damaged descriptor is dropped or kept without that signature; the others survive.
        let others = baseline.blocks.filter { $0.descriptor != block.descriptor }
        for other in others {
          #expect(report.blocks.contains { $0.descriptor == other.descriptor && $0.signature == other.signature })
        }
        let damaged = report.blocks.first { $0.descriptor == block.descriptor }
        if slot == signatureSlot {
          #expect(damaged?.signature == nil)
        } else {
          #expect(
            damaged == nil || damaged?.size == value, "size \(value) kept as \(String(describing: damaged?.size))")
        }
      }
    }
  }
}

extension UInt64 {
  fileprivate var asInt: Int { Int(self) }
}
