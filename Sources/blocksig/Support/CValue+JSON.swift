import BlockSignature
import BlockSignatureFFI

/// `blocksig call`'s value syntax: JSON arguments made into ``CValue``s by the C type of each
/// parameter, and a ``CValue`` result written back as JSON in the same syntax.
///
///     try CValue(json: .number("0.5"), for: .primitive(.float), argument: 1, model: model)  // .float(0.5)
///     CValue.double(.infinity).json  // .string("inf")
extension CValue {
  /// The value `json` stands for as argument `argument` of C type `type`. Only the shape is
  /// checked here (an integer for an integer, two members for a two-member structure);
  /// ranges are checked by ``BlockInvocation/invoke(_:)`` against the exact type.
  ///
  /// - Throws: ``InvocationError`` naming the argument and the path inside it.
  init(json: JSONValue, for type: TypeEncoding, argument: Int, model: DataModel) throws(InvocationError) {
    do {
      self = try JSONConversion(model: model).value(json, type, inRecord: false, path: [])
    } catch {
      throw InvocationError(kind: error.kind, argument: argument, path: error.path, reason: error.reason)
    }
  }

  /// The value in the argument syntax: integers exact, floating point as Swift's shortest
  /// round-trip text (`"inf"`, `"-inf"`, `"nan"` as strings), a union as its member and value.
  var json: JSONValue {
    switch self {
    case .void: .null
    case .signed(let number): .number(String(number))
    case .unsigned(let number): .number(String(number))
    case .bool(let flag): .bool(flag)
    case .float(let number): Self.json(number)
    case .double(let number): Self.json(number)
    #if arch(x86_64) || arch(i386)
      case .longDouble(let number): Self.json(number)
    #endif
    case .complex(let real, let imaginary): .array([real.json, imaginary.json])
    case .pointer(let address): .number(String(address))
    case .string(let text?): .string(text)
    case .string(nil): .null
    case .aggregate(let members): .array(members.map(\.json))
    case .union(let member, let value):
      .object([.init(key: "member", value: .number(String(member))), .init(key: "value", value: value.json)])
    }
  }

  private static func json(_ number: some BinaryFloatingPoint & CustomStringConvertible) -> JSONValue {
    if number.isNaN { return .string("nan") }
    if number.isInfinite { return .string(number < 0 ? "-inf" : "inf") }
    return .number(number.description)
  }
}

/// Why a JSON value does not fit a type: the path inside the argument and the reason.
private struct ConversionError: Error {
  var kind: InvocationError.Kind
  var path: [String]
  var reason: String
}

/// The walk over a parameter's type that turns its JSON value into a ``CValue``.
private struct JSONConversion {
  let model: DataModel

  func value(_ json: JSONValue, _ type: TypeEncoding, inRecord: Bool, path: [String]) throws(ConversionError)
    -> CValue
  {
    let bare = type.unqualified
    let name = type.cDeclaration(for: model)
    func mismatch(_ expected: String) -> ConversionError {
      ConversionError(kind: .typeMismatch, path: path, reason: "expected \(expected) for \(name), got \(json.kindName)")
    }
    switch bare {
    case .primitive(let code):
      return try primitive(json, code, name: name, path: path)
    case .object, .block, .pointer:
      return .pointer(try address(json, name: name, path: path))
    case .array(let count, let element):
      // A parameter of array type is passed as a pointer to its first element.
      guard inRecord else { return .pointer(try address(json, name: name, path: path)) }
      guard case .array(let elements) = json else { throw mismatch("an array of \(count) elements") }
      guard elements.count == count else {
        throw ConversionError(
          kind: .typeMismatch, path: path, reason: "expected \(count) elements for \(name), got \(elements.count)")
      }
      var values: [CValue] = []
      for (index, item) in elements.enumerated() {
        values.append(try value(item, element, inRecord: true, path: path + ["element \(index)"]))
      }
      return .aggregate(values)
    case .structure(_, let fields?):
      guard case .array(let members) = json else { throw mismatch("an array of its \(fields.count) members") }
      guard members.count == fields.count else {
        throw ConversionError(
          kind: .typeMismatch, path: path, reason: "expected \(fields.count) members for \(name), got \(members.count)")
      }
      var values: [CValue] = []
      for (index, (member, field)) in zip(members, fields).enumerated() {
        let memberPath = path + ["member \(index)"]
        if case .bitfield = field.type.unqualified {
          values.append(try integer(member, name: "a bitfield", path: memberPath))
        } else {
          values.append(try value(member, field.type, inRecord: true, path: memberPath))
        }
      }
      return .aggregate(values)
    case .union(_, let fields?):
      return try union(json, fields: fields, name: name, path: path)
    case .complex(let element):
      guard case .array(let parts) = json, parts.count == 2 else { throw mismatch("[real, imaginary]") }
      return .complex(
        real: try value(parts[0], element, inRecord: true, path: path + ["real part"]),
        imaginary: try value(parts[1], element, inRecord: true, path: path + ["imaginary part"]))
    case .atomic(let inner):
      return try value(json, inner, inRecord: inRecord, path: path)
    case .structure, .union:
      throw ConversionError(kind: .unsupportedType, path: path, reason: "\(name) does not list its members")
    case .bitfield:
      return try integer(json, name: "a bitfield", path: path)
    case .unencodable:
      throw ConversionError(
        kind: .unsupportedType, path: path, reason: "the type has no encoding: its calling convention is unknown")
    case .qualified:
      preconditionFailure("unqualified")
    }
  }

  private func primitive(_ json: JSONValue, _ code: TypeCode, name: String, path: [String]) throws(ConversionError)
    -> CValue
  {
    switch code {
    case .char, .short, .int, .long, .longLong, .int128, .unsignedChar, .unsignedShort, .unsignedInt,
      .unsignedLong, .unsignedLongLong, .unsignedInt128:
      return try integer(json, name: name, path: path)
    case .bool:
      if case .bool(let flag) = json { return .bool(flag) }
      guard case .number = json else {
        throw ConversionError(
          kind: .typeMismatch, path: path, reason: "expected true or false for _Bool, got \(json.kindName)")
      }
      return try integer(json, name: name, path: path)
    case .float:
      return .float(try floatingPoint(json, name: name, path: path))
    case .double:
      return .double(try floatingPoint(json, name: name, path: path))
    case .longDouble:
      #if arch(x86_64) || arch(i386)
        return .longDouble(try floatingPoint(json, name: name, path: path))
      #else
        throw ConversionError(kind: .unsupportedType, path: path, reason: "long double has no Swift type here")
      #endif
    case .cString:
      switch json {
      case .string(let text): return .string(text)
      case .null: return .string(nil)
      case .number: return .pointer(try address(json, name: name, path: path))
      default:
        throw ConversionError(
          kind: .typeMismatch, path: path,
          reason: "expected a string, an address or null for \(name), got \(json.kindName)")
      }
    case .class, .selector, .atom:
      return .pointer(try address(json, name: name, path: path))
    case .void:
      guard case .null = json else {
        throw ConversionError(kind: .typeMismatch, path: path, reason: "expected null for void, got \(json.kindName)")
      }
      return .void
    case .otherFloat:
      throw ConversionError(
        kind: .unsupportedType, path: path,
        reason: "a single space may be _Float16, __bf16 or __float128: its calling convention is unknown")
    case .unknown:
      throw ConversionError(
        kind: .unsupportedType, path: path, reason: "'?' (an unknown type) has no calling convention")
    }
  }

  /// An integer from a JSON number without fraction or exponent, or a string of decimal or
  /// `0x` hexadecimal digits (either with a leading `-`): exact at any width up to 128 bits.
  private func integer(_ json: JSONValue, name: String, path: [String]) throws(ConversionError) -> CValue {
    let text: String
    switch json {
    case .number(let number): text = number
    case .string(let string): text = string
    default:
      throw ConversionError(
        kind: .typeMismatch, path: path, reason: "expected an integer for \(name), got \(json.kindName)")
    }
    guard let (isNegative, magnitude) = Self.parseInteger(text) else {
      let shown = shortened(json.compact)
      throw ConversionError(
        kind: .typeMismatch, path: path,
        reason:
          "expected an integer for \(name), got \(shown) (write decimal digits, or a string of decimal or 0x hexadecimal digits)"
      )
    }
    guard let magnitude else {
      throw ConversionError(
        kind: .outOfRange, path: path,
        reason: "\(shortened(text)) does not fit \(name) (more than 128 bits)")
    }
    guard isNegative else { return .unsigned(magnitude) }
    guard magnitude <= UInt128(1) << 127 else {
      throw ConversionError(
        kind: .outOfRange, path: path,
        reason: "\(shortened(text)) does not fit \(name) (more than 128 bits)")
    }
    return .signed(magnitude == UInt128(1) << 127 ? .min : -Int128(magnitude))
  }

  /// `-?digits` or `-?0x hex digits`: the sign and the magnitude (nil when over 128 bits), or
  /// nil when the text is not an integer.
  static func parseInteger(_ text: String) -> (isNegative: Bool, magnitude: UInt128?)? {
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

  /// A floating-point value from a JSON number (parsed from its text at the type's precision,
  /// so no double rounding) or the strings `"inf"`, `"-inf"`, `"nan"`.
  private func floatingPoint<F: BinaryFloatingPoint & LosslessStringConvertible>(
    _ json: JSONValue, name: String, path: [String]
  ) throws(ConversionError) -> F {
    switch json {
    case .number(let text):
      guard let number = F(text) else {
        throw ConversionError(kind: .typeMismatch, path: path, reason: "\(shortened(text)) is not a number")
      }
      guard number.isFinite else {
        throw ConversionError(
          kind: .outOfRange, path: path,
          reason: "\(shortened(text)) does not fit \(name) (its magnitude is too large)")
      }
      return number
    case .string("inf"), .string("+inf"): return .infinity
    case .string("-inf"): return -.infinity
    case .string("nan"): return .nan
    default:
      throw ConversionError(
        kind: .typeMismatch, path: path,
        reason:
          "expected a number (or \"inf\", \"-inf\", \"nan\") for \(name), got \(shortened(json.compact))")
    }
  }

  /// An address: an integer (number or decimal/`0x` string) from 0 to the largest pointer, or null.
  private func address(_ json: JSONValue, name: String, path: [String]) throws(ConversionError) -> UInt {
    switch json {
    case .null: return 0
    case .number, .string: break
    default:
      throw ConversionError(
        kind: .typeMismatch, path: path,
        reason: "expected an address (an integer) or null for \(name), got \(json.kindName)")
    }
    let number = try integer(json, name: name, path: path)
    guard case .unsigned(let value) = number, value <= UInt128(UInt.max) else {
      throw ConversionError(
        kind: .outOfRange, path: path,
        reason: "\(shortened(json.compact)) is not an address (0...\(UInt.max)) for \(name)")
    }
    return UInt(value)
  }

  /// `{"member": K, "value": V}`: V converted by member K's type.
  private func union(_ json: JSONValue, fields: [TypeEncoding.Field], name: String, path: [String])
    throws(ConversionError) -> CValue
  {
    guard case .object(let members) = json, members.count == 2,
      let memberJSON = members.first(where: { $0.key == "member" })?.value,
      let inner = members.first(where: { $0.key == "value" })?.value
    else {
      throw ConversionError(
        kind: .typeMismatch, path: path,
        reason: "expected {\"member\": K, \"value\": V} for \(name), got \(shortened(json.compact))")
    }
    guard case .number(let text) = memberJSON, let index = Int(text) else {
      throw ConversionError(
        kind: .typeMismatch, path: path,
        reason: "the union's \"member\" must be a member index, got \(shortened(memberJSON.compact))")
    }
    guard fields.indices.contains(index) else {
      throw ConversionError(
        kind: .outOfRange, path: path, reason: "\(name) has \(fields.count) members; there is no member \(index)")
    }
    if case .bitfield = fields[index].type.unqualified {
      return .union(member: index, value: try integer(inner, name: "a bitfield", path: path + ["member \(index)"]))
    }
    return .union(
      member: index, value: try value(inner, fields[index].type, inRecord: true, path: path + ["member \(index)"]))
  }
}
