import BlockSignature
import Foundation
import TestSupport
import Testing

/// Swift function types mapped to encodings, against what `swiftc` writes for them (live
/// closures of those types: SwiftClosureSignatureTests, in the Runtime's tests).
@Suite struct SwiftFunctionTypeTests {
  /// Swift closures as a block's parameters and result are passed as blocks: the signatures
  /// `swiftc -emit-ir` writes for such blocks (closures of them cannot be linked on Linux: the
  /// bridging calls the Objective-C runtime) are the ones the types give.
  @Test func closuresAsParametersAndResultsAreBlocks() throws {
    let types = [
      ("(((Int32) -> Int32)?) -> Void", "{ _ in }"), ("(@escaping (Double) -> Void) -> Int8", "{ _ in 0 }"),
      ("() -> ((Int16) -> Int16)?", "{ nil }"), ("(((((Float) -> Float)?) -> Void)?) -> Void", "{ _ in }"),
      ("((@convention(block) (UInt8) -> UInt8)?, Int) -> UInt16", "{ _, _ in 0 }"),
    ]
    var source = "@inline(never) func keep(_ value: Any) { print(value) }\n"
    for (index, (type, body)) in types.enumerated() {
      source += "let b\(index): @convention(block) \(type) = \(body)\nkeep(b\(index))\n"
    }
    let folder = try Toolchain.temporaryDirectory("blocksig-closures")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("main.swift")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let compiled = try Toolchain.run(Toolchain.tool("swiftc"), ["-emit-ir", "-o", "-", file.path])
    #expect(compiled.status == 0, "\(compiled.stderr)")
    // The signature strings in the IR: `c"v16@?0@?<i@?i>8\00"`.
    let emitted = Set(
      compiled.stdout.components(separatedBy: "c\"").dropFirst().compactMap { piece -> String? in
        guard let end = piece.range(of: "\\00\"") else { return nil }
        let string = String(piece[..<end.lowerBound])
        return string.contains("@?0") ? string : nil
      })
    let ours = Set(try types.map { try SwiftFunctionType(parsing: $0.0).blockEncoding.description })
    // The IR also holds the signatures of the closures' own thunks (`s12@?0s8`).
    #expect(ours.isSubset(of: emitted), "\(ours.subtracting(emitted)) not in \(emitted)")
    #expect(ours.count == types.count)
  }

  @Test func classObjects() throws {
    // A closure taking AnyClass needs the Objective-C runtime to exist; `swiftc -emit-ir` of one
    // shows `#` on Linux too.
    #expect(
      try SwiftFunctionType(parsing: "(AnyClass?) -> AnyObject").blockEncoding.description == "@16@?0#8")
  }

  @Test func modelDependentTypes() throws {
    #expect(
      try SwiftFunctionType(parsing: "(Int, CLong, CChar) -> Void", model: .i386Linux).blockEncoding
        .description == "v16@?0i4l8c12")
    #expect(
      try SwiftFunctionType(parsing: "(CLong, CChar) -> Void", model: .aarch64Linux).blockEncoding.description
        == "v20@?0q8C16")
    // Implicitly unwrapped optionals are optionals; unsigned short is `S`; `inout` is a
    // mutable pointer (what swiftc encodes for an UnsafeMutablePointer<Int32> parameter).
    #expect(
      try SwiftFunctionType(parsing: "(UnsafeRawPointer!) -> AnyObject!").blockEncoding.description == "@16@?0^v8")
    #expect(
      try SwiftFunctionType(parsing: "(CUnsignedShort, UInt16) -> Void").blockEncoding.description == "v16@?0S8S12")
    #expect(try SwiftFunctionType(parsing: "(inout Int32) -> Void").blockEncoding.description == "v16@?0^i8")
    #expect(try SwiftFunctionType(parsing: "(CChar16) -> CChar16").blockEncoding.description == "S12@?0S8")
    // A pointer to Void has no C spelling: the error points at its pointee (the `<`).
    for (text, offset) in [("(Int32, UnsafeMutablePointer<Void>) -> Void", 28), ("(UnsafePointer<Void>) -> Void", 14)] {
      let error = try #require(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: text) }
      #expect(error.offset == offset, "\(text)")
    }
    // `Int` is as wide as a pointer (`CLong` is 4 bytes on Windows, `Int` is not).
    #expect(
      try SwiftFunctionType(parsing: "(Int, CLong) -> Int", model: .windowsX64).blockEncoding.description
        == "q20@?0q8l16")
  }

  @Test(
    arguments: zip(
      [
        "(String) -> Void", "(Int32?) -> Void", "(Int32, Int32)", "(Int32) throws -> Void",
        "(UnsafePointer<(Int32) -> Void>) -> Void", "(Void) -> Void", "(Int32) -> Int32 x",
        "(UnsafePointer<((Int32) -> Void)>) -> Void",
      ],
      [
        ("type String has no C encoding", 1), ("an optional i has no C encoding", 1),
        ("expected a function type '(…) -> …'", 0),
        ("a throwing function has no C representation", 8),
        ("a Swift closure has no C encoding; use @convention(block) or @convention(c)", 15),
        ("a parameter cannot be Void", 1), ("unexpected text after the function type", 17),
        // A closure inside another type is not a block (only a block's parameters and result are).
        ("a Swift closure has no C encoding; use @convention(block) or @convention(c)", 16),
      ]))
  func unrepresentableTypes(_ text: String, _ expected: (String, Int)) throws {
    let error = try #require(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: text) }
    #expect(error.message == expected.0)
    #expect(error.offset == expected.1)
  }

  @Test func deepNestingIsAnError() throws {
    let text =
      "(" + String(repeating: "UnsafePointer<", count: 200) + "Int32" + String(repeating: ">", count: 200)
      + ") -> Void"
    let error = try #require(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: text) }
    #expect(error.kind == .nestingTooDeep)
  }

  /// A parenthesized type was parsed twice at every level (as a parameter list, then again as
  /// the type in parentheses): `((…(Int32)…)) -> Void` cost 2^depth (20 levels: 3.3 s). Now the
  /// first parse is kept; at depth 60 a regression does not finish. Beyond the nesting limit it
  /// is a typed error, and the parentheses still mean what they meant.
  @Test func nestedParenthesesAreParsedOnce() throws {
    for depth in [1, 2, 60] {
      let text =
        "(" + String(repeating: "(", count: depth) + "Int32" + String(repeating: ")", count: depth) + ") -> Void"
      #expect(try SwiftFunctionType(parsing: text).blockEncoding.description == "v12@?0i8", "\(depth)")
      let spaced =
        "( " + String(repeating: "( ", count: depth) + "Int32 " + String(repeating: ") ", count: depth)
        + ", Double) -> Void"
      #expect(try SwiftFunctionType(parsing: spaced).blockEncoding.description == "v20@?0i8d12", "\(depth)")
    }
    // A label or `inout` inside the parentheses is not a parenthesized type (read again from the
    // label, as before), nor is a list.
    for (text, message, offset) in [
      ("((x: Int32)) -> Void", "type x has no C encoding", 2),
      ("((inout Int32)) -> Void", "type inout has no C encoding", 2),
      ("((Int32, Int32)) -> Void", "a tuple has no C encoding", 1),
    ] {
      let error = try #require(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: text) }
      #expect(error.message == message, "\(text)")
      #expect(error.offset == offset, "\(text)")
    }
    let deep =
      "(" + String(repeating: "(", count: 100_000) + "Int32" + String(repeating: ")", count: 100_000) + ") -> Void"
    let error = try #require(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: deep) }
    #expect(error.kind == .nestingTooDeep)
  }

  /// `_Complex` classified both halves at every level: nested around a type without bytes or
  /// leaves (`jjj…jv`, `jjj…j[0d]`) that is 2^depth calls (FuzzCompatibility found a 13 s input
  /// at depth 30). At depth 64 a regression does not finish.
  @Test func nestedTypesWithoutBytesAreClassifiedOnce() throws {
    // And arrays inside a structure (a parameter array is a pointer): `[4[4…[0d]]]` walked every
    // element, 4^depth calls in AAPCS64's floating-point leaf count.
    let arrays = "{S=" + String(repeating: "[4", count: 32) + "[0d]" + String(repeating: "]", count: 32) + "}"
    for type in ["v", "[0d]", "{S=}", "[0{S=}]"].map({ String(repeating: "j", count: 64) + $0 }) + [arrays] {
      let nested = "v16@?0" + type + "8"
      // Against another type without bytes, so that the levels that compare register classes do.
      let empty = "v16@?0{E=}8"
      for model in DataModel.allBuiltIn {
        for level in CompatibilityLevel.allCases {
          let report = try CompatibilityChecker(level: level, model: model).check(nested, against: empty)
          #expect(report.level == level, "\(nested) on \(model.name)")
        }
      }
    }
  }

  /// The halves of a `_Complex` still count twice as floating-point leaves: on AArch64 clang passes
  /// `struct { _Complex float a, b; }` as `[4 x float]`, like four floats, and two longs as
  /// `[2 x i64]` (clang -target aarch64-linux-gnu -S -emit-llvm).
  @Test func complexHalvesCountAsTwoFloatingPointLeaves() throws {
    let model = try #require(DataModel(named: "aarch64-linux"))
    let checker = CompatibilityChecker(level: .abi, model: model)
    #expect(try checker.check("v24@?0{C2=jfjf}8", against: "v24@?0{F4=ffff}8").isCompatible)
    #expect(try !checker.check("v24@?0{C2=jfjf}8", against: "v24@?0{Q2=qq}8").isCompatible)
    #expect(try checker.check("v16@?0jf8", against: "v16@?0{F2=ff}8").isCompatible)
    #expect(try !checker.check("v16@?0jf8", against: "v16@?0q8").isCompatible)
  }

  /// Array elements count as often as there are elements: `struct { double a[2][2]; }` is
  /// `[4 x double]` like four doubles; four longs and `float[5]` go by reference (clang
  /// -target aarch64-linux-gnu -S -emit-llvm).
  @Test func arrayElementsCountAsFloatingPointLeaves() throws {
    let model = try #require(DataModel(named: "aarch64-linux"))
    let checker = CompatibilityChecker(level: .abi, model: model)
    #expect(try checker.check("v40@?0{A22=[2[2d]]}8", against: "v40@?0{D4=dddd}8").isCompatible)
    #expect(try !checker.check("v40@?0{A22=[2[2d]]}8", against: "v40@?0{Q4=qqqq}8").isCompatible)
    // Five leaves are not a homogeneous aggregate, counted whole or per element.
    #expect(try checker.check("v28@?0{F5=[5f]}8", against: "v28@?0{F5=fffff}8").isCompatible)
  }
}
