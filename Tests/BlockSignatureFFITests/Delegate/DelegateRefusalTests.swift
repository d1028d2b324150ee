import BlockSignature
import BlockSignatureFFI
import Foundation
import Testing

/// What a callback table or a delegate refuses, each with a typed error that says where and why.
@Suite struct DelegateRefusalTests {
  /// The delegate error `body` throws (nil when it throws nothing, or another error).
  static func error(_ body: () throws -> Void) -> DelegateError? {
    do {
      try body()
      return nil
    } catch {
      return error as? DelegateError
    }
  }

  @Test func blocksThatDoNotFitAreRefusedAndNotStored() throws {
    let delegate = try DynamicDelegate(try CallbackTable(parsing: OpsFixture.description, name: "ops"))
    let wrong: @convention(block) (Double) -> Void = { _ in }
    let refused = Self.error {
      try delegate.implement("add", withBlock: unsafeBitCast(wrong, to: UnsafeRawPointer.self))
    }
    #expect(refused?.kind == .incompatibleBlock)
    #expect(refused?.member == "add")
    #expect(refused?.diagnostics.isEmpty == false)
    #expect(refused?.description.contains("nor without its context parameter") == true, "\(refused?.description ?? "")")
    #expect(try delegate.blockImplementation(for: "add") == nil)
    #expect(try delegate.function(for: "add") == nil)

    // A block that fits at abi but not at a stricter level.
    let strict = try DynamicDelegate(
      try CallbackTable(parsing: OpsFixture.description, name: "ops"), level: .identical)
    let add: @convention(block) (UnsafeMutableRawPointer?, UInt32, Int32) -> Int32 = { _, _, _ in 0 }
    #expect(
      Self.error { try delegate.implement("add", withBlock: unsafeBitCast(add, to: UnsafeRawPointer.self)) } == nil)
    #expect(
      Self.error { try strict.implement("add", withBlock: unsafeBitCast(add, to: UnsafeRawPointer.self)) }?.kind
        == .incompatibleBlock)
  }

  @Test func membersThatDoNotExistOrAreData() throws {
    let delegate = try DynamicDelegate(try CallbackTable(parsing: OpsFixture.description, name: "ops"))
    let add: @convention(block) (Int32, Int32) -> Int32 = { $0 + $1 }
    let block = unsafeBitCast(add, to: UnsafeRawPointer.self)
    #expect(Self.error { try delegate.implement("subtract", withBlock: block) }?.kind == .unknownMember)
    #expect(Self.error { try delegate.implement("version", withBlock: block) }?.kind == .wrongMemberKind)
    #expect(Self.error { _ = try delegate.value(of: "add") }?.kind == .wrongMemberKind)
    #expect(Self.error { try delegate.setValue(.string("x"), of: "version") }?.kind == .invalidValue)
    #expect(Self.error { try delegate.setValue(.signed(-1), of: "version") }?.kind == .invalidValue)
  }

  @Test(arguments: [
    ("a function\n", 1, DelegateError.Kind.invalidDescription),
    ("a function i^v\nb method i\n", 2, .invalidDescription),
    ("a function i^v\n\n# comment\na data i\n", 4, .invalidDescription),  // a name used twice
    ("a function i^v\nb data {S=\n", 2, .invalidDescription),
    ("a function i(\n", 1, .invalidDescription),
  ])
  func malformedDescriptions(_ text: String, _ line: Int, _ kind: DelegateError.Kind) {
    let error = Self.error { _ = try CallbackTable(parsing: text) }
    #expect(error?.kind == kind)
    #expect(error?.line == line, "\(error?.description ?? "accepted")")
  }

  @Test func layoutsTheEncodingsDoNotDecide() {
    // A NeXT bitfield has neither offset nor storage unit; a lone `?` has no size.
    #expect(
      Self.error { _ = try CallbackTable(parsing: "flags data b3\nf function v^v\n") }?.kind == .undecidableLayout)
    #expect(Self.error { _ = try CallbackTable(parsing: "x data ?\n") }?.kind == .undecidableLayout)
  }

  @Test func membersThatCannotBeCalled() {
    // A vector parameter (written as nothing) has no calling convention libffi can be told.
    let refused = Self.error { _ = try DynamicDelegate(try CallbackTable(parsing: "f function v^v{S}\n")) }
    #expect(refused?.kind == .uncallableMember)
    #expect(refused?.member == "f")
  }
}
