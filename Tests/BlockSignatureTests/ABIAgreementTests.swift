import BlockSignature
import Foundation
import TestSupport
import Testing

/// The `abi` level against clang's own calling convention: clang compiles, for each parameter
/// type below, a block taking it (whose signature it encodes) and a function taking it (whose
/// lowering its IR shows). For every pair that clang passes in registers on a target, the
/// checker must call the pair compatible exactly when clang puts both in the same registers
/// (`i64, i64` and `[2 x i64]` are not `[2 x double]`) and they take as many bytes.
@Suite struct ABIAgreementTests {
  /// Scalars and aggregates of up to 16 bytes, where the targets' classification rules differ:
  /// arrays inside records, mixed float and double, homogeneous floating-point aggregates,
  /// unions, `_Complex` members, records of 2, 3, 8, 12 and 16 bytes.
  static let parameterTypes: [(name: String, declaration: String?, spelling: String)] = [
    ("I", nil, "int"), ("U", nil, "unsigned"), ("Q", nil, "long long"), ("D", nil, "double"),
    ("F", nil, "float"),
    record("C16", "struct C16 { char c[16]; }"), record("QQ", "struct QQ { long long a, b; }"),
    record("I4", "struct I4 { int a, b, c, d; }"), record("FD", "struct FD { float f; double d; }"),
    record("DD", "struct DD { double a, b; }"), record("II", "struct II { int a, b; }"),
    record("FF", "struct FF { float a, b; }"), record("F4", "struct F4 { float a, b, c, d; }"),
    record("DQ", "struct DQ { double a; long long b; }"), record("CSI", "struct CSI { char a; short b; int c; }"),
    record("FI", "struct FI { float a; int b; }"), record("F3", "struct F3 { float a[3]; }"),
    record("Q3", "struct Q3 { long long a, b, c; }"), record("D4", "struct D4 { double a[4]; }"),
    record("S1", "struct S1 { short a; }"), record("C3", "struct C3 { char a[3]; }"),
    record("UFI", "union UFI { float f; int i; }"), record("UDF", "union UDF { double d; float f; }"),
    record("C1", "struct C1 { char a; }"), record("DF", "struct DF { double a; float b; }"),
    record("IFF", "struct IFF { int a; float b, c; }"), record("JF", "struct JF { _Complex float a; }"),
    record("JD", "struct JD { _Complex double a; }"), record("FQ", "struct FQ { float a; long long b; }"),
  ]

  static func record(_ name: String, _ declaration: String) -> (String, String?, String) {
    (name, declaration, String(declaration.prefix { $0 != "{" }.dropLast()))
  }

  static let targets: [(triple: String, model: DataModel)] = [
    ("x86_64-linux-gnu", .x86_64SysV), ("aarch64-linux-gnu", .aarch64Linux), ("x86_64-windows-msvc", .windowsX64),
  ]

  static var source: String {
    var text = ""
    for type in parameterTypes {
      if let declaration = type.declaration { text += declaration + ";\n" }
      text += "void (^b_\(type.name))(\(type.spelling)) = ^(\(type.spelling) x) { };\n"
      text += "void f_\(type.name)(\(type.spelling) x) { }\n"
    }
    return text
  }

  /// The parameters of `define … @name(…)` without names and attributes that do not change
  /// the registers: `signext`, `noundef`, `alignstack(8)`. Integer widths are one class (the
  /// sizes are compared apart); on x86-64 so are `float`, `double` and `<2 x float>`: each is
  /// one SSE eightbyte.
  static func registers(ofFunction name: String, in ir: String, triple: String) -> String? {
    guard let line = ir.split(separator: "\n").first(where: { $0.hasPrefix("define") && $0.contains("@\(name)(") }),
      let open = line.range(of: "@\(name)("), let close = line.range(of: ") #", options: .backwards)
    else { return nil }
    var parameters = String(line[open.upperBound..<close.lowerBound])
    for pattern in [#"%\d+"#, #"\b(noundef|signext|zeroext|alignstack\(\d+\)|align \d+)\b"#] {
      parameters = parameters.replacingOccurrences(of: pattern, with: "", options: .regularExpression)
    }
    parameters = parameters.replacingOccurrences(
      of: #"(?<![x\w] )\bi(8|16|32|64)\b"#, with: "INT", options: .regularExpression)
    if triple.hasPrefix("x86_64-linux") {
      parameters = parameters.replacingOccurrences(
        of: "<2 x float>|double|float", with: "SSE", options: .regularExpression)
    }
    return parameters.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
      .trimmingCharacters(in: .whitespaces)
  }

  /// Blocks returning and taking each type, and functions returning it, compiled for `triple`:
  /// each type's block signatures and how clang returns it (its IR return type, or `sret` for a
  /// hidden pointer).
  static func returnsAndParameters(
    _ types: [(name: String, declaration: String?, spelling: String)], triple: String
  ) throws -> [(name: String, returning: String, taking: String, returned: String)] {
    var source = ""
    for type in types {
      if let declaration = type.declaration { source += declaration + ";\n" }
      source +=
        "\(type.spelling) (^r_\(type.name))(void) = ^\(type.spelling) (void) { \(type.spelling) v = {0}; return v; };\n"
      source += "void (^p_\(type.name))(\(type.spelling)) = ^(\(type.spelling) x) { };\n"
      source += "\(type.spelling) f_\(type.name)(void) { \(type.spelling) v = {0}; return v; }\n"
    }
    let (directory, product) = try Toolchain.compileC(
      source, fileName: "returns.c", arguments: ["--target=\(triple)", "-fblocks", "-w", "-S", "-emit-llvm"],
      output: "returns.ll")
    defer { try? FileManager.default.removeItem(at: directory) }
    let ir = try String(contentsOf: product, encoding: .utf8)
    let generated = GeneratedIR(ir)
    return try types.map { type in
      let line = try #require(
        ir.split(separator: "\n").first { $0.hasPrefix("define") && $0.contains("@f_\(type.name)(") })
      // `define dso_local <type> @f_name(…`, or `void` with an `sret` parameter.
      let irType = line[line.range(of: "dso_local ")!.upperBound..<line.range(of: " @f_")!.lowerBound]
      let returned = line.contains("sret") ? "sret" : String(irType)
      return (
        type.name, try #require(generated.signature(ofVariable: "r_\(type.name)")),
        try #require(generated.signature(ofVariable: "p_\(type.name)")), returned
      )
    }
  }

  /// Every pair of return types is compatible exactly when clang returns both the same way.
  static func expectReturnsAsClangDoes(
    _ values: [(name: String, returning: String, taking: String, returned: String)], checker: CompatibilityChecker
  ) throws {
    for (index, first) in values.enumerated() {
      for second in values[(index + 1)...] {
        let returns = try checker.check(first.returning, against: second.returning)
        #expect(
          returns.isCompatible == (first.returned == second.returned),
          "return \(first.name) vs \(second.name): \(returns.diagnostics.map(\.description))")
      }
    }
  }

  /// System V's x87 class: a `long double` and an aggregate holding one alone come back on the
  /// x87 stack (clang returns both as `x86_fp80`), one mixed with an `int` through a hidden
  /// pointer (`sret`); as arguments all of them go in memory (class X87 is passed in memory;
  /// clang's `x86_fp80` and `byval` parameters both land on the stack), 16 bytes aligned to 16.
  @Test func x87ValuesOnSystemV() throws {
    let values = try Self.returnsAndParameters(
      [
        ("LD", nil, "long double"), Self.record("S", "struct S { long double x; }"),
        Self.record("T", "struct T { struct S s; }"), Self.record("A", "struct A { long double x[1]; }"),
        Self.record("V", "union V { long double a, b; }"), Self.record("U", "union U { long double d; int i; }"),
      ], triple: "x86_64-linux-gnu")
    let checker = CompatibilityChecker(level: .abi, model: .x86_64SysV)
    try Self.expectReturnsAsClangDoes(values, checker: checker)
    for (index, first) in values.enumerated() {
      for second in values[(index + 1)...] {
        let arguments = try checker.check(first.taking, against: second.taking)
        #expect(
          arguments.isCompatible,
          "argument \(first.name) vs \(second.name): \(arguments.diagnostics.map(\.description))")
      }
    }
    #expect(values.map(\.returned) == ["x86_fp80", "x86_fp80", "x86_fp80", "x86_fp80", "x86_fp80", "sret"])
  }

  /// Windows x64 returns a 16-byte integer (`__int128`) in XMM0 (`<2 x i64>`) but a 16-byte
  /// structure through a hidden pointer, while both go by reference as arguments (clang: `ptr`).
  @Test func sixteenByteReturnsOnWindows() throws {
    let values = try Self.returnsAndParameters(
      [
        ("I", nil, "__int128"), ("U", nil, "unsigned __int128"), Self.record("S", "struct S { __int128 t; }"),
        ("Q", nil, "long long"),
      ], triple: "x86_64-windows-msvc")
    #expect(values.map(\.returned) == ["<2 x i64>", "<2 x i64>", "sret", "i64"])
    let checker = CompatibilityChecker(level: .abi, model: .windowsX64)
    try Self.expectReturnsAsClangDoes(values, checker: checker)
    let arguments = try checker.check(values[0].taking, against: values[2].taking)
    #expect(arguments.isCompatible, "\(arguments.diagnostics.map(\.description))")
  }

  @Test(arguments: targets.map(\.triple))
  func abiLevelAgreesWithClangsLowering(triple: String) throws {
    let model = try #require(Self.targets.first { $0.triple == triple }?.model)
    let (folder, product) = try Toolchain.compileC(
      Self.source, fileName: "abi.c", arguments: ["--target=\(triple)", "-fblocks", "-w", "-S", "-emit-llvm"],
      output: "abi.ll")
    defer { try? FileManager.default.removeItem(at: folder) }
    let ir = try String(contentsOf: product, encoding: .utf8)
    let generated = GeneratedIR(ir)

    var parameters: [(name: String, signature: String, size: Int, registers: String)] = []
    for type in Self.parameterTypes {
      let signature = try #require(generated.signature(ofVariable: "b_\(type.name)"), "\(type.name) on \(triple)")
      let registers = try #require(Self.registers(ofFunction: "f_\(type.name)", in: ir, triple: triple))
      // The size clang gives the parameter: its slot in the block's frame, after the block.
      let frame = try SignatureFrame(parsing: signature, for: model)
      let size = frame.arguments[1].slotSize
      // Passed in memory (a pointer to a copy, or `byval`): not a register comparison.
      if registers.contains("ptr") { continue }
      parameters.append((type.name, signature, size, registers))
    }
    #expect(parameters.count >= 12, "too few types passed in registers on \(triple)")

    let checker = CompatibilityChecker(level: .abi, model: model)
    var comparedCompatible = 0
    var comparedIncompatible = 0
    for (index, first) in parameters.enumerated() {
      for second in parameters[(index + 1)...] {
        let clangAgrees = first.registers == second.registers && first.size == second.size
        let report = try checker.check(first.signature, against: second.signature)
        #expect(
          report.isCompatible == clangAgrees,
          """
          \(triple): \(first.signature) vs \(second.signature): clang passes \(first.registers) (\(first.size) bytes) \
          and \(second.registers) (\(second.size) bytes); the checker says \(report.diagnostics.map(\.description))
          """)
        if clangAgrees { comparedCompatible += 1 } else { comparedIncompatible += 1 }
      }
    }
    // Both answers occur, so the comparison can fail either way.
    #expect(comparedCompatible >= 5 && comparedIncompatible >= 5, "\(triple)")
  }
}
