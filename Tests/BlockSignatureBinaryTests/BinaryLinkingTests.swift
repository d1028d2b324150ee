import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// What linkers, archivers and unusual but valid ELF files do that the plain builds of
/// `BinaryScanTests` do not: relocations kept in the output (`--emit-relocs`), archive members
/// of odd size, long-name offsets at the end of the name table, absolute relocations against
/// symbol 0, the section-name table index moved to section 0 (`SHN_XINDEX`), and a descriptor
/// that is the last thing in its section.
@Suite struct BinaryLinkingTests {
  /// The blocks of a report as comparable lines: kind, size, signature, literal count, evidence.
  static func summary(_ report: BinaryScanReport) -> [String] {
    report.blocks.map { block in
      "\(block.kind) \(block.size) \(block.signature ?? "-") literals \(block.literals.count) \(block.evidence)"
    }.sorted()
  }

  static func build(_ name: String, compile: [String], link: [String]?) throws -> (
    binary: URL, truth: [TruthDescriptor], directory: URL
  ) {
    let built = try buildBinary(BuildCase(name: name, compileFlags: compile, linkFlags: link), source: blockSource)
    return (built.binary, built.truth, built.directory)
  }

  /// `ld --emit-relocs` keeps the static relocations in a linked file beside the dynamic ones; a
  /// literal's fields must still be read once (they were listed twice, once per relocation).
  @Test(arguments: [
    ("shared", ["-O2", "-fPIC"], ["-shared"]),
    ("pie", ["-O0", "-fPIE"], ["-pie", "-lBlocksRuntime"]),
    ("nopie", ["-O2", "-fno-pic"], ["-no-pie", "-lBlocksRuntime"]),
  ])
  func emittedRelocationsDoNotRepeatLiterals(name: String, compile: [String], link: [String]) throws {
    let plain = try Self.build(name, compile: compile, link: link)
    let kept = try Self.build(name + "-emit-relocs", compile: compile, link: link + ["-Wl,--emit-relocs"])
    defer {
      try? FileManager.default.removeItem(at: plain.directory)
      try? FileManager.default.removeItem(at: kept.directory)
    }
    let plainReport = try #require(try BinaryScanner.scan(fileAt: plain.binary.path).first)
    let keptReport = try #require(try BinaryScanner.scan(fileAt: kept.binary.path).first)
    #expect(plainReport.blocks.count == plain.truth.count)
    #expect(Self.summary(keptReport) == Self.summary(plainReport))
    #expect(keptReport.globalLiteralCount == plainReport.globalLiteralCount)
    #expect(plainReport.globalLiteralCount > 0)
  }

  /// An archive member of odd size is followed by one byte of padding before the next header.
  @Test func oddSizedArchiveMemberIsPadded() throws {
    let ar = try #require(Toolchain.find(anyOf: ["llvm-ar", "ar"]))
    let object = try Self.build("odd-archive", compile: ["-O0"], link: nil)
    defer { try? FileManager.default.removeItem(at: object.directory) }
    let text = object.directory.appendingPathComponent("odd.txt")
    try Data("abc".utf8).write(to: text)
    let archive = object.directory.appendingPathComponent("odd.a")
    try Toolchain.check(ar, ["rc", archive.path, text.path, object.binary.path])
    let reports = try BinaryScanner.scan(fileAt: archive.path)
    #expect(reports.map(\.file) == ["\(archive.path)(blocks.o)"])
    #expect(reports.first?.blocks.count == object.truth.count)
  }

  /// A GNU long name `/<offset>` must point inside the `//` table: an offset equal to the table's
  /// length is past its end (a typed error), one inside names the member.
  @Test func longNameOffsetAtTheEndOfTheTableIsMalformed() throws {
    let object = try Self.build("longname-archive", compile: ["-O0"], link: nil)
    defer { try? FileManager.default.removeItem(at: object.directory) }
    let contents = try [UInt8](Data(contentsOf: object.binary))
    let table = Array("a_rather_long_member_name.o/\n".utf8)
    func header(_ name: String, _ size: Int) -> [UInt8] {
      Array(
        (name.padding(toLength: 16, withPad: " ", startingAt: 0) + "0           0     0     644     "
          + String(size).padding(toLength: 10, withPad: " ", startingAt: 0) + "`\n").utf8)
    }
    func archive(nameOffset: Int) -> [UInt8] {
      var bytes = Array("!<arch>\n".utf8) + header("//", table.count) + table
      if table.count % 2 == 1 { bytes.append(0x0A) }
      return bytes + header("/\(nameOffset)", contents.count) + contents
    }
    let named = try archive(nameOffset: 0).withUnsafeBytes { raw in
      try BinaryScanner.scan(bytes: raw, name: "long.a")
    }
    #expect(named.map(\.file) == ["long.a(a_rather_long_member_name.o)"])
    #expect(named.first?.blocks.count == object.truth.count)

    let bytes = archive(nameOffset: table.count)
    let result = bytes.withUnsafeBytes { raw in
      Result { () throws(BinaryScanError) in try BinaryScanner.scan(bytes: raw, name: "long.a") }
    }
    guard case .failure(let error) = result else {
      Issue.record("a long-name offset at the end of the table scanned without error")
      return
    }
    #expect(error.kind == .malformed)
    #expect(error.message.contains("past end of the name table"), "\(error.message)")
    // The member header that names it: after the signature, the table's header and the table.
    let memberHeader: Int = 8 + 60 + table.count + table.count % 2
    #expect(error.offset == UInt64(memberHeader))
  }

  /// A descriptor with no layout word after its signature (as Swift writes them) that is the
  /// last thing in its section: its last word is read too.
  @Test func descriptorEndingItsSectionIsFound() throws {
    let (directory, binary) = try Toolchain.compileC(
      """
      struct D { unsigned long reserved, size; const char *signature; };
      __attribute__((used, section("blkdesc"))) const struct D swift_like_descriptor = {0, 32, "v8@?0"};
      int main(void) { return 0; }
      """, arguments: ["-O0", "-fno-pic", "-no-pie"], output: "last")
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = try #require(try BinaryScanner.scan(fileAt: binary.path).first)
    let found = report.blocks.filter { $0.descriptor.section == "blkdesc" }
    #expect(found.map(\.signature) == ["v8@?0"])
    #expect(found.map(\.size) == [32])
  }

  /// A last argument without bytes sits at the frame's end (`v8@?0{E=}8` for a block taking an
  /// empty structure): the signature still reads as a block signature, structural evidence and
  /// all, with no warning.
  @Test func emptyLastArgumentAtTheFrameEnd() throws {
    let (directory, object) = try Toolchain.compileC(
      "struct E {};\nvoid (^gb)(struct E) = ^(struct E e) { };\n", arguments: ["-fblocks", "-w", "-c"],
      output: "empty.o")
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = try #require(try BinaryScanner.scan(fileAt: object.path).first)
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    let block = try #require(report.blocks.first)
    #expect(report.blocks.count == 1)
    #expect(block.signature == "v8@?0{E=}8")
    #expect(block.evidence == [.literal, .symbol, .structural])
  }

  /// C blocks carry no extended layout (clang sets `BLOCK_HAS_EXTENDED_LAYOUT` only for
  /// Objective-C); the word after their signature is not one.
  /// Declarations are written for the file's own data model, not the host's: clang writes `q`
  /// for `long long` on i386 (`long` on LP64) and `C` for `char` where `char` is unsigned.
  /// Each declaration found must be one clang accepts for the block it compiled, on that
  /// target (clang rejects incompatible block pointer types).
  @Test(arguments: [
    ("i386-linux-gnu", "i386-linux"), ("aarch64-linux-gnu", "aarch64-linux"), ("x86_64-linux-gnu", "x86_64-linux"),
    ("arm64-apple-macos", "arm64-apple"),
  ])
  func declarationsFollowTheFilesDataModel(triple: String, model: String) throws {
    // Types one letter names unambiguously on the target (not `long long` on LP64, where `q`
    // is also `long`, nor `unsigned char` where `C` is also `char`).
    var blocks = ["long (^b0)(long, unsigned long)", "char (^b1)(char, short)", "long double (^b2)(long double *)"]
    if triple.hasPrefix("i386") { blocks.append("long long (^b3)(long long, unsigned long long)") }
    // `T (^bN)(A, B) = ^T (A a0, B a1) { return 0; }`, written out per block.
    var literals = ""
    for declaration in blocks {
      let open = declaration.range(of: " (^")!
      let close = declaration.range(of: ")(")!
      let result = String(declaration[..<open.lowerBound])
      let parameters = declaration[close.upperBound...].dropLast().split(separator: ",").enumerated()
        .map { "\($1.trimmingCharacters(in: .whitespaces)) a\($0)" }
      literals += "\(declaration) = ^\(result) (\(parameters.joined(separator: ", "))) { return 0; };\n"
    }
    let (directory, object) = try Toolchain.compileC(
      literals, fileName: "model.c", arguments: ["--target=\(triple)", "-fblocks", "-w", "-c"], output: "model.o")
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = try #require(try BinaryScanner.scan(fileAt: object.path).first)
    #expect(report.dataModel.name == model)
    #expect(report.blocks.count == blocks.count)
    var check = literals + "void check(void) {\n"
    for block in report.blocks {
      let declaration = try #require(block.declaration)
      // The literal's invoke function is named after the variable: `b0_block_invoke`.
      let invoke = try #require(block.literals.first?.invoke.symbol)
      let variable = try #require(invoke.split(separator: "_").first { $0.hasPrefix("b") })
      check += "  " + declaration.replacingOccurrences(of: "(^)", with: "(^c_\(variable))") + " = \(variable);\n"
    }
    check += "}\n"
    let (checkDirectory, _) = try Toolchain.compileC(
      check, fileName: "check.c", arguments: ["--target=\(triple)", "-fblocks", "-fsyntax-only"], output: "unused")
    try? FileManager.default.removeItem(at: checkDirectory)
  }

  @Test func cBlocksHaveNoExtendedLayout() throws {
    let object = try Self.build("no-extended-layout", compile: ["-O0"], link: nil)
    defer { try? FileManager.default.removeItem(at: object.directory) }
    let report = try #require(try BinaryScanner.scan(fileAt: object.binary.path).first)
    #expect(report.blocks.count == object.truth.count)
    #expect(report.blocks.allSatisfy { $0.extendedLayout == nil && $0.signature != nil })
  }

  /// ELF64 little-endian header fields and section headers, for patching test files.
  struct ELF64 {
    var bytes: [UInt8]

    func read(_ offset: Int, _ size: Int) -> UInt64 {
      (0..<size).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }

    mutating func write(_ offset: Int, _ size: Int, _ value: UInt64) {
      for index in 0..<size { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
    }

    var sectionHeaderOffset: Int { Int(read(0x28, 8)) }
    var sectionCount: Int { Int(read(0x3C, 2)) }
    func sectionHeader(_ index: Int) -> Int { sectionHeaderOffset + index * 64 }
  }

  /// An absolute relocation against symbol 0 is the addend itself, like a relative one in a
  /// file loaded at 0: turning every `R_X86_64_RELATIVE` of a shared library into
  /// `R_X86_64_64` against symbol 0 changes nothing the scan reports.
  @Test func absoluteRelocationsAgainstSymbolZeroAreTheirAddend() throws {
    let library = try Self.build("symbol-zero", compile: ["-O2", "-fPIC"], link: ["-shared"])
    defer { try? FileManager.default.removeItem(at: library.directory) }
    var elf = ELF64(bytes: try [UInt8](Data(contentsOf: library.binary)))
    try #require(elf.read(0x12, 2) == 62, "the relocation numbers below are x86-64's (EM_X86_64)")
    var patched = 0
    for index in 0..<elf.sectionCount {
      let header = elf.sectionHeader(index)
      // SHT_RELA with SHF_ALLOC: the dynamic relocations.
      guard elf.read(header + 4, 4) == 4, elf.read(header + 8, 8) & 2 != 0 else { continue }
      let start = Int(elf.read(header + 0x18, 8))
      let size = Int(elf.read(header + 0x20, 8))
      for entry in stride(from: start, to: start + size, by: 24) where elf.read(entry + 8, 8) == 8 {
        elf.write(entry + 8, 8, 1)  // R_X86_64_64, symbol 0
        patched += 1
      }
    }
    #expect(patched > 0)
    let original = try #require(try BinaryScanner.scan(fileAt: library.binary.path).first)
    let result = try elf.bytes.withUnsafeBytes { raw in try BinaryScanner.scan(bytes: raw, name: "patched.so") }
    let report = try #require(result.first)
    #expect(original.blocks.count == library.truth.count)
    #expect(Self.summary(report) == Self.summary(original))
    #expect(report.warnings.map(\.description) == original.warnings.map(\.description))
  }

  /// With more sections than a 16-bit index holds, `e_shstrndx` is `SHN_XINDEX` (0xffff) and the
  /// section-name table's index sits in section 0's `sh_link`; the names must still be found.
  @Test func sectionNameTableIndexInSectionZero() throws {
    let object = try Self.build("xindex", compile: ["-O0"], link: nil)
    defer { try? FileManager.default.removeItem(at: object.directory) }
    var elf = ELF64(bytes: try [UInt8](Data(contentsOf: object.binary)))
    let index = elf.read(0x3E, 2)
    elf.write(0x3E, 2, 0xFFFF)
    elf.write(elf.sectionHeader(0) + 0x28, 4, index)
    let original = try #require(try BinaryScanner.scan(fileAt: object.binary.path).first)
    let report = try #require(
      try elf.bytes.withUnsafeBytes { raw in try BinaryScanner.scan(bytes: raw, name: "xindex.o") }.first)
    #expect(Self.summary(report) == Self.summary(original))
    #expect(report.blocks.map(\.descriptor.section) == original.blocks.map(\.descriptor.section))
    #expect(report.blocks.allSatisfy { !$0.descriptor.section.isEmpty })
  }
}
