import BlockSignature

/// Why a JSON text does not parse, and the byte offset (from 0) where it stops making sense.
package struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
  package var offset: Int
  package var message: String

  package init(offset: Int, message: String) {
    self.offset = offset
    self.message = message
  }

  package var description: String { "malformed JSON at byte \(offset): \(message)" }
}

/// A strict JSON parser (RFC 8259) over UTF-8 bytes for one value: numbers keep their text,
/// nesting is limited to `maximumDepth` (no stack overflow on `[[[[…`), and nothing but
/// white space may follow the value.
///
///     try JSONParser.parse("[1, {\"a\": \"\\u00e9\"}]")  // .array([.number("1"), .object(…)])
package struct JSONParser {
  private let bytes: [UInt8]
  private var position = 0
  private let maximumDepth: Int

  /// How deep arrays and objects may nest unless the caller says otherwise.
  package static let defaultMaximumDepth = 64

  private init(_ bytes: [UInt8], maximumDepth: Int) {
    self.bytes = bytes
    self.maximumDepth = maximumDepth
  }

  /// Parses `text`, one value with optional white space around it.
  package static func parse(_ text: some StringProtocol, maximumDepth: Int = defaultMaximumDepth)
    throws(JSONParseError) -> JSONValue
  {
    try parse(bytes: Array(text.utf8), maximumDepth: maximumDepth)
  }

  /// Parses UTF-8 `bytes`, one value with optional white space around it. A string's bytes that
  /// are not UTF-8 become U+FFFD.
  package static func parse(bytes: some Collection<UInt8>, maximumDepth: Int = defaultMaximumDepth)
    throws(JSONParseError) -> JSONValue
  {
    var parser = JSONParser(Array(bytes), maximumDepth: maximumDepth)
    parser.skipWhitespace()
    let value = try parser.value(depth: 0)
    parser.skipWhitespace()
    guard parser.position == parser.bytes.count else { throw parser.failure("unexpected text after the value") }
    return value
  }

  private func failure(_ message: String, at offset: Int? = nil) -> JSONParseError {
    JSONParseError(offset: offset ?? position, message: message)
  }

  private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

  private mutating func skipWhitespace() {
    while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
  }

  private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
    guard let byte = current else { throw failure("expected a value, found the end of the text") }
    switch byte {
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      guard depth < maximumDepth else { throw failure("nested deeper than \(maximumDepth) levels") }
      return byte == UInt8(ascii: "{") ? try object(depth: depth + 1) : try array(depth: depth + 1)
    case UInt8(ascii: "\""): return .string(try string())
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
    case UInt8(ascii: "t"): return try literal("true", .bool(true))
    case UInt8(ascii: "f"): return try literal("false", .bool(false))
    case UInt8(ascii: "n"): return try literal("null", .null)
    default: throw failure("expected a value, found \(Self.describe(byte))")
    }
  }

  private mutating func literal(_ word: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
    let expected = Array(word.utf8)
    guard bytes.count - position >= expected.count, bytes[position..<position + expected.count].elementsEqual(expected)
    else { throw failure("expected a value (did you mean \(word)?)") }
    position += expected.count
    return value
  }

  private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
    position += 1  // [
    var elements: [JSONValue] = []
    skipWhitespace()
    if current == UInt8(ascii: "]") {
      position += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try value(depth: depth))
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "]"):
        position += 1
        return .array(elements)
      case nil: throw failure("unterminated array: expected ',' or ']'")
      case let byte?: throw failure("expected ',' or ']' in an array, found \(Self.describe(byte))")
      }
    }
  }

  private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
    position += 1  // {
    var members: [JSONValue.Member] = []
    skipWhitespace()
    if current == UInt8(ascii: "}") {
      position += 1
      return .object(members)
    }
    while true {
      skipWhitespace()
      let keyOffset = position
      guard current == UInt8(ascii: "\"") else {
        throw current == nil
          ? failure("unterminated object: expected a key") : failure("expected a key (a string) in an object")
      }
      let key = try string()
      guard !members.contains(where: { $0.key == key }) else {
        throw failure("duplicate key \(JSONValue.quoted(key))", at: keyOffset)
      }
      skipWhitespace()
      guard current == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
      position += 1
      skipWhitespace()
      members.append(JSONValue.Member(key: key, value: try value(depth: depth)))
      skipWhitespace()
      switch current {
      case UInt8(ascii: ","): position += 1
      case UInt8(ascii: "}"):
        position += 1
        return .object(members)
      case nil: throw failure("unterminated object: expected ',' or '}'")
      case let byte?: throw failure("expected ',' or '}' in an object, found \(Self.describe(byte))")
      }
    }
  }

  /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, returned as written.
  private mutating func number() throws(JSONParseError) -> String {
    let start = position
    if current == UInt8(ascii: "-") { position += 1 }
    guard let first = current, Self.isDigit(first) else { throw failure("expected a digit") }
    position += 1
    if first == UInt8(ascii: "0"), let next = current, Self.isDigit(next) {
      throw failure("a number cannot start with 0 (write hexadecimal as a string: \"0x…\")")
    }
    skipDigits()
    if current == UInt8(ascii: ".") {
      position += 1
      guard let digit = current, Self.isDigit(digit) else { throw failure("expected a digit after '.'") }
      skipDigits()
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      position += 1
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
      guard let digit = current, Self.isDigit(digit) else { throw failure("expected a digit in the exponent") }
      skipDigits()
    }
    return String(decoding: bytes[start..<position], as: UTF8.self)
  }

  private mutating func skipDigits() {
    while let byte = current, Self.isDigit(byte) { position += 1 }
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  private mutating func string() throws(JSONParseError) -> String {
    let open = position
    position += 1  // "
    var scalars = String.UnicodeScalarView()
    var runStart = position
    // Unescaped runs are copied as bytes, read as UTF-8 (a malformed sequence becomes U+FFFD).
    func flush(_ end: Int) {
      scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
    }
    while true {
      guard let byte = current else { throw failure("unterminated string", at: open) }
      switch byte {
      case UInt8(ascii: "\""):
        flush(position)
        position += 1
        return String(scalars)
      case UInt8(ascii: "\\"):
        flush(position)
        scalars.append(try escape())
        runStart = position
      case 0..<0x20:
        throw failure("a control character (\(Self.describe(byte))) must be escaped in a string")
      default:
        position += 1
      }
    }
  }

  /// One escape after a backslash: `\n`, `\"`, `\u00e9`, a surrogate pair `\ud83d\ude00`.
  private mutating func escape() throws(JSONParseError) -> Unicode.Scalar {
    let start = position
    position += 1  // backslash
    guard let byte = current else { throw failure("unterminated escape", at: start) }
    position += 1
    switch byte {
    case UInt8(ascii: "\""): return "\""
    case UInt8(ascii: "\\"): return "\\"
    case UInt8(ascii: "/"): return "/"
    case UInt8(ascii: "b"): return "\u{08}"
    case UInt8(ascii: "f"): return "\u{0C}"
    case UInt8(ascii: "n"): return "\n"
    case UInt8(ascii: "r"): return "\r"
    case UInt8(ascii: "t"): return "\t"
    case UInt8(ascii: "u"):
      let unit = try hexUnit(escapeStart: start)
      switch unit {
      case 0xD800...0xDBFF:
        let low = position
        guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"),
          bytes[position + 1] == UInt8(ascii: "u")
        else { throw failure("a high surrogate must be followed by a \\u low surrogate", at: start) }
        position += 2
        let second = try hexUnit(escapeStart: low)
        guard (0xDC00...0xDFFF).contains(second) else {
          throw failure("a high surrogate must be followed by a low surrogate", at: low)
        }
        return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (second - 0xDC00))!
      case 0xDC00...0xDFFF:
        throw failure("a low surrogate without a high surrogate before it", at: start)
      default:
        return Unicode.Scalar(unit)!
      }
    default:
      throw failure("unknown escape: a backslash before \(Self.describe(byte))", at: start)
    }
  }

  private mutating func hexUnit(escapeStart: Int) throws(JSONParseError) -> UInt32 {
    guard bytes.count - position >= 4 else { throw failure("\\u needs four hexadecimal digits", at: escapeStart) }
    var unit: UInt32 = 0
    for byte in bytes[position..<position + 4] {
      guard let digit = Self.hexDigit(byte) else {
        throw failure("\\u needs four hexadecimal digits", at: escapeStart)
      }
      unit = unit << 4 | digit
    }
    position += 4
    return unit
  }

  private static func hexDigit(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
  }

  /// A byte for a message: `'x'`, or `byte 0x1f` for one that does not print.
  private static func describe(_ byte: UInt8) -> String {
    guard byte >= 0x21, byte < 0x7F else { return "byte " + byte.hexadecimal() }
    return "'\(String(UnicodeScalar(byte)))'"
  }
}
