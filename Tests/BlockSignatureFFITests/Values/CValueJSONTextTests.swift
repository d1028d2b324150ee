import BlockSignature
import BlockSignatureFFI
import Foundation
import Testing

/// `CValue`'s JSON text: `CValue(json:as:model:)`, `CValue(json:)` and `jsonText`, the syntax
/// `blocksig call` takes and prints, and its agreement with `Codable`.
@Suite struct CValueJSONTextTests {
  static func read(_ text: String, _ encoding: String) throws -> CValue {
    try CValue(json: text, as: TypeEncoding(parsing: encoding))
  }

  static func refusal(_ text: String, _ encoding: String) throws -> InvocationError {
    let type = try TypeEncoding(parsing: encoding)
    return try #require(throws: InvocationError.self) { try CValue(json: text, as: type) }
  }

  /// Text of every type family, read as its type and written back unchanged.
  @Test(arguments: [
    ("q", "-42"), ("i", "2147483647"), ("Q", "18446744073709551615"),
    ("t", "-170141183460469231731687303715884105728"), ("T", "340282366920938463463374607431768211455"),
    ("T", "18446744073709551616"), ("B", "true"), ("f", "0.1"), ("d", "0.30000000000000004"), ("d", "1e+300"),
    ("D", "0.1"), ("d", #""inf""#), ("f", #""-inf""#), ("D", #""nan""#),
    ("*", #""h\u00e9\n""#), ("*", "null"), ("^v", "0"), ("@", "4096"), ("jd", "[1.5, -2.0]"), ("jf", #"[0.5, "nan"]"#),
    ("(?=id)", #"{"member": 1, "value": 2.5}"#), ("{?=c[2s](?=if)}", #"[-1, [2, 3], {"member": 1, "value": 0.25}]"#),
    ("{?=i{?=dd}[2{?=*q}]}", #"[1, [0.5, -0.5], [["a", 2], [null, -3]]]"#), ("{?=iD}", "[7, 0.1]"),
  ])
  func textRoundTrips(_ encoding: String, _ text: String) throws {
    let value = try Self.read(text, encoding)
    let written = value.jsonText
    #expect(written == text.replacingOccurrences(of: #"\u00e9"#, with: "é"), "\(value)")
    #expect(try Self.read(written, encoding).jsonText == written)
  }

  /// Each number is read from its text at its type's width, not through `Double`.
  @Test func numbersAreReadFromTheirText() throws {
    #expect(try Self.read("0.1", "f") == .float(Float("0.1")!))
    // Just above halfway between 1 and the next float: through a double it would be 1.
    let halfwayAndMore = "1.0000000596046447753906250001"
    #expect(try Self.read(halfwayAndMore, "f") == .float(Float(halfwayAndMore)!))
    #expect(Float(halfwayAndMore)! != Float(Double(halfwayAndMore)!))
    #expect(try Self.read("0.1", "D") == .longDouble(Float80("0.1")!))
    #expect(Float80("0.1")! != Float80(0.1 as Double))
    let third = Float80(1) / 3
    #expect(try Self.read(CValue.longDouble(third).jsonText, "D") == .longDouble(third))
    #expect(try Self.read("-170141183460469231731687303715884105728", "t") == .signed(.min))
    #expect(try Self.read(#""0xffffffffffffffffffffffffffffffff""#, "T") == .unsigned(.max))
    // An integer is read in the form a call returns for its type.
    #expect(try Self.read("5", "i") == .signed(5))
    #expect(try Self.read("5", "I") == .unsigned(5))
    #expect(try Self.read("7", "d") == .double(7))
    #expect(try Self.read("1", "B") == .bool(true))
    #expect(try Self.read(#""0x10""#, "^v") == .pointer(16))
    #expect(try Self.read("12", "*") == .pointer(12))
    #expect(try Self.read(#""12""#, "*") == .string("12"))
  }

  @Test func bytesReadAsText() throws {
    let type = try TypeEncoding(parsing: "jd")
    #expect(try CValue(json: Array("[1.5, -2]".utf8), as: type) == .complex(real: .double(1.5), imaginary: .double(-2)))
    #expect(try CValue(json: Data(#""é""#.utf8), as: TypeEncoding(parsing: "*")) == .string("é"))
  }

  /// A part of the wrong kind is refused with its path and what was expected, in the words
  /// `blocksig call` prints after `argument N`.
  @Test(arguments: [
    (
      "{?=i[2d]}", #"[1, [2, "two"]]"#, ["member 1", "element 1"], InvocationError.Kind.typeMismatch,
      #"expected a number (or "inf", "-inf", "nan") for double, got "two""#
    ),
    ("i", "1.5", [], .typeMismatch, "expected an integer for int, got 1.5 (write decimal digits"),
    ("i", "true", [], .typeMismatch, "expected an integer for int, got a boolean"),
    ("*", "[1]", [], .typeMismatch, "expected a string, an address or null for char *, got an array"),
    ("r*", "{}", [], .typeMismatch, "expected a string, an address or null for const char *, got an object"),
    ("{P=dd}", "[1]", [], .typeMismatch, "expected 2 members for struct P, got 1"),
    ("{P=dd}", "1", [], .typeMismatch, "expected an array of its 2 members for struct P, got a number"),
    ("{?=[4i]}", "[[1]]", ["member 0"], .typeMismatch, "expected 4 elements for int[4], got 1"),
    ("(U=if)", "[1]", [], .typeMismatch, #"expected {"member": K, "value": V} for union U, got [1]"#),
    ("(U=if)", #"{"member": 2, "value": 1}"#, [], .outOfRange, "union U has 2 members; there is no member 2"),
    ("(U=if)", #"{"member": "a", "value": 1}"#, [], .typeMismatch, #"the union's "member" must be a member index"#),
    (
      "{?=(U=if)}", #"[{"member": 1, "value": "x"}]"#, ["member 0", "member 1"], .typeMismatch,
      "for float, got \"x\""
    ),
    ("jd", "[1]", [], .typeMismatch, "expected [real, imaginary] for _Complex double, got an array"),
    ("jd", #"[1, null]"#, ["imaginary part"], .typeMismatch, "for double, got null"),
    ("d", #""1.5""#, [], .typeMismatch, #"expected a number (or "inf", "-inf", "nan") for double, got "1.5""#),
    ("B", "2", [], .typeMismatch, "expected true or false for _Bool, got 2"),
    ("^v", #""-0x1""#, [], .outOfRange, #""-0x1" is not an address"#),
    ("^v", "[]", [], .typeMismatch, "expected an address (an integer) or null for void *, got an array"),
    ("T", "340282366920938463463374607431768211456", [], .outOfRange, "does not fit unsigned __int128 (more than 128"),
    ("f", "1e39", [], .outOfRange, "1e39 does not fit float (its magnitude is too large)"),
    ("v", "1", [], .typeMismatch, "expected null for void, got a number"),
  ])
  func mismatchesNameTheirPath(
    _ encoding: String, _ text: String, _ path: [String], _ kind: InvocationError.Kind, _ reason: String
  ) throws {
    let error = try Self.refusal(text, encoding)
    #expect(error.kind == kind, "\(error)")
    #expect(error.path == path, "\(error)")
    #expect(error.argument == nil)
    #expect(error.message.hasPrefix(reason) || error.message.contains(reason), "\(error.message)")
  }

  /// Malformed text is refused with the byte where it stops making sense; nesting deeper than
  /// 64 levels is refused before it is read, at any depth, typed or not.
  @Test func malformedAndDeepTextIsRefused() throws {
    let malformed = try Self.refusal("[1,", "{?=ii}")
    #expect(malformed.kind == .typeMismatch)
    #expect(malformed.message == "malformed JSON at byte 3: expected a value, found the end of the text")
    for depth in [65, 1_000_000] {
      let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
      let error = try Self.refusal(deep, "{?=ii}")
      #expect(error.message == "malformed JSON at byte 64: nested deeper than 64 levels")
      #expect(throws: InvocationError.self) { try CValue(json: deep) }
    }
    let deepest = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
    #expect(try CValue(json: deepest) != .void)
    let huge = "[" + Array(repeating: "1", count: 100_000).joined(separator: ",") + "]"
    let tooMany = try Self.refusal(huge, "{P=ii}")
    #expect(tooMany.message == "expected 2 members for struct P, got 100000")
    let long = "\"" + String(repeating: "x", count: 100_000) + "\""
    #expect(try Self.refusal(long, "i").message.utf8.count < 400)
    #expect(throws: InvocationError.self) { try CValue(json: [0x5B, 0xFF, 0x5D], as: TypeEncoding(parsing: "{?=i}")) }
  }

  /// The type-free reading is what `Codable` decodes.
  @Test(arguments: [
    "null", "true", "-5", "7", "18446744073709551615", "0.5", "-1e300", #""inf""#, #""é""#, "[1, [2, null], []]",
    #"{"member": 1, "value": [1.5, "x"]}"#,
  ])
  func typeFreeReadingIsCodables(_ text: String) throws {
    #expect(try CValue(json: text) == JSONDecoder().decode(CValue.self, from: Data(text.utf8)))
  }

  @Test func typeFreeReadingKeepsWideIntegers() throws {
    #expect(try CValue(json: "-170141183460469231731687303715884105728") == .signed(.min))
    #expect(try CValue(json: "340282366920938463463374607431768211455") == .unsigned(.max))
    #expect(throws: InvocationError.self) { try CValue(json: #"{"member": 0, "value": 1, "x": 2}"#) }
  }

  /// What `Codable` writes reads back as the value through its type, and `jsonText` read by
  /// `JSONDecoder` too, where no JSON reader rounds (integers within 64 bits, a `long double`
  /// a `double` holds).
  @Test(arguments: [
    ("q", CValue.signed(-42)), ("Q", .unsigned(UInt128(UInt64.max))), ("t", .signed(.min)),
    ("T", .unsigned(UInt128(1) << 100)), ("B", .bool(false)), ("f", .float(0.1)), ("d", .double(-.infinity)),
    ("d", .double(1e300)), ("^v", .pointer(0xdead_beef)), ("*", .string("text")), ("*", .string(nil)),
    (
      "{?=c[2s](?=if)}",
      .aggregate([.signed(-1), .aggregate([.signed(2), .signed(3)]), .union(member: 1, value: .float(0.25))])
    ),
    ("jd", .complex(real: .double(0.5), imaginary: .double(-2))), ("D", .longDouble(Float80(1) / 3)),
    ("D", .longDouble(2.5)), ("jf", .complex(real: .float(.nan), imaginary: .float(1))),
  ])
  func codableAgreesWithTheText(_ encoding: String, _ value: CValue) throws {
    let type = try TypeEncoding(parsing: encoding)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let encoded = String(decoding: try encoder.encode(value), as: UTF8.self)
    #expect(try CValue(json: encoded, as: type).jsonText == value.jsonText, "\(encoded)")
    #expect(try CValue(json: value.jsonText, as: type).jsonText == value.jsonText)
    let wide: Bool
    switch value {
    case .signed(let number): wide = Int64(exactly: number) == nil
    case .unsigned(let number): wide = UInt64(exactly: number) == nil
    case .longDouble(let number): wide = Double(exactly: number) == nil
    default: wide = false
    }
    if !wide {
      let decoded = try JSONDecoder().decode(CValue.self, from: Data(value.jsonText.utf8))
      #expect(try decoded.converted(to: type).jsonText == value.jsonText)
    }
  }

  /// The examples in the documentation comments and the catalog's "Values as JSON".
  @Test func documentedExamples() throws {
    let catalog = #"[-170141183460469231731687303715884105728, [0.1, "inf"], {"member": 1, "value": 0.1}]"#
    #expect(try Self.read(catalog, "{?=t[2f](?=iD)}").jsonText == catalog)
    #expect(try Self.read("0.1", "f") == .float(0.1))
    #expect(
      try Self.read(#"[1, {"member": 1, "value": "-inf"}]"#, "{?=i(?=id)}")
        == .aggregate([.signed(1), .union(member: 1, value: .double(-.infinity))]))
    #expect(try CValue(json: #"[1, "inf", null]"#) == .aggregate([.signed(1), .string("inf"), .void]))
    #expect(
      CValue.aggregate([.signed(-1), .float(0.1), .union(member: 1, value: .string(nil))]).jsonText
        == #"[-1, 0.1, {"member": 1, "value": null}]"#)
    #expect(
      try CValue.aggregate([.string("0xff"), .string("-inf")]).converted(to: TypeEncoding(parsing: "{?=Qf}"))
        == .aggregate([.unsigned(255), .float(-.infinity)]))
  }
}
