// Reading a type-free value as a C type: which number kind, whether null is a NULL pointer or a
// NULL string, what a string of digits means. One walk over the type's shape reads both kinds
// of type-free value: a `CValue` (as `Codable` decodes one) and a JSON value with each number's
// text (as `CValue(json:as:model:)` parses one).

import BlockSignature

extension CValue {
  /// The value read as a value of `type` on `model` (the host's by default), in the form a
  /// call returns for that type: a number becomes the type's kind (an integer given for a
  /// `double` becomes ``double(_:)``, one given for a signed type ``signed(_:)``), a string of
  /// decimal or `0x` hexadecimal digits an integer, `"inf"`, `"-inf"` and `"nan"` floating
  /// point, null a NULL pointer or string, a two-member array a `_Complex` value; structures,
  /// arrays and unions member by member.
  ///
  ///     try CValue.aggregate([.string("0xff"), .string("-inf")]).converted(to: TypeEncoding(parsing: "{?=Qf}"))
  ///     // .aggregate([.unsigned(255), .float(-.infinity)])
  ///
  /// A string of decimal digits is also read for a floating-point type, at the type's
  /// precision: what ``encode(to:)`` writes for a `long double` that a `double` does not hold.
  /// Ranges are checked where the value is used (a call, ``store(as:to:model:)``), against the
  /// exact type.
  ///
  /// - Throws: ``InvocationError``: ``InvocationError/Kind/unsupportedType`` for a type whose
  ///   layout the encoding does not decide, ``InvocationError/Kind/typeMismatch`` with the path
  ///   of a part that is not of its type's kind.
  public func converted(to type: TypeEncoding, model: DataModel? = .host) throws(InvocationError) -> CValue {
    try Self.read(self, as: type, model: model)
  }

  /// `value` read as `type` by the typed walk.
  static func read(_ value: some TypeFreeValue, as type: TypeEncoding, model: DataModel?) throws(InvocationError)
    -> CValue
  {
    guard let model else {
      throw InvocationError(kind: .unsupportedType, message: "no data model describes this machine")
    }
    let shape: ValueShape
    do {
      shape = try ValueShape(type, model: model)
    } catch {
      throw InvocationError(kind: .unsupportedType, path: error.path, message: error.message)
    }
    do throws(ValueError) {
      return try shape.convert(value, type: type, model: model, path: [])
    } catch {
      throw InvocationError(kind: error.kind, path: error.path, message: error.message)
    }
  }

  /// A string of decimal or `0x` hexadecimal digits, with an optional `-`: the sign and the
  /// magnitude (nil when over 128 bits), or nil when the text is not an integer.
  static func integerDigits(_ text: some StringProtocol) -> (isNegative: Bool, magnitude: UInt128?)? {
    var digits = Substring(text)
    let isNegative = digits.first == "-"
    if isNegative { digits = digits.dropFirst() }
    var radix: UInt128 = 10
    if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
      radix = 16
      digits = digits.dropFirst(2)
    }
    guard !digits.isEmpty else { return nil }
    var magnitude: UInt128? = 0
    for character in digits {
      guard let digit = character.hexDigitValue, UInt128(digit) < radix else { return nil }
      if let value = magnitude {
        let (shifted, overflow) = value.multipliedReportingOverflow(by: radix)
        let (sum, carry) = shifted.addingReportingOverflow(UInt128(digit))
        magnitude = overflow || carry ? nil : sum
      }
    }
    return (isNegative, magnitude)
  }

  /// The integer a string of digits stands for: ``unsigned(_:)`` when not negative; nil when it
  /// is not one or needs more than 128 bits.
  static func integer(parsing text: some StringProtocol) -> CValue? {
    guard let (isNegative, magnitude) = integerDigits(text), let magnitude else { return nil }
    guard isNegative else { return .unsigned(magnitude) }
    guard magnitude <= UInt128(1) << 127 else { return nil }
    return .signed(magnitude == UInt128(1) << 127 ? .min : -Int128(magnitude))
  }
}

/// What the typed walk sees of one part of a type-free value.
enum TypeFreeReading<Value> {
  case null
  /// A JSON `true` or `false` (a `CValue`'s `_Bool` is ``scalar(_:)``).
  case boolean(Bool)
  /// An integer, exact: ``CValue/signed(_:)`` or ``CValue/unsigned(_:)``.
  case integer(CValue)
  /// A JSON number that is no integer of 128 bits or fewer, as written (`1.5`, `1e400`).
  case number(String)
  case string(String)
  /// A value of a C type already: a `_Bool`, floating point or a pointer.
  case scalar(CValue)
  /// A JSON array or a structure's members.
  case list([Value])
  case complex(real: Value, imaginary: Value)
  /// `{"member": K, "value": V}`; `member` is nil when K is no member index.
  case union(member: Int?, memberText: String, value: Value)
  /// Anything else (an object that is not a union's).
  case other
}

/// A value without a C type that the typed walk reads: a ``CValue`` or a `JSONValue`.
protocol TypeFreeValue {
  /// The part as the walk sees it.
  var reading: TypeFreeReading<Self> { get }
  /// What kind of value it is, for a message: "a number", "an array".
  var kindPhrase: String { get }
  /// The value as a message quotes it, shortened when long.
  var quotedText: String { get }
  /// Whether a string of decimal digits is a number for `shape` (a floating-point type).
  static func readsDecimalString(for shape: ValueShape) -> Bool
}

extension CValue: TypeFreeValue {
  var reading: TypeFreeReading<CValue> {
    switch self {
    case .void, .string(nil): .null
    case .signed, .unsigned: .integer(self)
    case .string(let text?): .string(text)
    case .aggregate(let members): .list(members)
    case .complex(let real, let imaginary): .complex(real: real, imaginary: imaginary)
    case .union(let member, let value): .union(member: member, memberText: String(member), value: value)
    default: .scalar(self)
    }
  }

  var kindPhrase: String {
    switch self {
    case .void, .string(nil): "null"
    case .signed, .unsigned: "an integer"
    case .aggregate: "an aggregate"
    case .union: "a union value"
    default: "a " + kindName
    }
  }

  var quotedText: String { shortened(description) }

  static func readsDecimalString(for shape: ValueShape) -> Bool { true }
}

extension JSONValue: TypeFreeValue {
  var reading: TypeFreeReading<JSONValue> {
    switch self {
    case .null: return .null
    case .bool(let flag): return .boolean(flag)
    case .number(let text):
      guard !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }),
        let number = CValue.integer(parsing: text)
      else { return .number(text) }
      return .integer(number)
    case .string(let text): return .string(text)
    case .array(let elements): return .list(elements)
    case .object(let members):
      guard members.count == 2, let member = members.first(where: { $0.key == "member" })?.value,
        let value = members.first(where: { $0.key == "value" })?.value
      else { return .other }
      var index: Int?
      if case .number(let text) = member { index = Int(text) }
      return .union(member: index, memberText: shortened(member.compact), value: value)
    }
  }

  var kindPhrase: String { kindName }

  var quotedText: String { shortened(compact) }

  /// Only for a `long double`, which ``CValue/encode(to:)`` may write as a string of digits:
  /// elsewhere a string is no number (`"1.5"` for a `double` is refused).
  static func readsDecimalString(for shape: ValueShape) -> Bool {
    if case .longDouble = shape { return true }
    return false
  }
}

extension ValueShape {
  /// `value` in the form a load of this shape gives; `type` is the encoding the shape was made
  /// from, for the names in messages.
  func convert<Value: TypeFreeValue>(_ value: Value, type: TypeEncoding, model: DataModel, path: [String])
    throws(ValueError) -> CValue
  {
    let type = Self.withoutAtomic(type)
    let name = type.cDeclaration(for: model)
    func mismatch(_ message: String) -> ValueError { ValueError(path, .typeMismatch, message) }
    switch self {
    case .empty:
      guard case .null = value.reading else { throw mismatch("expected null for void, got \(value.kindPhrase)") }
      return .void
    case .integer(_, let isSigned, _):
      return Self.signedness(try Self.integer(value, name: name, path: path), isSigned: isSigned)
    case .bitfield(_, _, let isSigned):
      return Self.signedness(try Self.integer(value, name: "a bitfield", path: path), isSigned: isSigned)
    case .bool:
      switch value.reading {
      case .boolean(let flag), .scalar(.bool(let flag)): return .bool(flag)
      case .integer(.signed(0)), .integer(.unsigned(0)): return .bool(false)
      case .integer(.signed(1)), .integer(.unsigned(1)): return .bool(true)
      case .integer, .number: throw mismatch("expected true or false for _Bool, got \(value.quotedText)")
      default: throw mismatch("expected true or false for _Bool, got \(value.kindPhrase)")
      }
    case .float:
      return .float(try floatingPoint(value, name: name, path: path))
    case .double:
      return .double(try floatingPoint(value, name: name, path: path))
    case .longDouble:
      #if arch(x86_64) || arch(i386)
        return .longDouble(try floatingPoint(value, name: name, path: path))
      #else
        throw ValueError(path, .unsupportedType, "long double has no Swift type here")
      #endif
    case .complex(let element, _):
      let parts: (Value, Value)
      switch value.reading {
      case .complex(let real, let imaginary): parts = (real, imaginary)
      case .list(let pair) where pair.count == 2: parts = (pair[0], pair[1])
      default: throw mismatch("expected [real, imaginary] for \(name), got \(value.kindPhrase)")
      }
      let elementType = if case .complex(let inner) = type.unqualified { inner } else { type }
      return .complex(
        real: try element.convert(parts.0, type: elementType, model: model, path: path + ["real part"]),
        imaginary: try element.convert(parts.1, type: elementType, model: model, path: path + ["imaginary part"]))
    case .pointer(let isCString):
      return try Self.pointer(value, isCString: isCString, name: name, path: path)
    case .record(_, let members):
      guard case .list(let values) = value.reading else {
        throw mismatch("expected an array of its \(members.count) members for \(name), got \(value.kindPhrase)")
      }
      guard values.count == members.count else {
        throw mismatch("expected \(members.count) members for \(name), got \(values.count)")
      }
      let fields = Self.fields(of: type)
      var converted: [CValue] = []
      for (index, (member, item)) in zip(members, values).enumerated() {
        converted.append(
          try member.shape.convert(
            item, type: fields?[index].type ?? type, model: model, path: path + ["member \(index)"]))
      }
      return .aggregate(converted)
    case .array(let count, _, let element):
      guard case .list(let values) = value.reading else {
        throw mismatch("expected an array of \(count) elements for \(name), got \(value.kindPhrase)")
      }
      guard values.count == count else { throw mismatch("expected \(count) elements for \(name), got \(values.count)") }
      let elementType = if case .array(_, let inner) = type.unqualified { inner } else { type }
      var converted: [CValue] = []
      for (index, item) in values.enumerated() {
        converted.append(try element.convert(item, type: elementType, model: model, path: path + ["element \(index)"]))
      }
      return .aggregate(converted)
    case .union(_, let members):
      guard case .union(let member, let memberText, let inner) = value.reading else {
        throw mismatch("expected {\"member\": K, \"value\": V} for \(name), got \(value.quotedText)")
      }
      guard let member else { throw mismatch("the union's \"member\" must be a member index, got \(memberText)") }
      guard members.indices.contains(member) else {
        throw ValueError(path, .outOfRange, "\(name) has \(members.count) members; there is no member \(member)")
      }
      return .union(
        member: member,
        value: try members[member].convert(
          inner, type: Self.fields(of: type)?[member].type ?? type, model: model, path: path + ["member \(member)"]))
    }
  }

  /// `type` without its qualifiers' `_Atomic` layers (the shape of `_Atomic int` is an `int`'s).
  private static func withoutAtomic(_ type: TypeEncoding) -> TypeEncoding {
    var type = type
    while case .atomic(let inner) = type.unqualified { type = inner }
    return type
  }

  private static func fields(of type: TypeEncoding) -> [TypeEncoding.Field]? {
    switch type.unqualified {
    case .structure(_, let fields?), .union(_, let fields?): fields
    default: nil
    }
  }

  /// An integer in the form a load of a signed or unsigned type gives, when it fits that form
  /// (one that does not is refused by the range check where it is used).
  private static func signedness(_ value: CValue, isSigned: Bool) -> CValue {
    switch value {
    case .unsigned(let number) where isSigned && number <= UInt128(Int128.max): .signed(Int128(number))
    case .signed(let number) where !isSigned && number >= 0: .unsigned(UInt128(number))
    default: value
    }
  }

  /// An integer from an integer, a `_Bool`, or a number or string of decimal or `0x`
  /// hexadecimal digits (either with a leading `-`): exact at any width up to 128 bits.
  private static func integer(_ value: some TypeFreeValue, name: String, path: [String]) throws(ValueError) -> CValue {
    let text: String
    switch value.reading {
    case .integer(let number): return number
    case .scalar(.bool(let flag)): return .unsigned(flag ? 1 : 0)
    case .number(let number): text = number
    case .string(let string): text = string
    default: throw ValueError(path, .typeMismatch, "expected an integer for \(name), got \(value.kindPhrase)")
    }
    guard let (_, magnitude) = CValue.integerDigits(text) else {
      throw ValueError(
        path, .typeMismatch,
        "expected an integer for \(name), got \(value.quotedText) (write decimal digits, or a string of decimal or 0x hexadecimal digits)"
      )
    }
    guard magnitude != nil, let number = CValue.integer(parsing: text) else {
      throw ValueError(path, .outOfRange, "\(shortened(text)) does not fit \(name) (more than 128 bits)")
    }
    return number
  }

  /// A floating-point value from a number (a JSON number read from its text at the type's
  /// precision, so with no double rounding) or the strings `"inf"`, `"-inf"`, `"nan"`.
  private func floatingPoint<F: BinaryFloatingPoint & LosslessStringConvertible, Value: TypeFreeValue>(
    _ value: Value, name: String, path: [String]
  ) throws(ValueError) -> F {
    func parsed(_ text: String) throws(ValueError) -> F {
      guard let number = F(text) else { throw ValueError(path, .typeMismatch, "\(shortened(text)) is not a number") }
      return try finite(number, text)
    }
    func finite(_ number: F, _ text: @autoclosure () -> String) throws(ValueError) -> F {
      guard number.isFinite else {
        throw ValueError(path, .outOfRange, "\(shortened(text())) does not fit \(name) (its magnitude is too large)")
      }
      return number
    }
    switch value.reading {
    case .number(let text): return try parsed(text)
    case .integer(.signed(let number)): return try finite(F(number), String(number))
    case .integer(.unsigned(let number)): return try finite(F(number), String(number))
    case .scalar(.float(let number)): return F(number)
    case .scalar(.double(let number)): return F(number)
    #if arch(x86_64) || arch(i386)
      case .scalar(.longDouble(let number)): return F(number)
    #endif
    case .string("inf"), .string("+inf"): return .infinity
    case .string("-inf"): return -.infinity
    case .string("nan"): return .nan
    case .string(let text) where Value.readsDecimalString(for: self) && F(text) != nil: return try parsed(text)
    default:
      throw ValueError(
        path, .typeMismatch, "expected a number (or \"inf\", \"-inf\", \"nan\") for \(name), got \(value.quotedText)")
    }
  }

  /// A pointer from an address (an integer, as a number or a string of digits) or null; for
  /// `char *` also a string.
  private static func pointer(_ value: some TypeFreeValue, isCString: Bool, name: String, path: [String])
    throws(ValueError) -> CValue
  {
    switch value.reading {
    case .null: return isCString ? .string(nil) : .pointer(0)
    case .scalar(.pointer(let address)): return .pointer(address)
    case .string(let text) where isCString: return .string(text)
    case .integer, .number, .string:
      let address = signedness(try integer(value, name: name, path: path), isSigned: false)
      guard case .unsigned(let number) = address, number <= UInt128(UInt.max) else {
        throw ValueError(path, .outOfRange, "\(value.quotedText) is not an address (0...\(UInt.max)) for \(name)")
      }
      return .pointer(UInt(number))
    default:
      let expected = isCString ? "a string, an address or null" : "an address (an integer) or null"
      throw ValueError(path, .typeMismatch, "expected \(expected) for \(name), got \(value.kindPhrase)")
    }
  }
}
