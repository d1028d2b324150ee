import BlockSignature
import Foundation
import TestSupport
import Testing

/// The `abi` level against clang's own calling convention: clang compiles, for each type below,
/// blocks taking and returning it (whose signatures it encodes) and functions taking and
/// returning it (whose lowering its IR shows). On every target the checker must call two types
/// compatible exactly when clang passes (or returns) both the same way: in the same registers
/// (`i64, i64` and `[2 x i64]` are not `[2 x double]`) or in the same stack bytes, or through a
/// pointer to a copy of the same size and alignment; and they take as many bytes.
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
    // A union whose members are all floating point of one size is a homogeneous aggregate on
    // AArch64 (`[2 x float]`, like `FF`), not an integer like `UFI`.
    record("UF2", "union UF2 { float a; float b[2]; }"),
    // System V merges the classes of a union's members in order, and X87 with SSE is MEMORY for
    // good: `LFI` is passed and returned in memory, where `LIF` (the same members in another
    // order) is `INT, INT` like `QQ`; and a member structure is classified before it is merged,
    // so `LSI`'s `{ float, int }` is INTEGER, which X87 then joins: `INT, INT`.
    record("LFI", "union LFI { long double x; float f; int i[4]; }"),
    record("LIF", "union LIF { long double x; int i[4]; float f; }"),
    record("LSI", "union LSI { long double x; struct { float a; int b; } s; int c[4]; }"),
    // A member record's classes are cleaned up before they are merged: `{ long double x; int i; }`
    // leaves X87UP without X87, which is MEMORY, whatever comes after it.
    record("LIU", "union LIU { union { long double x; int i; } u; int c[4]; }"),
  ]

  static func record(_ name: String, _ declaration: String) -> (String, String?, String) {
    (name, declaration, String(declaration.prefix { $0 != "{" }.dropLast()))
  }

  /// `__int128`, on the targets that have it.
  static func int128Types(_ model: DataModel) -> [(name: String, declaration: String?, spelling: String)] {
    model.hasInt128 ? [("T", nil, "__int128")] : []
  }

  /// Scalars of every kind and records of 1, 2, 4 and 8 bytes, for return values.
  static func scalarTypes(_ model: DataModel) -> [(name: String, declaration: String?, spelling: String)] {
    [
      ("LD", nil, "long double"), ("B", nil, "_Bool"), ("C", nil, "char"), ("S", nil, "short"), ("L", nil, "long"),
      ("P", nil, "void *"), ("Jf", nil, "_Complex float"), ("Jd", nil, "_Complex double"),
      record("C2", "struct C2 { char a[2]; }"), record("C4", "struct C4 { char a[4]; }"),
      record("C8", "struct C8 { char a[8]; }"),
    ] + int128Types(model)
      + (model.hasInt128
        ? [("UT", nil, "unsigned __int128"), record("S128", "struct S128 { __int128 t; }")] : [])
  }

  /// Records of more than 16 bytes, which no target passes in general-purpose registers: sizes
  /// 20, 24 and 32, each with alignments 1, 4, 8 (and 16 for `long double` on Linux).
  static let memoryTypes: [(name: String, declaration: String?, spelling: String)] = [
    record("C24", "struct C24 { char c[24]; }"), record("I6", "struct I6 { int a[6]; }"),
    record("QI4", "struct QI4 { long long a; int b[4]; }"), record("DQ2", "struct DQ2 { double a; long long b, c; }"),
    record("P3", "struct P3 { void *a, *b, *c; }"), record("I5", "struct I5 { int a[5]; }"),
    record("F5", "struct F5 { float a[5]; }"), record("C32", "struct C32 { char c[32]; }"),
    record("Q4", "struct Q4 { long long a[4]; }"), record("LDI", "struct LDI { long double x; int i; }"),
  ]

  static let targets: [(triple: String, model: DataModel)] = [
    ("x86_64-linux-gnu", .x86_64SysV), ("aarch64-linux-gnu", .aarch64Linux), ("arm64-apple-macos", .arm64Apple),
    ("i386-linux-gnu", .i386Linux), ("x86_64-windows-msvc", .windowsX64),
  ]

  /// The targets whose arguments go in registers (on i386 every argument is on the stack).
  static let registerTargets = targets.filter { $0.model != .i386Linux }

  /// `_Atomic` values. At the top level an atomic scalar is passed and returned as the scalar on
  /// every target (clang: `float` and `double` in floating-point registers on AArch64, Windows
  /// and i386, not integers). System V classifies no atomic type inside a record, nor an atomic
  /// `_Complex` at the top level: MEMORY (clang: `byval` and `sret` for `struct { _Atomic(int) a; }`
  /// as for `_Atomic(_Complex float)`). Windows x64 passes and returns `_Atomic(_Complex T)` as
  /// two `T`s in XMM registers (`float %0, float %1`), not as the integer `_Complex float` is.
  @Test(arguments: targets.map(\.triple))
  func atomicValuesAgreeWithClang(triple: String) throws {
    let model = try #require(Self.targets.first { $0.triple == triple }?.model)
    let values = try Self.returnsAndParameters(
      [
        ("AF", nil, "_Atomic(float)"), ("F", nil, "float"), ("AD", nil, "_Atomic(double)"), ("D", nil, "double"),
        ("AI", nil, "_Atomic(int)"), ("I", nil, "int"), ("AQ", nil, "_Atomic(long long)"), ("Q", nil, "long long"),
        ("ALD", nil, "_Atomic(long double)"), ("LD", nil, "long double"), ("AJF", nil, "_Atomic(_Complex float)"),
        ("JF", nil, "_Complex float"), ("AJD", nil, "_Atomic(_Complex double)"), ("JD", nil, "_Complex double"),
        Self.record("SAD", "struct SAD { _Atomic(double) d; }"), Self.record("SD", "struct SD { double d; }"),
        Self.record("SAF", "struct SAF { float f; _Atomic(float) g; }"),
        Self.record("SFF", "struct SFF { float f, g; }"),
        Self.record("SAI", "struct SAI { _Atomic(int) a; }"), Self.record("SI", "struct SI { int a; }"),
        Self.record("SFD", "struct SFD { float f[4]; }"), Self.record("SQQ", "struct SQQ { long long a, b; }"),
      ], triple: triple)
    let checker = CompatibilityChecker(level: .abi, model: model)
    try Self.expectReturnsAsClangDoes(values, checker: checker)
    try Self.expectArgumentsAsClangDoes(values, checker: checker)
  }

  /// Types whose encoding hides their layout. A NeXT bitfield does not record its declared type
  /// (`{BB=b1}` is one byte, not the 4 an `int` unit gives; `{BC=b3b5}` a `char`'s), an
  /// `_Atomic` structure is written without fields, a space may be `_Float16` or `__float128`
  /// (on x86-64 System V and i386, the targets that have one):
  /// the checker answers "not compared" where it cannot know, and sizes the frame shows to
  /// differ are an answer (`{BB=b1}` in 1 byte is not an `int`). `packed` and `aligned` leave the
  /// encoding of the record without them (its twin, `…N`): as an argument whose slot shows another
  /// size the layout is hidden (`{A16={?=s}}` in 16 bytes is not a `short`); where the slot
  /// agrees (`P8`, as big as its twin) and as a return value, the checker is told the twin and
  /// answers as clang does for it. clang returns a homogeneous aggregate on AArch64 as its LLVM
  /// type, which for a union with an empty member aligned above its floats is that member and
  /// bytes, one general-purpose register each (`UF`, `SU` in W0–W7): not compared either.
  /// Identical encodings are one type as far as anyone can tell:
  /// `_Float16` and `__float128` returned are both ` ` (as arguments their slots differ).
  @Test(arguments: targets.map(\.triple))
  func hiddenLayoutsAreNotGuessed(triple: String) throws {
    let model = try #require(Self.targets.first { $0.triple == triple }?.model)
    let twins: [String: String] = ["A16": "A16N", "P5": "P5N", "P8": "P8N"]
    let hidden: Set<String> = ["BB", "BC", "BI", "BQ", "AR3", "F128"]
    // A space may be a `__float128` where clang has one; AArch64 returns a homogeneous union with
    // an empty member aligned above its floats byte by byte.
    let hiddenReturns: Set<String> =
      triple.hasPrefix("x86_64-linux") || triple.hasPrefix("i386")
      ? ["H", "SH"] : triple.hasPrefix("aarch64") || triple.hasPrefix("arm64") ? ["UF", "SU"] : []
    var types: [(name: String, declaration: String?, spelling: String)] = [
      Self.record("A16", "struct A16 { short s; } __attribute__((aligned(16)))"),
      Self.record("P5", "struct P5 { char c; int i; } __attribute__((packed))"),
      Self.record("P8", "struct P8 { char a; short b; char c; char d[2]; } __attribute__((packed, aligned(4)))"),
      Self.record("C5", "struct C5 { char c[5]; }"), Self.record("C1", "struct C1 { char c; }"),
      Self.record("QQ", "struct QQ { long long a, b; }"), ("S", nil, "short"), ("I", nil, "int"),
      ("Q", nil, "long long"), Self.record("BB", "struct BB { _Bool b : 1; }"),
      Self.record("BC", "struct BC { char a : 3; char b : 5; }"),
      Self.record("BI", "struct BI { int a : 3; int b : 5; }"),
      Self.record("BQ", "struct BQ { long long a : 5; char c; }"), ("AR3", nil, "_Atomic(struct AR3)"),
      ("H", nil, "_Float16"), Self.record("SH", "struct SH { _Float16 h; }"),
      Self.record("UF", "union UF { float f[2]; struct { long long z[0]; } e; }"),
      Self.record("SU", "struct SU { union UF u; }"), Self.record("FF", "struct FF { float a, b; }"),
    ]
    if triple.hasPrefix("x86_64-linux") { types.append(("F128", nil, "__float128")) }
    let natural = [
      Self.record("A16N", "struct A16N { short s; }"), Self.record("P5N", "struct P5N { char c; int i; }"),
      Self.record("P8N", "struct P8N { char a; short b; char c; char d[2]; }"),
    ]
    let lowered = try Self.returnsAndParameters(
      types + natural, triple: triple, prelude: "struct AR3 { char a, b, c; };\n")
    let values = Array(lowered[..<types.count])
    let byName = Dictionary(uniqueKeysWithValues: lowered.map { ($0.name, $0) })
    func told(_ value: Lowered, asArgument: Bool) -> Told {
      if hidden.contains(value.name) || (!asArgument && hiddenReturns.contains(value.name)) {
        return Told(value: value, isHidden: true)
      }
      guard let twin = twins[value.name].flatMap({ byName[$0] }) else { return Told(value: value, isHidden: false) }
      if asArgument && twin.size != value.size { return Told(value: value, isHidden: true) }
      return Told(value: twin, isHidden: false)
    }
    let checker = CompatibilityChecker(level: .abi, model: model)
    var answers: [Answer: Int] = [:]
    for (index, first) in values.enumerated() {
      for second in values[(index + 1)...] {
        for asArgument in [true, false] {
          let report =
            asArgument
            ? try checker.check(first.taking, against: second.taking)
            : try checker.check(first.returning, against: second.returning)
          if !asArgument, first.returning == second.returning {
            #expect(report.diagnostics.isEmpty, "\(triple): return \(first.name) vs \(second.name)")
            continue
          }
          let (answer, _) = Self.expectAnswer(
            report, told(first, asArgument: asArgument), told(second, asArgument: asArgument),
            asArgument: asArgument,
            context: "\(triple): \(asArgument ? "argument" : "return") \(first.name) vs \(second.name)")
          answers[answer, default: 0] += 1
        }
      }
    }
    // Every answer occurs: the frame tells some hidden layouts apart and not others.
    #expect(answers.count == 3, "\(triple): \(answers)")
  }

  /// System V's x87 class: a `long double` and an aggregate holding one alone (with members of no
  /// bytes, `int z[0]`, beside it) come back on the x87 stack (clang returns both as `x86_fp80`),
  /// one mixed with an `int` through a hidden
  /// pointer (`sret`); as arguments all of them go in memory (class X87 is passed in memory;
  /// clang's `x86_fp80` and `byval` parameters both land on the stack), 16 bytes aligned to 16.
  @Test func x87ValuesOnSystemV() throws {
    let values = try Self.returnsAndParameters(
      [
        ("LD", nil, "long double"), Self.record("S", "struct S { long double x; }"),
        Self.record("T", "struct T { struct S s; }"), Self.record("A", "struct A { long double x[1]; }"),
        Self.record("V", "union V { long double a, b; }"), Self.record("U", "union U { long double d; int i; }"),
        Self.record("LZ", "union LZ { long double x; int z[0]; }"),
        Self.record("SZ", "struct SZ { long double x; struct { int z[0]; } e; }"),
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
    #expect(
      values.map(\.returned) == [
        "x86_fp80", "x86_fp80", "x86_fp80", "x86_fp80", "x86_fp80", "sret", "x86_fp80", "x86_fp80",
      ])
  }

  /// A `_Complex long double` is returned on the x87 stack on x86-64 System V (class
  /// COMPLEX_X87: clang returns `{ x86_fp80, x86_fp80 }`), where a structure holding one, of the
  /// same 32 bytes, comes back through a hidden pointer; as arguments both are 32 bytes on the
  /// stack aligned to 16 (`byval … align 16`).
  @Test func complexLongDoubleOnSystemV() throws {
    let values = try Self.returnsAndParameters(
      [
        ("JLD", nil, "_Complex long double"), Self.record("SJ", "struct SJ { _Complex long double z; }"),
        Self.record("S2", "struct S2 { long double a, b; }"), Self.record("D4", "struct D4 { double a[4]; }"),
      ], triple: "x86_64-linux-gnu")
    #expect(values.map(\.returned) == ["{ x86_fp80, x86_fp80 }", "sret", "sret", "sret"])
    let checker = CompatibilityChecker(level: .abi, model: .x86_64SysV)
    try Self.expectReturnsAsClangDoes(values, checker: checker)
    try Self.expectArgumentsAsClangDoes(values, checker: checker)
  }

  /// AAPCS64 homogeneous aggregates as clang finds them: an array of no elements anywhere in a
  /// member makes a record not homogeneous (`struct { float a; float b[0]; }` is an integer,
  /// `i64`), while a member that is an empty record (its fields all arrays of no elements, in an
  /// array of any length) is left out (`struct { struct { int z[0]; } e; float a, b; }` is
  /// `[2 x float]`), though its alignment counts: a homogeneous aggregate has no padding
  /// (`struct { float f; struct { double z[0]; } e; }`, 8 bytes, is an integer, where
  /// `struct { float f, g; struct { double z[0]; } e; }` is `[2 x float]`).
  @Test(arguments: targets.map(\.triple))
  func zeroLengthArraysInHomogeneousAggregates(triple: String) throws {
    let model = try #require(Self.targets.first { $0.triple == triple }?.model)
    let values = try Self.returnsAndParameters(
      [
        Self.record("Z1", "struct Z1 { float a; float b[0]; }"), Self.record("F1", "struct F1 { float a; }"),
        Self.record("I1", "struct I1 { int a; }"),
        Self.record("Z3", "struct Z3 { struct { int z[0]; } e; float a, b; }"),
        Self.record("FF", "struct FF { float a, b; }"), Self.record("Q1", "struct Q1 { long long a; }"),
        Self.record("Z5", "union Z5 { int z[0]; double d; }"), Self.record("D1", "struct D1 { double d; }"),
        Self.record("Z7", "struct Z7 { float a[2][0]; float b; }"),
        Self.record("Z8", "struct Z8 { float a; struct { float x[0]; } e[2]; }"),
        Self.record("Z9", "struct Z9 { double a; struct { char c[0]; } e; double b; }"),
        Self.record("DD", "struct DD { double a, b; }"), Self.record("QQ", "struct QQ { long long a, b; }"),
        Self.record("FP", "struct FP { float f; struct { double z[0]; } e; }"),
        Self.record("FD", "struct FD { float f, g; struct { double z[0]; } e; }"),
      ], triple: triple)
    let checker = CompatibilityChecker(level: .abi, model: model)
    try Self.expectReturnsAsClangDoes(values, checker: checker)
    try Self.expectArgumentsAsClangDoes(values, checker: checker)
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

  /// Arguments in registers on the targets that have them: two are compatible exactly when
  /// clang passes both in the same registers (after ``registers(ofFunction:in:triple:)``) and
  /// they take as many bytes. `__int128` is one of them where the target has it: on AArch64 it
  /// is an `i128`, which AArch64 Linux starts at an even-numbered register and both AArch64
  /// targets put in a 16-byte-aligned stack slot, where a 16-byte structure aligned to 8 is a
  /// `[2 x i64]` (next two registers, 8-byte-aligned slot); on x86-64 both are `i64, i64`.
  @Test(arguments: registerTargets.map(\.triple))
  func abiLevelAgreesWithClangsLowering(triple: String) throws {
    let model = try #require(Self.targets.first { $0.triple == triple }?.model)
    let types = Self.parameterTypes + Self.int128Types(model)
    let (folder, product) = try Toolchain.compileC(
      Self.source(types), fileName: "abi.c", arguments: ["--target=\(triple)", "-fblocks", "-w", "-S", "-emit-llvm"],
      output: "abi.ll")
    defer { try? FileManager.default.removeItem(at: folder) }
    let ir = try String(contentsOf: product, encoding: .utf8)
    let generated = GeneratedIR(ir)

    var parameters: [(name: String, signature: String, size: Int, registers: String)] = []
    for type in types {
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

  /// Return values on every target: two return types are compatible exactly when clang returns
  /// both in the same registers (IR aggregates flattened, AArch64's `%struct.DD` and
  /// `{ double, double }` both `D, D`; an `i128` and `[2 x i64]` both two general-purpose
  /// registers) or both through a hidden pointer (`sret`) to a buffer of the same alignment, and
  /// they have the same size (integers of different widths in one register are not compatible,
  /// as the level's rule has it).
  @Test(arguments: targets.map(\.triple))
  func returnValuesAgreeWithClang(triple: String) throws {
    let (model, values) = try Self.everyType(on: triple)
    let (compatible, incompatible) = try Self.expectReturnsAsClangDoes(
      values, checker: CompatibilityChecker(level: .abi, model: model))
    // Both answers occur, so the comparison can fail either way.
    #expect(compatible >= 5 && incompatible >= 5, "\(triple): \(compatible) and \(incompatible)")
  }

  /// Arguments that clang passes in memory: on x86-64 System V a `byval` copy on the stack at the
  /// `byval`'s alignment (8 at least; `x86_fp80` at 16), on AArch64 and Windows x64 a pointer to
  /// the caller's copy (`ptr`, the copy an `alloca` aligned as its type), on i386 every argument
  /// on the stack at a 4-byte-aligned offset (`byval … align 4`; scalars and the fields clang
  /// expands into scalars in 4-byte slots). Two such arguments are compatible exactly when they
  /// go the same way (the same stack bytes, or a copy of the same alignment) and have the same
  /// size; one in memory and one in registers never are.
  @Test(arguments: targets.map(\.triple))
  func argumentsInMemoryAgreeWithClang(triple: String) throws {
    let (model, values) = try Self.everyType(on: triple)
    #expect(values.filter { $0.passedInMemoryAs != nil }.count >= 8, "too few types passed in memory on \(triple)")
    let checker = CompatibilityChecker(level: .abi, model: model)
    var comparedCompatible = 0
    var comparedIncompatible = 0
    for (index, first) in values.enumerated() {
      for second in values[(index + 1)...] where first.passedInMemoryAs != nil || second.passedInMemoryAs != nil {
        let clangAgrees = first.passedInMemoryAs == second.passedInMemoryAs && first.size == second.size
        let report = try checker.check(first.taking, against: second.taking)
        #expect(
          report.isCompatible == clangAgrees,
          """
          \(triple): argument \(first.name) vs \(second.name): clang passes \(first.passedInMemoryAs ?? "registers") \
          (\(first.size) bytes) and \(second.passedInMemoryAs ?? "registers") (\(second.size) bytes); \
          the checker says \(report.diagnostics.map(\.description))
          """)
        if clangAgrees { comparedCompatible += 1 } else { comparedIncompatible += 1 }
      }
    }
    // Both answers occur, so the comparison can fail either way.
    #expect(comparedCompatible >= 5 && comparedIncompatible >= 5, "\(triple)")
  }
}
