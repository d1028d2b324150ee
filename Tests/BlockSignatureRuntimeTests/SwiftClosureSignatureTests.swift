import BlockSignature
import BlockSignatureRuntime
import Testing

/// Swift function types mapped to encodings, against the signatures the Swift compiler gives
/// real `@convention(block)` closures of those types.
@Suite struct SwiftClosureSignatureTests {
  static func signature(_ block: UnsafeRawPointer) throws -> String {
    try #require(try BlockInfo(inspecting: block).signature)
  }

  @Test func mappingMatchesTheSwiftCompiler() throws {
    var rows: [(String, String)] = []
    let a: @convention(block) (Int32, UnsafePointer<CChar>?) -> Int32 = { _, _ in 0 }
    rows.append(
      (
        "(Int32, UnsafePointer<CChar>?) -> Int32",
        try withExtendedLifetime(a) { try Self.signature(unsafeBitCast(a, to: UnsafeRawPointer.self)) }
      ))
    let b: @convention(block) (Int, UInt, Int8, UInt8, Int16, UInt16, UInt32, Int64, UInt64) -> Void = {
      _, _, _, _, _, _, _, _, _ in
    }
    rows.append(
      (
        "(Int, UInt, Int8, UInt8, Int16, UInt16, UInt32, Int64, UInt64) -> Void",
        try withExtendedLifetime(b) { try Self.signature(unsafeBitCast(b, to: UnsafeRawPointer.self)) }
      ))
    let c: @convention(block) (Bool, Float, Double, CChar, CLong, CBool) -> Bool = { _, _, _, _, _, _ in true
    }
    rows.append(
      (
        "(Bool, Float, Double, CChar, CLong, CBool) -> Bool",
        try withExtendedLifetime(c) { try Self.signature(unsafeBitCast(c, to: UnsafeRawPointer.self)) }
      ))
    let d:
      @convention(block) (
        UnsafeRawPointer, UnsafeMutableRawPointer, OpaquePointer, UnsafeMutablePointer<CChar>,
        UnsafePointer<Int32>, UnsafeMutablePointer<Double>?
      ) -> Void = { _, _, _, _, _, _ in }
    rows.append(
      (
        "(UnsafeRawPointer, UnsafeMutableRawPointer, OpaquePointer, UnsafeMutablePointer<CChar>, UnsafePointer<Int32>, UnsafeMutablePointer<Double>?) -> Void",
        try withExtendedLifetime(d) { try Self.signature(unsafeBitCast(d, to: UnsafeRawPointer.self)) }
      ))
    let e:
      @convention(block) (
        @convention(block) (Int32) -> Int32, @convention(c) (Int32) -> Void, UnsafeRawPointer?
      ) -> Void = { _, _, _ in }
    rows.append(
      (
        "(@escaping @convention(block) (Int32) -> Int32, @convention(c) (Int32) -> Void, UnsafeRawPointer?) -> Void",
        try withExtendedLifetime(e) { try Self.signature(unsafeBitCast(e, to: UnsafeRawPointer.self)) }
      ))
    let f:
      @convention(block) (
        UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafeMutablePointer<CChar>?>,
        UnsafePointer<UInt8>, Float80, AnyObject
      ) -> () = { _, _, _, _, _ in }
    rows.append(
      (
        "(_ names: UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafeMutablePointer<CChar>?>, Swift.UnsafePointer<UInt8>, Float80, AnyObject) -> ()",
        try withExtendedLifetime(f) { try Self.signature(unsafeBitCast(f, to: UnsafeRawPointer.self)) }
      ))
    let g:
      @convention(block) (
        CInt, CUnsignedChar, CSignedChar, CShort, CLongLong, CUnsignedLong, Optional<UnsafeRawPointer>
      ) -> UnsafeMutableRawPointer? = { _, _, _, _, _, _, _ in nil }
    rows.append(
      (
        "(CInt, CUnsignedChar, CSignedChar, CShort, CLongLong, CUnsignedLong, Optional<UnsafeRawPointer>) -> UnsafeMutableRawPointer?",
        try withExtendedLifetime(g) { try Self.signature(unsafeBitCast(g, to: UnsafeRawPointer.self)) }
      ))
    for (text, compiled) in rows {
      let type = try SwiftFunctionType(parsing: text)
      #expect(type.blockEncoding.description == compiled, "\(text)")
      #expect(
        try CompatibilityChecker(level: .identical).check(try SignatureEncoding(parsing: compiled), against: type)
          .isCompatible)
    }
  }

  @Test func liveClosureAgainstAType() throws {
    let closure: @convention(block) (Int32, Double) -> Int32 = { a, _ in a }
    let info = try withExtendedLifetime(closure) {
      try BlockInfo(inspecting: unsafeBitCast(closure, to: UnsafeRawPointer.self))
    }
    let checker = try CompatibilityChecker(level: .abi)
    #expect(
      try checker.check(block: info, against: SwiftFunctionType(parsing: "(CInt, Double) -> Int32"))
        .isCompatible)
    let report = try checker.check(block: info, against: SwiftFunctionType(parsing: "(Int, Double) -> Int32"))
    #expect(!report.isCompatible)
    #expect(report.diagnostics.map(\.message) == ["argument 1: size 4 does not match size 8 (i vs q)"])
  }
}
