import BlockSignature
import Foundation
import TestSupport
import Testing

/// The record rules where the targets part ways, against clang on each target: zero-width
/// bitfields (they raise the aggregate's alignment on AAPCS64 Linux; Microsoft layout ignores
/// one that does not follow a bitfield), bitfields in unions (Microsoft layout ignores their
/// alignment) and records without bytes (4 bytes in Microsoft's C layout, 0 elsewhere).
@Suite struct RecordRulesTests {
  /// Declarations whose bitfields are all `int` (or `long long` above 32 bits): NeXT encodings,
  /// which drop a bitfield's type, assume exactly those units, so clang's layout must be met.
  static let assumedUnitsHold: [String] = [
    "struct A { char a; int : 0; char b; }",
    "struct B { int : 0; char b; }",
    "struct C { char a; int : 0; }",
    "struct F { int a : 4; int : 0; char b; }",
    "struct F3 { int a : 4; int : 0; int : 0; char b; }",
    "struct F4 { char a; int b : 4; int : 0; char c; }",
    "struct H { int : 0; }",
    "struct S7 { int a : 4; char c; int : 0; char d; }",
    "struct W { long long a : 40; int b : 4; }",
    "struct V { int a : 4; long long b : 40; }",
    // i386: `long long` is 8 bytes aligned to 4, so the field at bit 48 stays (16 + 48 ≤ 64).
    "struct X { struct { int a : 16; short s; } in; int b : 7; _Bool c; long long d : 48; }",
    "union J { char a; int : 0; }",
    "union J2 { int a : 4; int : 0; }",
    "union U1 { int a : 4; }",
    "union U2 { int a : 4; char c; }",
    "struct E { }",
    "union UE { }",
    "struct Z1 { long long a[0]; }",
    "struct N { struct Z1 x; }",
    "struct P { struct E e; int i; }",
    "struct Q { struct E e[2]; char c; }",
  ]

  /// Declarations whose bitfield types a NeXT encoding loses; the GNU encoding keeps them.
  static let typedBitfields: [String] = [
    "struct Y { char a; long long : 0; char b; }",
    "struct D { char a; char : 0; char b; }",
    "struct G { char a; short : 0; char b; }",
    "struct I { char a; int : 0; long long : 0; char b; }",
    "union K { int : 0; char a; long long : 0; }",
    "struct U { char a : 3; int b : 4; }",
    "struct T2 { char a; int b : 4; int : 0; char c; }",
  ]

  /// `struct A` for `struct A { … }`.
  static func typeName(_ declaration: String) -> (spelling: String, identifier: String) {
    let words = declaration.split(separator: " ")
    return ("\(words[0]) \(words[1])", String(words[1]))
  }

  /// The declarations and clang's `sizeof`/`_Alignof` of each as constants.
  static func source(_ declarations: [String]) -> String {
    var text = declarations.map { $0 + ";\n" }.joined()
    for declaration in declarations {
      let (spelling, identifier) = typeName(declaration)
      text += "const unsigned long long sz_\(identifier) = sizeof(\(spelling));\n"
      text += "const unsigned long long al_\(identifier) = _Alignof(\(spelling));\n"
    }
    return text
  }

  static func compile(_ source: String, named name: String, arguments: [String]) throws -> GeneratedIR {
    let folder = try Toolchain.temporaryDirectory("blocksig-records")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent(name)
    try source.write(to: file, atomically: true, encoding: .utf8)
    let output = try Toolchain.runClang(arguments + ["-w", "-S", "-emit-llvm", "-o", "-", file.path])
    return GeneratedIR(output.stdout)
  }

  /// Blocks taking each record (NeXT encodings) on every target: each type's layout is clang's,
  /// the offsets clang wrote agree with our slots, and the single-pass scanners agree.
  @Test(arguments: DifferentialLayoutTests.targets.map(\.triple))
  func nextEncodingsMatchClang(triple: String) throws {
    let model = try #require(DifferentialLayoutTests.targets.first { $0.triple == triple }?.model)
    let parameters = Self.assumedUnitsHold.enumerated().map { "\(Self.typeName($1).spelling) p\($0)" }
    let source = Self.source(Self.assumedUnitsHold) + "void *b0 = ^(\(parameters.joined(separator: ", "))) {};\n"
    let ir = try Self.compile(source, named: "records.c", arguments: ["--target=\(triple)", "-fblocks"])
    let text = try #require(ir.signature(ofVariable: "b0"), "\(triple)")
    let signature = try SignatureEncoding(parsing: text)
    let layout = try signature.layout(for: model)
    #expect(layout.offsetsMatch, "\(text): \(layout.notes) \(triple)")
    #expect(expectFrameAgreement(Array(text.utf8), model: model), "\(triple)")
    for (declaration, argument) in zip(Self.assumedUnitsHold, signature.arguments.dropFirst()) {
      let identifier = Self.typeName(declaration).identifier
      let typeLayout = try argument.type.layout(for: model)
      #expect(typeLayout.size == ir.constants["sz_\(identifier)"], "\(declaration) as \(argument.type) on \(triple)")
      #expect(
        typeLayout.alignment == ir.constants["al_\(identifier)"], "\(declaration) as \(argument.type) on \(triple)")
    }
  }

  /// `@encode` for the GNUstep runtime, which writes each bitfield's offset and type: the layout
  /// is clang's and claims to be exact (Microsoft layout always says it applied its rules).
  @Test(arguments: [
    "x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu", "i386-unknown-linux-gnu", "x86_64-pc-windows-msvc",
  ])
  func gnuEncodingsMatchClang(triple: String) throws {
    let model = try #require(DifferentialLayoutTests.targets.first { $0.triple == triple }?.model)
    let declarations = Self.assumedUnitsHold + Self.typedBitfields
    var source = Self.source(declarations)
    for declaration in declarations {
      let (spelling, identifier) = Self.typeName(declaration)
      source += "const char *e_\(identifier) = @encode(\(spelling));\n"
    }
    let ir = try Self.compile(
      source, named: "records.m",
      arguments: ["--target=\(triple)", "-x", "objective-c", "-fobjc-runtime=gnustep-2.0"])
    for declaration in declarations {
      let identifier = Self.typeName(declaration).identifier
      let encoding = try #require(ir.string(ofVariable: "e_\(identifier)"), "\(declaration) on \(triple)")
      let typeLayout = try TypeEncoding(parsing: encoding).layout(for: model)
      #expect(typeLayout.size == ir.constants["sz_\(identifier)"], "\(declaration) as \(encoding) on \(triple)")
      #expect(typeLayout.alignment == ir.constants["al_\(identifier)"], "\(declaration) as \(encoding) on \(triple)")
      let allowed: LayoutCaveats = model.usesMicrosoftBitfields ? .microsoftBitfields : []
      #expect(typeLayout.caveats.subtracting(allowed).isEmpty, "\(encoding) on \(triple): \(typeLayout.caveats)")
    }
  }

  /// The rule that zero-width bitfields raise alignment is the model's, not the encoding's.
  /// (5 and 8 bytes: clang's sizes of `struct A` above on x86_64 and aarch64 Linux.)
  @Test func zeroWidthRuleIsAModelFact() throws {
    let type = try TypeEncoding(parsing: "{A=cb32i0c}")
    #expect(try type.layout(for: .x86_64SysV).size == 5)
    #expect(try type.layout(for: .aarch64Linux).size == 8)
    var custom = DataModel.x86_64SysV
    custom.zeroWidthBitfieldRaisesAlignment = true
    #expect(try type.layout(for: custom).alignment == 4)
    #expect(DataModel.aarch64Linux.zeroWidthBitfieldRaisesAlignment)
    #expect(!DataModel.arm64Apple.zeroWidthBitfieldRaisesAlignment)
  }
}

extension GeneratedIR {
  /// `@name = global ptr @.str` → the C string it points to.
  func string(ofVariable variable: String) -> String? {
    guard let name = lines[variable].flatMap({ Self.lastSymbol(in: $0) }), let line = lines[name],
      let open = line.range(of: "c\""), let close = line.range(of: "\\00\"", range: open.upperBound..<line.endIndex)
    else { return nil }
    return String(line[open.upperBound..<close.lowerBound])
  }
}
