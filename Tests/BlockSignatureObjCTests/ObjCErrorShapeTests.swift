import BlockSignatureObjC
import TestSupport
import Testing

/// The Objective-C error kind: a `String` enum with a description per case.
@Suite struct ObjCErrorShapeTests {
  @Test func objCErrorKinds() {
    expectErrorKindShape(
      ObjCError.Kind.self,
      rawValues: [
        "foundationUnavailable", "unknownClass", "unknownProtocol", "unknownSelector", "invalidSignature",
        "incompatibleSignature", "invalidCall", "exception", "refused",
      ])
  }
}
