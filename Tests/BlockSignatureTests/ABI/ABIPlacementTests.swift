import BlockSignature
import Foundation
import TestSupport
import Testing

/// Argument placement against clang's own code. For every target clang compiles (`-O2 -S`)
/// functions and blocks such as `long f(long a1, …, long a7, T x, long m) { return m; }`, and the
/// assembly shows where each reads its last argument `m` from (`movq 40(%rsp), %rax`, `ldr x0,
/// [sp, #16]`, `mov x0, x7`); twins with the same parameters that return the first member of `x`
/// show where `x` itself is. ``SignatureEncoding/argumentPlacement(for:)`` must put `m` and `x`
/// there, in the block's signature as clang encodes it and in its function form; and the abi
/// level must call two such blocks (or functions), whose types `T` and `U` it passes alike in
/// registers, compatible exactly when clang reads `x` and `m` from the same places in both.
@Suite struct ABIPlacementTests {
  /// What the encoding does not say stops the placement: an unexpanded structure, a single space
  /// where clang also has `__float128` (2 or 16 bytes on x86-64 System V and i386; on AArch64
  /// and Windows x64 it is a 2-byte `_Float16` or `__bf16`, in a floating-point register as
  /// `-O2` assembly shows: `long f(void *, _Float16, long)` reads X1 and R8), a return value of unknown size where its hidden pointer would take a
  /// register; an argument without bytes takes no place (clang drops it in C), except on
  /// Windows x64, where such a record has 4 bytes.
  @Test func unknownAndEmptyArguments() throws {
    func places(_ text: String, _ model: DataModel) throws -> [ArgumentPlacement.Place] {
      try SignatureEncoding(parsing: text).argumentPlacement(for: model).arguments
    }
    let pointer = ArgumentPlacement.Place.registers(general: 0..<1, floatingPoint: 0..<0)
    let second = ArgumentPlacement.Place.registers(general: 1..<2, floatingPoint: 0..<0)
    #expect(try places("v@?{S}q", .x86_64SysV) == [pointer, .unknown, .unknown])
    #expect(try places("v@? q", .x86_64SysV) == [pointer, .unknown, .unknown])
    #expect(
      try places("v@? q", .aarch64Linux) == [
        pointer, .registers(general: 0..<0, floatingPoint: 0..<1), second,
      ])
    #expect(
      try places("v@? q", .windowsX64) == [
        pointer, .registers(general: 0..<0, floatingPoint: 1..<2), .registers(general: 2..<3, floatingPoint: 0..<0),
      ])
    #expect(
      try places("v@?[4 ]q", .aarch64Linux) == [pointer, second, .registers(general: 2..<3, floatingPoint: 0..<0)])
    #expect(try places("v@?{?=[0i]}q", .x86_64SysV) == [pointer, .none, second])
    #expect(try places("v@?{?=[0i]}q", .i386Linux) == [.stack(offset: 0, size: 4), .none, .stack(offset: 4, size: 8)])
    #expect(
      try places("v@?{?=[0i]}q", .windowsX64) == [pointer, second, .registers(general: 2..<3, floatingPoint: 0..<0)])
    let unknownReturn = try SignatureEncoding(parsing: "{S}@?q")
    #expect(unknownReturn.argumentPlacement(for: .x86_64SysV).returnsInMemory == nil)
    #expect(unknownReturn.argumentPlacement(for: .x86_64SysV).arguments == [.unknown, .unknown])
    #expect(unknownReturn.argumentPlacement(for: .x86_64SysV).stackSize == nil)
    // AArch64 passes the hidden pointer in X8, not an argument register.
    #expect(unknownReturn.argumentPlacement(for: .aarch64Linux).arguments == [pointer, second])
    #expect(try SignatureEncoding(parsing: "v@?qqqqqqqq").argumentPlacement(for: .x86_64SysV).stackSize == 24)
  }

  /// What the random parameter lists of ``ABIRandomPlacementTests`` found, in blocks clang
  /// encoded (`-O2` assembly in the comments):
  /// - x86_64 System V: clang counts no register for an `_Atomic` scalar, which LLVM still
  ///   passes in one, so `long (^)(long, long, long, _Atomic(int), __int128 y, long m)` has `y`
  ///   in R9 and at stack offset 0 (`y >> 64` reads `8(%rsp)`), and `m` at 8 (`16(%rsp)`); with
  ///   an `int` in place of the `_Atomic(int)`, `y` goes whole on the stack and `m` in R9.
  /// - Windows x64: an `_Atomic(_Complex float)` takes two positions, so after two `long`s its
  ///   halves are in XMM3 and at stack offset 0, and the next `long` at 8 (`48(%rsp)`).
  /// - The offsets show a hidden layout (`struct __attribute__((aligned(16))) R { short s; }` in
  ///   a 16-byte slot: its alignment is not known), and settle a space (2 bytes: a `_Float16`,
  ///   in XMM0, so the `long` after it is in RSI).
  @Test func offsetsAndCountingAsClangHasThem() throws {
    func places(_ text: String, _ model: DataModel) throws -> [ArgumentPlacement.Place] {
      try SignatureEncoding(parsing: text).argumentPlacement(for: model).arguments
    }
    let general = { (register: Int) in
      ArgumentPlacement.Place.registers(general: register..<register + 1, floatingPoint: 0..<0)
    }
    #expect(
      try places("q60@?0q8q16q24Ai32t36q52", .x86_64SysV) == [
        general(0), general(1), general(2), general(3), general(4),
        .split(general: 5..<6, floatingPoint: 0..<0, stackOffset: 0, stackSize: 8), .stack(offset: 8, size: 8),
      ])
    #expect(try places("q60@?0q8q16q24i32t36q52", .x86_64SysV).suffix(2) == [.stack(offset: 0, size: 16), general(5)])
    // The halves part the other way when only an SSE register is left: `long f(long, long,
    // long, long, _Atomic(int), long, struct { long l; double d; } y, long m)` reads `y.l` from
    // `8(%rsp)`, `y.d` from XMM0 and `m` from `16(%rsp)`.
    #expect(
      try places("q68q0q8q16q24Ai32q36{LD=qd}44q60", .x86_64SysV).suffix(2) == [
        .split(general: 0..<0, floatingPoint: 0..<1, stackOffset: 0, stackSize: 8), .stack(offset: 8, size: 8),
      ])
    #expect(
      try places("l28@?0l8l12Ajf16l24", .windowsX64) == [
        general(0), general(1), general(2),
        .split(general: 0..<0, floatingPoint: 3..<4, stackOffset: 0, stackSize: 8), .stack(offset: 8, size: 8),
      ])
    // Where the size alone decides, a hidden layout is placed by its slot: i386 copies the
    // 16-byte R to offset 8 (`m` at `28(%esp)`), Windows passes it through a pointer at position
    // 2 (`m` in R9). An `_Atomic` structure stays unknown on Windows, where clang passes its
    // members one position each (`A{AR3}`, three chars and a byte of padding, takes four: `m`
    // at `56(%rsp)`).
    #expect(
      try places("l28@?0l4{R=s}8l24", .i386Linux) == [
        .stack(offset: 0, size: 4), .stack(offset: 4, size: 4), .stack(offset: 8, size: 16),
        .stack(offset: 24, size: 4),
      ])
    #expect(try places("l32@?0l8{R=s}12l28", .windowsX64) == [general(0), general(1), general(2), general(3)])
    #expect(try places("l20@?0l8A{AR3}12l16", .windowsX64) == [general(0), general(1), .unknown, .unknown])
    // A record whose only open question is a NeXT bitfield's unit: of more than 16 bytes it is a
    // stack copy on x86-64 (`struct { int a : 5; long b, c; }`: `m` in RSI) and a pointer to a
    // copy on AArch64 (`m` in X2); `struct { int a : 5; int b; }` takes one general-purpose
    // register or stack slot (`m` at `[sp, #8]` on AArch64, `32(%rsp)` on x86-64, where a float
    // in the place of `b` would leave the eightbyte's class to the unit).
    #expect(try places("q40@?0{B3=b5qq}8q32", .x86_64SysV) == [general(0), .stack(offset: 0, size: 24), general(1)])
    #expect(try places("q40@?0{B3=b5qq}8q32", .aarch64Linux) == [general(0), general(1), general(2)])
    let eightBytes = "q80@?0q8q16q24q32q40q48q56{B=b5i}64q72"
    #expect(
      try places(eightBytes, .aarch64Linux).suffix(2) == [.stack(offset: 0, size: 8), .stack(offset: 8, size: 8)])
    #expect(
      try places(eightBytes, .x86_64SysV).suffix(2) == [.stack(offset: 16, size: 8), .stack(offset: 24, size: 8)])
    #expect(
      try places("q80@?0q8q16q24q32q40q48q56{B=b5f}64q72", .x86_64SysV).suffix(2) == [.unknown, .unknown])
    // A zero-width bitfield is no member: `struct { long double x; int : 0; }` is a homogeneous
    // aggregate in V0 on AArch64 (`m` in X1), which the bitfield's open unit leaves unknown here.
    #expect(try places("q32@?0{Z=Db0}8q24", .aarch64Linux) == [general(0), .unknown, .unknown])
    // An `_Atomic` structure of at most 16 bytes is promoted to a power of two and aligned to it:
    // a stack copy on x86-64 (`m` in RSI, RDX), an integer on AArch64 (`m` in X2; X4 after the
    // 16-byte one in the even pair X2, X3).
    #expect(try places("q20@?0A{AR3}8q12", .x86_64SysV) == [general(0), .stack(offset: 0, size: 8), general(1)])
    #expect(
      try places("q40@?0q8A{S16}16q32", .x86_64SysV) == [
        general(0), general(1), .stack(offset: 0, size: 16), general(2),
      ])
    #expect(try places("q20@?0A{AR3}8q12", .aarch64Linux) == [general(0), general(1), general(2)])
    #expect(
      try places("q40@?0q8A{S16}16q32", .aarch64Linux) == [
        general(0), general(1), .registers(general: 2..<4, floatingPoint: 0..<0), general(4),
      ])
    #expect(try places("q40@?0q8{R=s}16q32", .x86_64SysV) == [general(0), general(1), .unknown, .unknown])
    #expect(try places("q40@?0q8{R=s}16q32", .aarch64Linux) == [general(0), general(1), .unknown, .unknown])
    // A space in a 16-byte slot is a `__float128`: one XMM register, then 16 stack bytes aligned
    // to 16 (`long (^)(double × 7, __float128, __float128, long × 6)` reads the last long at
    // `24(%rsp)`, and returns the second `__float128` from `8(%rsp)`); a lone space returned is
    // in XMM0 whichever it is, so it takes no register from the arguments.
    let float128 = try places("q144@?0d8d16d24d32d40d48d56 64 80q96q104q112q120q128q136", .x86_64SysV)
    #expect(
      Array(float128[7...10]) == [
        .registers(general: 0..<0, floatingPoint: 6..<7), .registers(general: 0..<0, floatingPoint: 7..<8),
        .stack(offset: 0, size: 16), general(1),
      ])
    #expect(float128.last == .stack(offset: 16, size: 8))
    let returnsSpace = try SignatureEncoding(parsing: " 96@?0d8d16d24d32d40d48d56 64 80").argumentPlacement(
      for: .x86_64SysV)
    #expect(returnsSpace.returnsInMemory == false)
    #expect(returnsSpace.arguments.last == .stack(offset: 0, size: 16))
    #expect(
      try places("q18@?0 8q10", .x86_64SysV) == [
        general(0), .registers(general: 0..<0, floatingPoint: 0..<1), general(1),
      ])
  }

  /// Where a return value comes back, as clang's `-O2` assembly of `T f(void) { return g; }`
  /// loads it: `struct { long l; double d; }` in RAX and XMM0 on x86-64, X0 and X1 on AArch64,
  /// memory on Windows and i386; `_Complex long double` on the x87 stack (ST0, ST1) on x86-64
  /// and in Q0 and Q1 on AArch64; three floats in XMM0 and XMM1, or S0–S2; `__int128` in RAX
  /// and RDX, X0 and X1, XMM0 on Windows; a `long long` in EDX:EAX on i386, a `double` in ST0.
  @Test func returnLocationsAsClangHasThem() throws {
    let expected: [(encoding: String, x86_64: String, aarch64: String, windows: String, i386: String)] = [
      ("{LD=qd}", "rax, xmm0", "x0, x1", "memory", "memory"),
      ("jD", "st0, st1", "v0, v1", "memory", "memory"),
      ("{F3=fff}", "xmm0, xmm1", "v0, v1, v2", "memory", "memory"),
      ("t", "rax, rdx", "x0, x1", "xmm0", "?"),
      ("q", "rax", "x0", "rax", "eax, edx"),
      ("d", "xmm0", "v0", "xmm0", "st0"),
      ("{Q8=q}", "rax", "x0", "rax", "memory"),
      ("v", "-", "-", "-", "-"),
    ]
    for row in expected {
      let type = try TypeEncoding(parsing: row.encoding)
      #expect(type.returnLocation(for: .x86_64SysV) == row.x86_64, "\(row.encoding)")
      #expect(type.returnLocation(for: .aarch64Linux) == row.aarch64, "\(row.encoding)")
      #expect(type.returnLocation(for: .windowsX64) == row.windows, "\(row.encoding)")
      #expect(type.returnLocation(for: .i386Linux) == row.i386, "\(row.encoding)")
    }
  }

  /// The calling convention is a fact of the model, not read off its name: a built-in model
  /// renamed places arguments as before, and one that takes another target's name keeps its own
  /// rules. The signatures tell the conventions apart: four floats are a homogeneous aggregate in
  /// four registers on AArch64 but two eightbytes on x86-64; Apple's arm64 packs two shorts on the
  /// stack where AArch64 Linux gives each 8 bytes.
  @Test func callingConventionIsAFactOfTheModel() throws {
    let signatures = try ["v@?{?=ffff}", "v@?qqqqqqqss", "v@?qqqqqqt", "{?=dddd}@?s"].map {
      try SignatureEncoding(parsing: $0)
    }
    // What a placement says, without the model (whose name differs).
    struct Placed: Equatable {
      var returnsInMemory: Bool?
      var arguments: [ArgumentPlacement.Place]
      var stackSize: Int?
    }
    func placements(_ model: DataModel) -> [Placed] {
      signatures.map {
        let placement = $0.argumentPlacement(for: model)
        return Placed(
          returnsInMemory: placement.returnsInMemory, arguments: placement.arguments, stackSize: placement.stackSize)
      }
    }
    let doubles = try SignatureEncoding(parsing: "v@?{?=dd}")
    func diagnostics(_ model: DataModel) -> [Diagnostic] {
      CompatibilityChecker(level: .abi, model: model).check(signatures[0], against: doubles).diagnostics
    }
    #expect(Set(DataModel.allBuiltIn.map(\.callingConvention)).count == DataModel.CallingConvention.allCases.count)
    for model in DataModel.allBuiltIn {
      for name in ["custom", "x86_64-linux", "arm64-apple", "aarch64-darwin"] where name != model.name {
        var renamed = model
        renamed.name = name
        #expect(placements(renamed) == placements(model), "\(model.name) named \(name)")
        #expect(diagnostics(renamed) == diagnostics(model), "\(model.name) named \(name)")
      }
    }
    func floatingPoint(_ place: ArgumentPlacement.Place) -> Range<Int>? {
      if case .registers(_, let registers) = place { registers } else { nil }
    }
    // Four floats: a homogeneous aggregate in four registers on AArch64, two SSE eightbytes on
    // x86-64; as the abi level sees it, compatible with two doubles only on x86-64.
    #expect(floatingPoint(placements(.aarch64Linux)[0].arguments[1]) == 0..<4)
    #expect(floatingPoint(placements(.x86_64SysV)[0].arguments[1]) == 0..<2)
    #expect(diagnostics(.x86_64SysV).isEmpty)
    #expect(!diagnostics(.aarch64Linux).isEmpty)
    #expect(placements(.arm64Apple)[1].arguments.suffix(2) == [.stack(offset: 0, size: 2), .stack(offset: 2, size: 2)])
    #expect(
      placements(.aarch64Linux)[1].arguments.suffix(2) == [.stack(offset: 0, size: 8), .stack(offset: 8, size: 8)])
  }

  /// Every target's probes, compiled once for both checks.
  @Test(arguments: targets.map(\.triple))
  func placementAndVerdictsAgreeWithClang(triple: String) throws {
    let model = try #require(Self.targets.first { $0.triple == triple }?.model)
    let observed = try Self.observe(triple, model: model)
    Self.expectPlacements(observed, triple: triple, model: model)
    try Self.expectVerdicts(observed, triple: triple, model: model)
  }
}
