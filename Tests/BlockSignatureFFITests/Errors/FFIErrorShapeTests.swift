import BlockSignatureFFI
import TestSupport
import Testing

/// The FFI's error kinds: `String` enums with a description per case; the text is `message`.
@Suite struct FFIErrorShapeTests {
  @Test func invocationErrorKinds() {
    expectErrorKindShape(
      InvocationError.Kind.self,
      rawValues: [
        "missingSignature", "invalidSignature", "incompatibleSignature", "unsupportedType", "unsupportedReturnType",
        "argumentCount", "typeMismatch", "outOfRange", "preparationFailed", "notABlock",
      ])
  }

  @Test func delegateErrorKinds() {
    expectErrorKindShape(
      DelegateError.Kind.self,
      rawValues: [
        "invalidDescription", "undecidableLayout", "uncallableMember", "unknownMember", "wrongMemberKind",
        "incompatibleBlock", "invalidBlock", "unimplemented", "invalidValue",
      ])
  }

  @Test func messages() {
    let invocation = InvocationError(kind: .outOfRange, argument: 1, message: "300 does not fit unsigned char")
    #expect(invocation.message == "300 does not fit unsigned char")
    #expect(invocation.description == "argument 1: 300 does not fit unsigned char")
    let delegate = DelegateError(kind: .unknownMember, member: "size", message: "no member has that name")
    #expect(delegate.message == "no member has that name")
    #expect(delegate.description == "member size: no member has that name")
  }
}
