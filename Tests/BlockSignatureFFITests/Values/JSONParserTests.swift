import BlockSignatureFFI
import Testing

/// The JSON parser `CValue(json:as:model:)` reads text with (and `blocksig call` its arguments).
@Suite struct JSONParserTests {
  @Test func numbersKeepTheirExactText() throws {
    for text in ["0", "-0", "170141183460469231731687303715884105727", "-1.5e-300", "0.1", "1E+400", "12.50"] {
      #expect(try JSONParser.parse(text) == .number(text))
    }
    #expect(try JSONParser.parse(" \t\n 42 \r\n") == .number("42"))
  }

  @Test func nestedArraysAndObjects() throws {
    let value = try JSONParser.parse(#"[1, [true, false, null], {"a": [], "b": {"c": "d"}}, {}]"#)
    #expect(
      value
        == .array([
          .number("1"), .array([.bool(true), .bool(false), .null]),
          .object([
            .init(key: "a", value: .array([])), .init(key: "b", value: .object([.init(key: "c", value: .string("d"))])),
          ]),
          .object([]),
        ]))
  }

  @Test func escapes() throws {
    #expect(try JSONParser.parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{08}\u{0C}\n\r\t"))
    #expect(try JSONParser.parse(#""\u00e9\u0041\u20AC""#) == .string("éA€"))
    #expect(try JSONParser.parse(#""\ud83d\ude00 é""#) == .string("😀 é"))
    #expect(try JSONParser.parse(#""\u0000""#) == .string("\u{0}"))
  }

  @Test(arguments: [
    ("", 0, "expected a value, found the end of the text"),
    ("[1, 2", 5, "unterminated array"),
    ("[1 2]", 3, "expected ',' or ']' in an array, found '2'"),
    ("{\"a\": 1, \"a\": 2}", 9, "duplicate key \"a\""),
    ("{1: 2}", 1, "expected a key"),
    ("1 2", 2, "unexpected text after the value"),
    ("[1]x", 3, "unexpected text after the value"),
    ("truex", 4, "unexpected text after the value"),
    ("tru", 0, "did you mean true?"),
    ("-", 1, "expected a digit"),
    ("01", 1, "a number cannot start with 0"),
    ("1.", 2, "expected a digit after '.'"),
    (".5", 0, "expected a value, found '.'"),
    ("1e", 2, "expected a digit in the exponent"),
    ("+1", 0, "expected a value, found '+'"),
    ("\"abc", 0, "unterminated string"),
    ("\"a\u{1}\"", 2, "a control character (byte 0x1) must be escaped"),
    (#""\x""#, 1, "unknown escape: a backslash before 'x'"),
    (#""\u12""#, 1, "\\u needs four hexadecimal digits"),
    (#""\ud83d""#, 1, "a high surrogate must be followed by a \\u low surrogate"),
    (#""\ud83d\u0041""#, 7, "a high surrogate must be followed by a low surrogate"),
    (#""\ude00""#, 1, "a low surrogate without a high surrogate"),
    ("NaN", 0, "expected a value, found 'N'"),
  ])
  func malformedTextIsRejectedAtItsOffset(_ text: String, offset: Int, reason: String) {
    #expect {
      _ = try JSONParser.parse(text)
    } throws: { error in
      guard let error = error as? JSONParseError else { return false }
      return error.offset == offset && error.message.contains(reason)
    }
  }

  @Test func depthIsLimited() throws {
    let limit = JSONParser.defaultMaximumDepth
    let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
    #expect(try JSONParser.parse(deepest) != .null)
    // One level more, and a million: refused at the bracket past the limit, no stack overflow.
    for depth in [limit + 1, 1_000_000] {
      let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
      #expect(throws: JSONParseError(offset: limit, message: "nested deeper than \(limit) levels")) {
        try JSONParser.parse(text)
      }
    }
    let objects = String(repeating: #"{"a":"#, count: limit + 1)
    #expect(throws: JSONParseError(offset: 5 * limit, message: "nested deeper than \(limit) levels")) {
      try JSONParser.parse(objects)
    }
  }

  @Test func writerEscapesAndRoundTrips() throws {
    let value = JSONValue.array([
      .string("a\"b\\\n\u{1}é"), .number("-12.5e3"), .object([.init(key: "k", value: .null)]),
    ])
    #expect(value.compact == #"["a\"b\\\n\u0001é", -12.5e3, {"k": null}]"#)
    #expect(try JSONParser.parse(value.compact) == value)
    #expect(try JSONParser.parse(value.pretty()) == value)
  }

  @Test func bytesThatAreNotUTF8BecomeReplacementCharacters() throws {
    #expect(try JSONParser.parse(bytes: [0x22, 0x61, 0xFF, 0x22]) == .string("a\u{FFFD}"))
    #expect(try JSONParser.parse(bytes: Array("[1]".utf8)) == .array([.number("1")]))
  }
}
