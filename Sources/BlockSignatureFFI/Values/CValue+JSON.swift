// The JSON text of a value: the syntax `blocksig call` takes for arguments and prints for
// results, read from UTF-8 bytes with each number's exact text and written back the same way.

import BlockSignature

extension CValue {
  /// Reads `json`, a value in `blocksig call`'s syntax, as a value of `type` on `model` (the
  /// host's by default).
  ///
  ///     try CValue(json: "0.1", as: TypeEncoding(parsing: "f"))  // .float(0.1), Float("0.1") exactly
  ///     try CValue(json: #"[1, {"member": 1, "value": "-inf"}]"#, as: TypeEncoding(parsing: "{?=i(?=id)}"))
  ///     // .aggregate([.signed(1), .union(member: 1, value: .double(-.infinity))])
  ///
  /// Each number is read from its text at the width of its type, with no rounding through
  /// `Double`: an integer of up to 128 bits, a `float`, a `long double`. The syntax, by type:
  ///
  /// - An integer or enum: a number, or a string of decimal or `0x` hexadecimal digits (either
  ///   with a leading `-`).
  /// - `_Bool`: `true` or `false` (1 and 0 accepted).
  /// - `float`, `double`, `long double`: a number, or `"inf"`, `"-inf"`, `"nan"`; a
  ///   `long double` also as a string of decimal digits, as ``encode(to:)`` writes one.
  /// - `_Complex T`: `[real, imaginary]`.
  /// - `char *`: a string, null, or an address (a number).
  /// - Other pointers, objects, blocks, selectors: an address (an integer as above), or null.
  /// - A structure: an array of its members in order, an array member as an array of its
  ///   elements.
  /// - A union: `{"member": K, "value": V}`, V for member K (from 0).
  ///
  /// Arrays and objects may nest 64 levels deep. Ranges are checked where the value is used
  /// (a call, ``store(as:to:model:)``), against the exact type.
  ///
  /// - Throws: ``InvocationError``: ``InvocationError/Kind/typeMismatch`` for text that is not
  ///   JSON (its message starts `malformed JSON at byte N:`) or a part that is not of its type's
  ///   kind, ``InvocationError/Kind/outOfRange`` for a number no type of its kind holds,
  ///   ``InvocationError/Kind/unsupportedType`` for a type whose layout the encoding does not
  ///   decide; each with the path of the part (`member 1`, `element 0`).
  public init(json: some StringProtocol, as type: TypeEncoding, model: DataModel? = .host) throws(InvocationError) {
    self = try Self.read(try Self.parse(Array(json.utf8)), as: type, model: model)
  }

  /// Reads `json`, the UTF-8 bytes of a value in `blocksig call`'s syntax, as a value of
  /// `type` on `model`, as `CValue(json:as:model:)` reads text.
  ///
  ///     try CValue(json: Array("[1.5, -2]".utf8), as: TypeEncoding(parsing: "jd"))
  ///     // .complex(real: .double(1.5), imaginary: .double(-2))
  ///
  /// - Throws: ``InvocationError`` as the text form throws it.
  public init(json: some Collection<UInt8>, as type: TypeEncoding, model: DataModel? = .host)
    throws(InvocationError)
  {
    self = try Self.read(try Self.parse(json), as: type, model: model)
  }

  /// Reads `json` without a type: null is ``void``, `true` and `false` ``bool(_:)``, an
  /// integer ``signed(_:)`` (``unsigned(_:)`` above `Int64.max`), another number
  /// ``double(_:)``, a string ``string(_:)``, an array ``aggregate(_:)``,
  /// `{"member": K, "value": V}` ``union(member:value:)``: what decoding with `Codable` gives.
  /// Read it as its C type with ``converted(to:model:)``, or read the text with
  /// `CValue(json:as:model:)`, which keeps every digit of a `float` or
  /// `long double`.
  ///
  ///     try CValue(json: #"[1, "inf", null]"#)  // .aggregate([.signed(1), .string("inf"), .void])
  ///
  /// - Throws: ``InvocationError`` with ``InvocationError/Kind/typeMismatch`` for text that is
  ///   not JSON, or an object that is not a union's.
  public init(json: some StringProtocol) throws(InvocationError) {
    self = try Self.typeFree(try Self.parse(Array(json.utf8)), path: [])
  }

  /// The value in `blocksig call`'s syntax, on one line: integers exact at any width, floating
  /// point as the shortest text that reads back the same (`"inf"`, `"-inf"`, `"nan"` as
  /// strings), a pointer as its address, `void` and a NULL string as null, a structure, array
  /// or `_Complex` value as an array, a union as its member and value.
  ///
  ///     CValue.aggregate([.signed(-1), .float(0.1), .union(member: 1, value: .string(nil))]).jsonText
  ///     // [-1, 0.1, {"member": 1, "value": null}]
  ///
  /// `CValue(json:as:model:)` reads it back as the same value of its type.
  /// It differs from what ``encode(to:)`` writes only where a JSON reader would round: an
  /// integer beyond 64 bits and a `long double` are numbers here, strings there.
  public var jsonText: String { jsonValue.compact }

  /// The value as a JSON value, each number with its exact text.
  package var jsonValue: JSONValue {
    switch self {
    case .void: .null
    case .signed(let number): .number(String(number))
    case .unsigned(let number): .number(String(number))
    case .bool(let flag): .bool(flag)
    case .float(let number): Self.jsonValue(number)
    case .double(let number): Self.jsonValue(number)
    #if arch(x86_64) || arch(i386)
      case .longDouble(let number): Self.jsonValue(number)
    #endif
    case .complex(let real, let imaginary): .array([real.jsonValue, imaginary.jsonValue])
    case .pointer(let address): .number(String(address))
    case .string(let text?): .string(text)
    case .string(nil): .null
    case .aggregate(let members): .array(members.map(\.jsonValue))
    case .union(let member, let value):
      .object([.init(key: "member", value: .number(String(member))), .init(key: "value", value: value.jsonValue)])
    }
  }

  private static func jsonValue(_ number: some BinaryFloatingPoint & CustomStringConvertible) -> JSONValue {
    if number.isNaN { return .string("nan") }
    if number.isInfinite { return .string(number < 0 ? "-inf" : "inf") }
    return .number(number.description)
  }

  private static func parse(_ bytes: some Collection<UInt8>) throws(InvocationError) -> JSONValue {
    do {
      return try JSONParser.parse(bytes: bytes)
    } catch {
      throw InvocationError(kind: .typeMismatch, message: error.description)
    }
  }

  /// The type-free reading of `json` (nested no deeper than the parser allows).
  private static func typeFree(_ json: JSONValue, path: [String]) throws(InvocationError) -> CValue {
    switch json.reading {
    case .null: return .void
    case .boolean(let flag): return .bool(flag)
    case .integer(.unsigned(let number)) where number <= UInt128(Int64.max): return .signed(Int128(number))
    case .integer(let number): return number
    case .number(let text): return .double(Double(text) ?? .nan)
    case .string(let text): return .string(text)
    case .list(let elements):
      var members: [CValue] = []
      for (index, element) in elements.enumerated() {
        members.append(try typeFree(element, path: path + ["element \(index)"]))
      }
      return .aggregate(members)
    case .union(let member?, _, let value):
      return .union(member: member, value: try typeFree(value, path: path + ["member \(member)"]))
    case .union(nil, let memberText, _):
      throw InvocationError(
        kind: .typeMismatch, path: path, message: "the union's \"member\" must be a member index, got \(memberText)")
    case .scalar, .complex, .other:
      throw InvocationError(
        kind: .typeMismatch, path: path,
        message: "expected {\"member\": K, \"value\": V} for a union, got \(json.quotedText)")
    }
  }
}
