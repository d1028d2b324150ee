import BlockSignatureBinary
import TestSupport
import Testing

/// The binary scanner's error kind: a `String` enum with a description per case.
@Suite struct BinaryErrorShapeTests {
  @Test func binaryScanErrorKinds() {
    expectErrorKindShape(
      BinaryScanError.Kind.self, rawValues: ["unreadable", "unrecognizedFormat", "unsupportedVariant", "malformed"])
    #expect(BinaryScanError.Kind.malformed.description == "malformed file")
  }
}
