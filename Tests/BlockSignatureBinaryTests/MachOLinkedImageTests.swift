import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

func scanImage(_ bytes: [UInt8]) throws -> BinaryScanReport {
  let reports = try bytes.withUnsafeBytes { raw in try BinaryScanner.scan(bytes: raw, name: "linked.dylib") }
  return try #require(reports.first)
}

@Suite struct MachOLinkedImageTests {
  /// Chained fixups with each imports table format find the literal through its isa bind.
  @Test(arguments: [UInt32(1), 2, 3])
  func importsFormats(_ format: UInt32) throws {
    let block = try ClangGlobalBlock.fromClang()
    var builder = MachOImageBuilder(fixups: .chained(pointerFormat: 6), block: block)
    builder.importsFormat = format
    let report = try scanImage(builder.build())
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    let found = try #require(report.blocks.first)
    #expect(found.literals.map(\.flags) == [block.flags])
    #expect(found.signature == block.signature)
  }

  static let cases: [(String, MachOImageBuilder.Fixups, Bool)] = [
    ("arm64-chained-6", .chained(pointerFormat: 6), true),
    ("arm64-chained-2", .chained(pointerFormat: 2), true),
    ("x86_64-chained-6", .chained(pointerFormat: 6), false),
    ("arm64e-chained-1", .chained(pointerFormat: 1), true),
    ("arm64e-chained-9", .chained(pointerFormat: 9), true),
    ("arm64e-chained-12", .chained(pointerFormat: 12), true),
    ("arm64-classic", .classic, true),
    ("x86_64-classic", .classic, false),
  ]

  @Test(arguments: 0..<8)
  func globalLiteralIsFoundThroughItsIsaBind(_ index: Int) throws {
    let (name, fixups, arm64) = Self.cases[index]
    let block = try ClangGlobalBlock.fromClang()
    var builder = MachOImageBuilder(fixups: fixups, block: block, arm64: arm64)
    let report = try scanImage(builder.build())
    #expect(report.format == .machO64, "\(name)")
    #expect(report.architecture == (arm64 ? "arm64" : "x86_64"), "\(name)")
    #expect(report.kind == .sharedLibrary, "\(name)")
    #expect(report.warnings.isEmpty, "\(name): \(report.warnings)")
    #expect(report.blocks.count == 1, "\(name): \(report.blocks)")
    let found = try #require(report.blocks.first, "\(name)")
    #expect(found.descriptor.address == MachOImageBuilder.descriptor, "\(name)")
    #expect(found.descriptor.section == "__DATA_CONST,__const", "\(name)")
    #expect(found.signature == block.signature, "\(name)")
    #expect(found.size == block.size, "\(name)")
    #expect(found.kind == .global, "\(name)")
    #expect(found.evidence.contains(.literal), "\(name): \(found.evidence)")
    #expect(found.literals.count == 1, "\(name): \(found.literals)")
    let literal = try #require(found.literals.first, "\(name)")
    #expect(literal.location.address == MachOImageBuilder.literal, "\(name)")
    #expect(literal.flags == block.flags, "\(name)")
    #expect(literal.invoke.address == MachOImageBuilder.base + MachOImageBuilder.textOffset, "\(name)")
    #expect(literal.invoke.symbol == "_gb_block_invoke", "\(name)")
  }

  /// Classic images rebase and bind the same slot (lazy pointers): the bind wins, no warning.
  @Test func bindOverRebasedSlotWins() throws {
    let block = try ClangGlobalBlock.fromClang()
    var builder = MachOImageBuilder(fixups: .classic, block: block)
    // Rebase 0x20 (the isa slot) as well as 0x10, 0x30 and 0x38.
    builder.rebaseOpcodesOverride = [0x11, 0x21, 0x20, 0x51, 0x21, 0x10, 0x51, 0x21, 0x30, 0x52, 0x00]
    let report = try scanImage(builder.build())
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    let found = try #require(report.blocks.first)
    #expect(found.kind == .global)
    #expect(found.literals.map(\.flags) == [block.flags])
  }

  /// The bind decides: the same literal bound to `_NSConcreteStackBlock` is no global literal
  /// (the symbol table still imports `_NSConcreteGlobalBlock`, so no shape fallback runs).
  @Test(arguments: 0..<8)
  func literalBoundToAnotherSymbolIsNotGlobal(_ index: Int) throws {
    let (name, fixups, arm64) = Self.cases[index]
    let block = try ClangGlobalBlock.fromClang()
    var builder = MachOImageBuilder(fixups: fixups, block: block, arm64: arm64)
    builder.isaSymbol = "__NSConcreteStackBlock"
    let report = try scanImage(builder.build())
    #expect(report.warnings.isEmpty, "\(name): \(report.warnings)")
    let found = try #require(report.blocks.first, "\(name)")
    #expect(report.blocks.count == 1, "\(name)")
    #expect(found.signature == block.signature, "\(name)")
    #expect(found.literals.isEmpty, "\(name)")
    #expect(found.kind == .stack, "\(name)")
  }

  /// Each hostile variant scans without a crash or hang and says what is wrong in a warning.
  @Test func hostileChainedFixupsGiveWarnings() throws {
    let block = try ClangGlobalBlock.fromClang()
    func warnings(_ change: (inout MachOImageBuilder) -> Void) throws -> [String] {
      var builder = MachOImageBuilder(fixups: .chained(pointerFormat: 6), block: block)
      change(&builder)
      return try scanImage(builder.build()).warnings.map(\.message)
    }
    let pastPage = try warnings { $0.lastNext = 0xfff * 4 }
    #expect(pastPage.contains { $0.contains("runs past its page") }, "\(pastPage)")
    let endless = try warnings { $0.everyWordChains = true }
    #expect(
      endless.contains { $0.contains("runs past its page") || $0.contains("does not end") }, "\(endless)")
    let badStart = try warnings { $0.pageStartOverride = 0x3ffc }
    #expect(badStart.contains { $0.contains("runs past its page") }, "\(badStart)")
    let badFormat = try warnings { $0.fixups = .chained(pointerFormat: 99) }
    #expect(badFormat.contains { $0.contains("unsupported pointer format 99") }, "\(badFormat)")
    let badImports = try warnings { $0.importsOffsetOverride = 0xffff_fff0 }
    #expect(
      badImports.contains { $0.contains("imports at 0x") && $0.contains("go past end") }, "\(badImports)")
    // Without the import, the isa bind cannot be resolved: the bind is reported.
    #expect(badImports.contains { $0.contains("chained bind at 0x") }, "\(badImports)")
  }

  /// `BIND_OPCODE_DO_BIND_ADD_ADDR_IMM_SCALED` (0xB3) binds, then skips 8 + 3 × 8 bytes: after
  /// binding `_other` at offset 0 it lands on the isa slot at 0x20, where the next bind puts
  /// `_NSConcreteGlobalBlock`. The immediate counts pointers, not bytes: read unscaled, the
  /// second bind would land at offset 0xb and the literal would go unfound.
  @Test func bindImmediateScaledSkipCountsPointers() throws {
    let block = try ClangGlobalBlock.fromClang()
    var builder = MachOImageBuilder(fixups: .classic, block: block)
    builder.bindOpcodesOverride =
      [0x11, 0x40] + Array("_other".utf8) + [0, 0x71, 0x00, 0xb3, 0x40]
      + Array("__NSConcreteGlobalBlock".utf8) + [0, 0x90, 0x00]
    let found = try Self.onlyGlobalBlock(in: try scanImage(builder.build()), block: block)
    #expect(found.evidence == [.literal], "\(found.evidence)")
  }

  /// The one block of a report with no warnings: global, its literal where the builder puts it,
  /// with clang's flags.
  static func onlyGlobalBlock(in report: BinaryScanReport, block: ClangGlobalBlock) throws -> ScannedBlock {
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    #expect(report.blocks.count == 1, "\(report.blocks)")
    let found = try #require(report.blocks.first)
    #expect(found.kind == .global)
    #expect(found.literals.map(\.location.address) == [MachOImageBuilder.literal])
    #expect(found.literals.map(\.flags) == [block.flags])
    return found
  }

  /// Lazy bind streams put `BIND_OPCODE_DONE` (0x00) after every entry, so the decoder reads
  /// them to their end: the isa bind here is the second entry, after a DONE (the normal bind
  /// stream is a bare DONE). Stopping at the first DONE would leave the isa slot unbound and
  /// the block a stack block without literals.
  @Test func lazyBindStreamIsReadPastEachDone() throws {
    let block = try ClangGlobalBlock.fromClang()
    var builder = MachOImageBuilder(fixups: .classic, block: block)
    builder.bindOpcodesOverride = [0x00]
    builder.lazyBindOpcodes =
      [0x71, 0x48, 0x11, 0x40] + Array("_other".utf8) + [0, 0x90, 0x00, 0x71, 0x20, 0x11, 0x40]
      + Array("__NSConcreteGlobalBlock".utf8) + [0, 0x90, 0x00]
    _ = try Self.onlyGlobalBlock(in: try scanImage(builder.build()), block: block)
  }

  @Test func hostileBindAndRebaseOpcodesGiveWarnings() throws {
    let block = try ClangGlobalBlock.fromClang()
    func warnings(bind: [UInt8]? = nil, rebase: [UInt8]? = nil) throws -> [String] {
      var builder = MachOImageBuilder(fixups: .classic, block: block)
      builder.bindOpcodesOverride = bind
      builder.rebaseOpcodesOverride = rebase
      return try scanImage(builder.build()).warnings.map(\.message)
    }
    // Runs off the end inside the symbol name (no NUL, no DONE).
    let truncated = try warnings(bind: [0x11, 0x40] + Array("__NSConcreteGlo".utf8))
    #expect(
      truncated.contains { $0.contains("bind opcodes at 0x") && $0.contains("run off the end") },
      "\(truncated)")
    // ULEB wider than 64 bits.
    let overflow = try warnings(
      bind: [0x11, 0x40, 0x5f, 0x78, 0, 0x71] + [UInt8](repeating: 0xff, count: 10) + [0x7f, 0x90, 0])
    #expect(overflow.contains { $0.contains("overflowing ULEB") }, "\(overflow)")
    // A huge repeat count stops at the end of the segment.
    let huge = try warnings(rebase: [0x11, 0x21, 0x10, 0x60] + MachOImageBuilder.uleb(1 << 60) + [0])
    #expect(huge.contains { $0.contains("points past the contents of segment __DATA_CONST") }, "\(huge)")
    let hugeBind = try warnings(
      bind: [0x11, 0x40, 0x5f, 0x78, 0, 0x71, 0x20, 0xc0] + MachOImageBuilder.uleb(1 << 60) + [0, 0])
    #expect(hugeBind.contains { $0.contains("points past segment __DATA_CONST") }, "\(hugeBind)")
    let badSegment = try warnings(bind: [0x11, 0x40, 0x5f, 0x78, 0, 0x7f, 0x00, 0x90, 0])
    #expect(badSegment.contains { $0.contains("names segment 15") }, "\(badSegment)")
    // A skip so large that the next address would wrap around.
    let wrap = try warnings(
      rebase: [0x11, 0x21, 0x10, 0x80] + MachOImageBuilder.uleb(4) + MachOImageBuilder.uleb(UInt64.max - 7)
        + [0])
    #expect(wrap.contains { $0.contains("skips past the address space") }, "\(wrap)")
    let unknown = try warnings(rebase: [0xf0, 0])
    #expect(unknown.contains { $0.contains("unknown rebase opcode 0xf0") }, "\(unknown)")
  }

  /// Truncating the image at every 64th byte and flipping bytes in the fixups never crashes.
  @Test func damagedImagesNeverCrash() throws {
    let block = try ClangGlobalBlock.fromClang()
    for fixups in [MachOImageBuilder.Fixups.chained(pointerFormat: 6), .classic] {
      var builder = MachOImageBuilder(fixups: fixups, block: block)
      let image = builder.build()
      for cut in stride(from: 0, to: image.count, by: 64) {
        _ = try? scanImage(Array(image[..<cut]))
      }
      for offset in Int(MachOImageBuilder.linkeditOffset)..<image.count {
        for value: UInt8 in [0x00, 0xff, 0x80] {
          var damaged = image
          damaged[offset] = value
          _ = try? scanImage(damaged)
        }
      }
    }
  }
}

/// Mach-O object files built by clang for x86_64 macOS (`-target x86_64-apple-macos11 -c`): the
/// header's file types, pointer-table sections and subtractor relocations.
@Suite struct MachOObjectFileTests {
  static let target = ["-target", "x86_64-apple-macos11"]

  /// Builds `source` (C or assembly, after `fileName`) into an object and returns its bytes.
  static func object(_ source: String, fileName: String, flags: [String] = []) throws -> [UInt8] {
    let (directory, object) = try Toolchain.compileC(
      source, fileName: fileName, arguments: target + flags + ["-c"], output: "object.o")
    defer { try? FileManager.default.removeItem(at: directory) }
    return try [UInt8](Data(contentsOf: object))
  }

  static func scan(_ bytes: [UInt8], name: String) throws -> BinaryScanReport {
    let reports = try bytes.withUnsafeBytes { raw in try BinaryScanner.scan(bytes: raw, name: name) }
    return try #require(reports.first)
  }

  /// `MH_BUNDLE` (file type 8, a loadable plug-in) is a shared library like `MH_DYLIB` (6): an
  /// object whose header says 8 scans as one, its global block found, not refused as an
  /// unsupported file type.
  @Test func bundleFileTypeIsASharedLibrary() throws {
    var bytes = try Self.object(
      "int (^g)(int) = ^(int a) { return a + 1; };\n", fileName: "bundle.c", flags: ["-fblocks"])
    try #require(bytes[12..<16].elementsEqual([1, 0, 0, 0]), "an MH_OBJECT")
    bytes.replaceSubrange(12..<16, with: [8, 0, 0, 0])  // filetype = MH_BUNDLE
    let report = try Self.scan(bytes, name: "bundle")
    #expect(report.format == .machO64)
    #expect(report.architecture == "x86_64")
    #expect(report.kind == .sharedLibrary)
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    #expect(report.blocks.map(\.signature) == ["i12@?0i8"])
    #expect(report.blocks.map(\.kind) == [.global])
    #expect(report.globalLiteralCount == 1)
  }

  /// A `non_lazy_symbol_pointers` section (type 6, like `__got`) holds pointers to symbols, not
  /// data: a slot pointing at `__NSConcreteGlobalBlock` is no global block literal, so it gives
  /// neither a block nor a warning about a literal running past its section.
  @Test func nonLazySymbolPointerToTheGlobalClassIsNoLiteral() throws {
    let bytes = try Self.object(
      """
      .section __DATA,__mygot,non_lazy_symbol_pointers
      .p2align 3
      _slot: .quad __NSConcreteGlobalBlock

      """, fileName: "got.s")
    let report = try Self.scan(bytes, name: "got.o")
    #expect(report.kind == .relocatable)
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    #expect(report.blocks.isEmpty, "\(report.blocks)")
  }

  /// x86_64's `X86_64_RELOC_SUBTRACTOR` is type 5 (arm64's is 1; x86_64's 1 is `SIGNED`): the
  /// UNSIGNED half of `__NSConcreteGlobalBlock - _x` is the difference's minuend, not a pointer
  /// to the global block class, so the word is no literal's isa and gives no warning.
  @Test func subtractorPairIsNoLiteralIsa() throws {
    let bytes = try Self.object(
      """
      .section __DATA,__data
      .globl __NSConcreteGlobalBlock
      .p2align 3
      __NSConcreteGlobalBlock: .quad 0
      .section __DATA,__other
      .p2align 3
      _x: .quad 0
      .section __DATA,__diff
      .p2align 3
      _d: .quad __NSConcreteGlobalBlock - _x

      """, fileName: "diff.s")
    let report = try Self.scan(bytes, name: "diff.o")
    #expect(report.kind == .relocatable)
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    #expect(report.blocks.isEmpty, "\(report.blocks)")
  }
}
