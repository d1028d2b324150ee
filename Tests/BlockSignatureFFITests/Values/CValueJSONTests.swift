import BlockSignature
import BlockSignatureFFI
import Foundation
import Testing

/// `CValue`'s JSON form: `blocksig call`'s syntax, written by `Codable` and read back as a type.
@Suite struct CValueJSONTests {
  static func json(_ value: CValue) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  static func decode(_ text: String) throws -> CValue {
    try JSONDecoder().decode(CValue.self, from: Data(text.utf8))
  }

  @Test(
    arguments: zip(
      [
        CValue.signed(-5), .unsigned(7), .signed(.min), .unsigned(.max), .bool(true), .double(0.5), .float(.infinity),
        .double(-.infinity), .double(.nan), .pointer(0x10), .string("é\n"), .string(nil), .void,
        .aggregate([.signed(1), .aggregate([])]), .union(member: 1, value: .float(2.5)),
        .complex(real: .double(1), imaginary: .double(-1)),
      ],
      [
        "-5", "7", #""-170141183460469231731687303715884105728""#, #""340282366920938463463374607431768211455""#,
        "true", "0.5", #""inf""#, #""-inf""#, #""nan""#, "16", #""é\n""#, "null", "null", "[1,[]]",
        #"{"member":1,"value":2.5}"#, "[1,-1]",
      ]))
  func encodesInTheCallSyntax(_ value: CValue, _ expected: String) throws {
    #expect(try Self.json(value) == expected)
  }

  /// Values of every kind, written and read back through their type.
  @Test(
    arguments: zip(
      ["q", "Q", "t", "T", "B", "f", "d", "d", "^v", "*", "*", "{?=c[2s](?=if)}", "jd", "D", "D"],
      [
        CValue.signed(-42), .unsigned(.max), .signed(.min), .unsigned(UInt128(1) << 100), .bool(false),
        .float(0.1), .double(-.infinity), .double(1e300), .pointer(0xdead_beef), .string("text"), .string(nil),
        .aggregate([.signed(-1), .aggregate([.signed(2), .signed(3)]), .union(member: 1, value: .float(0.25))]),
        .complex(real: .double(0.5), imaginary: .double(-2)), .longDouble(1) / 3, .longDouble(2.5),
      ]))
  func roundTripsThroughItsType(_ encoding: String, _ value: CValue) throws {
    let type = try TypeEncoding(parsing: encoding)
    let text = try Self.json(value)
    let back = try Self.decode(text).converted(to: type)
    #expect(back == value, "\(text)")
  }

  @Test func readsWhatBlocksigCallTakes() throws {
    let type = try TypeEncoding(parsing: "{?=iQdf*^v(?=ic)jf}")
    let text = #"[-3, "0xffffffffffffffff", 2, "nan", null, "0x1000", {"member": 1, "value": 65}, [1.5, 2]]"#
    let value = try Self.decode(text).converted(to: type)
    guard case .aggregate(let members) = value, members.count == 8 else {
      Issue.record("\(value)")
      return
    }
    #expect(members[0] == .signed(-3))
    #expect(members[1] == .unsigned(UInt128(UInt64.max)))
    #expect(members[2] == .double(2))
    guard case .float(let notANumber) = members[3] else {
      Issue.record("\(members[3])")
      return
    }
    #expect(notANumber.isNaN)
    #expect(members[4] == .string(nil))
    #expect(members[5] == .pointer(0x1000))
    #expect(members[6] == .union(member: 1, value: .signed(65)))
    #expect(members[7] == .complex(real: .float(1.5), imaginary: .float(2)))
  }

  @Test func aValueOfTheWrongKindNamesWhereItIs() throws {
    let type = try TypeEncoding(parsing: "{?=i[2d]}")
    let error = try #require(throws: InvocationError.self) {
      try Self.decode(#"[1, [2, "two"]]"#).converted(to: type)
    }
    #expect(error.kind == .typeMismatch)
    #expect(error.path == ["member 1", "element 1"])
    #expect(throws: DecodingError.self) { try Self.decode(#"{"value": 1}"#) }
  }
}

extension CValue {
  /// `long double` arithmetic for test values.
  fileprivate static func / (value: CValue, divisor: Float80) -> CValue {
    guard case .longDouble(let x) = value else { return value }
    return .longDouble(x / divisor)
  }
}
