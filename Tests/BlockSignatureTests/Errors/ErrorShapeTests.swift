import BlockSignature
import TestSupport
import Testing

/// The core's errors: a `String` enum kind with a description per case, `message`, `range`.
@Suite struct ErrorShapeTests {
  @Test func encodingErrorKinds() {
    expectErrorKindShape(
      EncodingError.Kind.self,
      rawValues: [
        "unexpectedByte", "unexpectedEnd", "emptyInput", "trailingBytes", "unterminatedStructure",
        "unterminatedUnion", "unterminatedArray", "unterminatedString", "unterminatedBlockSignature",
        "missingArrayCount", "countOverflow", "invalidNumber", "invalidBitfield", "nestingTooDeep", "invalidUTF8",
        "invalidOffset",
      ])
  }

  @Test func signatureErrorKinds() {
    expectErrorKindShape(
      SignatureError.Kind.self,
      rawValues: [
        "malformedEncoding", "layoutOverflow", "notConvertible", "missingSignature", "argumentOutOfRange",
        "unknownDataModel",
      ])
  }

  @Test func layoutErrorKinds() {
    expectErrorKindShape(LayoutError.Kind.self, rawValues: ["sizeOverflow"])
    #expect(LayoutError(kind: .sizeOverflow, encoding: "[9q]").description == "size overflow in [9q]")
  }

  @Test func swiftTypeErrorKinds() {
    expectErrorKindShape(
      SwiftTypeError.Kind.self, rawValues: ["unexpectedText", "notRepresentable", "nestingTooDeep", "unknownDataModel"])
  }

  @Test func extendedLayoutDecodingErrorKinds() {
    expectErrorKindShape(
      ExtendedLayout.DecodingError.Kind.self,
      rawValues: ["reservedOpcode", "reservedEscapeCount", "missingTerminator"])
  }

  @Test func signatureErrorMessage() throws {
    let error = SignatureError(kind: .notConvertible, signature: "v8@?0", message: "from method form")
    #expect(error.message == "from method form")
    #expect(error.description == "cannot convert v8@?0 from method form")
  }

  @Test func swiftTypeErrorRange() {
    let error = #expect(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: "(String) -> Void") }
    #expect(error?.range == 1..<7)
    #expect(error?.kind == .notRepresentable)
  }

  @Test func extendedLayoutDecodingErrorRange() {
    let reserved = #expect(throws: ExtendedLayout.DecodingError.self) {
      try ExtendedLayout(decoding: [0x12, 0xf0, 0x00])
    }
    #expect(reserved?.kind == .reservedOpcode)
    #expect(reserved?.range == 1..<2)
    #expect(reserved?.message == "reserved opcode 15 in byte 0xf0")
    let unterminated = #expect(throws: ExtendedLayout.DecodingError.self) { try ExtendedLayout(decoding: [0x12]) }
    #expect(unterminated?.kind == .missingTerminator)
    #expect(unterminated?.range == 1..<1)
  }
}
