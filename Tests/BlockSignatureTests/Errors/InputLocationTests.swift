import BlockSignature
import Testing

/// Every error that knows its input says where in one shape: ``InputLocation``.
@Suite struct InputLocationTests {
  @Test func encodingErrors() throws {
    let error = try #require(throws: EncodingError.self) { try TypeEncoding(parsing: "{S=i") }
    #expect(error.location == InputLocation(.typeEncoding, text: "{S=i", bytes: 0..<4))
    #expect(error.location.column == 1)
    #expect(error.location.description == "bytes 0..<4 of the type encoding \"{S=i\"")
    let signature = try #require(throws: SignatureError.self) { try MethodSignature(parsing: "v8@?0x") }
    #expect(signature.location?.input == .typeEncoding)
    #expect(signature.location?.bytes.lowerBound == 5)
  }

  @Test func swiftTypeAndLayoutErrors() throws {
    let swift = try #require(throws: SwiftTypeError.self) {
      try SwiftFunctionType(parsing: "(String) -> Void", model: .x86_64SysV)
    }
    #expect(swift.location == InputLocation(.swiftType, text: "(String) -> Void", bytes: 1..<7))
    let layout = try #require(throws: LayoutError.self) {
      try TypeEncoding(parsing: "[9999999999999999999q]").layout(for: .x86_64SysV)
    }
    #expect(layout.message == "size overflow in [9999999999999999999q]")
    #expect(layout.location.bytes == 0..<22)
    let long = LayoutError(kind: .sizeOverflow, encoding: "[" + String(repeating: "9", count: 300) + "q]")
    #expect(long.message.utf8.count < 200)
  }

  @Test func extendedLayoutErrors() throws {
    let error = try #require(throws: ExtendedLayout.DecodingError.self) { try ExtendedLayout(decoding: [0x30]) }
    #expect(error.location.input == .extendedLayout)
    #expect(error.location.bytes == error.range)
  }
}
