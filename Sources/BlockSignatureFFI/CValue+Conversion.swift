// Reading a type-free value (JSON's reading of `blocksig call`'s syntax) as a C type: which
// number kind, whether null is a NULL pointer or a NULL string, what a string of digits means.

import BlockSignature

extension CValue {
  /// The value read as a value of `type` on `model` (the host's by default), in the form a
  /// call returns for that type: a number becomes the type's kind (an integer given for a
  /// `double` becomes ``double(_:)``), a string of decimal or `0x` hexadecimal digits an
  /// integer, `"inf"`, `"-inf"` and `"nan"` floating point, null a NULL pointer or string, a
  /// two-member array a `_Complex` value; structures, arrays and unions member by member.
  ///
  ///     try CValue.aggregate([.string("0xff"), .string("-inf")]).converted(to: TypeEncoding(parsing: "{?=Qf}"))
  ///     // .aggregate([.unsigned(255), .float(-.infinity)])
  ///
  /// Ranges are checked where the value is used (a call, ``store(as:to:model:)``), against the
  /// exact type.
  ///
  /// - Throws: ``InvocationError``: ``InvocationError/Kind/unsupportedType`` for a type whose
  ///   layout the encoding does not decide, ``InvocationError/Kind/typeMismatch`` with the path
  ///   of a part that is not of its type's kind.
  public func converted(to type: TypeEncoding, model: DataModel? = .host) throws(InvocationError) -> CValue {
    guard let model else {
      throw InvocationError(kind: .unsupportedType, reason: "no data model describes this machine")
    }
    let shape: ValueShape
    do {
      shape = try ValueShape(type, model: model)
    } catch {
      throw InvocationError(kind: .unsupportedType, path: error.path, reason: error.reason)
    }
    do throws(ValueError) {
      return try shape.convert(self, path: [])
    } catch {
      throw InvocationError(kind: error.kind, path: error.path, reason: error.reason)
    }
  }

  /// A string of decimal or `0x` hexadecimal digits, with an optional `-`, as an integer.
  static func integer(parsing text: String) -> CValue? {
    var digits = Substring(text)
    let isNegative = digits.first == "-"
    if isNegative { digits = digits.dropFirst() }
    var radix: UInt128 = 10
    if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
      radix = 16
      digits = digits.dropFirst(2)
    }
    guard !digits.isEmpty else { return nil }
    var magnitude: UInt128 = 0
    for character in digits {
      guard let digit = character.hexDigitValue, UInt128(digit) < radix else { return nil }
      let (shifted, overflow) = magnitude.multipliedReportingOverflow(by: radix)
      let (sum, carry) = shifted.addingReportingOverflow(UInt128(digit))
      guard !overflow, !carry else { return nil }
      magnitude = sum
    }
    guard isNegative else { return .unsigned(magnitude) }
    guard magnitude <= UInt128(1) << 127 else { return nil }
    return .signed(magnitude == UInt128(1) << 127 ? .min : -Int128(magnitude))
  }
}

extension ValueShape {
  /// `value` in the form a load of this shape gives.
  fileprivate func convert(_ value: CValue, path: [String]) throws(ValueError) -> CValue {
    func mismatch(_ expected: String) -> ValueError {
      ValueError(path, .typeMismatch, "expected \(expected), got \(value.kindName) \(value)")
    }
    switch self {
    case .empty:
      guard case .void = value else { throw mismatch("no value") }
      return .void
    case .integer, .bitfield:
      switch value {
      case .signed, .unsigned: return value
      case .bool(let flag): return .unsigned(flag ? 1 : 0)
      case .string(let text?):
        guard let number = CValue.integer(parsing: text) else { throw mismatch("an integer") }
        return number
      default: throw mismatch("an integer")
      }
    case .bool:
      switch value {
      case .bool: return value
      case .signed(0), .unsigned(0): return .bool(false)
      case .signed(1), .unsigned(1): return .bool(true)
      default: throw mismatch("true or false")
      }
    case .float:
      return .float(try Self.floatingPoint(value, path: path) { text in Float(text) })
    case .double:
      return .double(try Self.floatingPoint(value, path: path) { text in Double(text) })
    case .longDouble:
      #if arch(x86_64) || arch(i386)
        if case .longDouble = value { return value }
        return .longDouble(try Self.floatingPoint(value, path: path) { text in Float80(text) })
      #else
        throw mismatch("a long double, which has no Swift type here")
      #endif
    case .complex(let element, _):
      let parts: (CValue, CValue)
      switch value {
      case .complex(let real, let imaginary): parts = (real, imaginary)
      case .aggregate(let pair) where pair.count == 2: parts = (pair[0], pair[1])
      default: throw mismatch("[real, imaginary]")
      }
      return .complex(
        real: try element.convert(parts.0, path: path + ["real part"]),
        imaginary: try element.convert(parts.1, path: path + ["imaginary part"]))
    case .pointer(let isCString):
      switch value {
      case .void, .string(nil): return isCString ? .string(nil) : .pointer(0)
      case .pointer: return value
      case .string(let text?) where isCString: return .string(text)
      case .signed(let number) where number >= 0 && number <= Int128(UInt.max): return .pointer(UInt(number))
      case .unsigned(let number) where number <= UInt128(UInt.max): return .pointer(UInt(number))
      case .string(let text?):
        guard case .unsigned(let number)? = CValue.integer(parsing: text), number <= UInt128(UInt.max) else {
          throw mismatch("an address or null")
        }
        return .pointer(UInt(number))
      default: throw mismatch(isCString ? "a string, an address or null" : "an address or null")
      }
    case .record(_, let members):
      guard case .aggregate(let values) = value, values.count == members.count else {
        throw mismatch("the \(members.count) members of a structure")
      }
      var converted: [CValue] = []
      for (index, (member, item)) in zip(members, values).enumerated() {
        converted.append(try member.shape.convert(item, path: path + ["member \(index)"]))
      }
      return .aggregate(converted)
    case .array(let count, _, let element):
      guard case .aggregate(let values) = value, values.count == count else {
        throw mismatch("the \(count) elements of an array")
      }
      var converted: [CValue] = []
      for (index, item) in values.enumerated() {
        converted.append(try element.convert(item, path: path + ["element \(index)"]))
      }
      return .aggregate(converted)
    case .union(_, let members):
      guard case .union(let member, let inner) = value else { throw mismatch("{\"member\": K, \"value\": V}") }
      guard members.indices.contains(member) else {
        throw ValueError(path, .outOfRange, "the union has \(members.count) members; there is no member \(member)")
      }
      return .union(member: member, value: try members[member].convert(inner, path: path + ["member \(member)"]))
    }
  }

  /// A floating-point value from a number, a decimal string (read at the type's precision) or
  /// `"inf"`, `"-inf"`, `"nan"`.
  private static func floatingPoint<F: BinaryFloatingPoint>(
    _ value: CValue, path: [String], parse: (String) -> F?
  ) throws(ValueError) -> F {
    switch value {
    case .signed(let number): return F(number)
    case .unsigned(let number): return F(number)
    case .float(let number): return F(number)
    case .double(let number): return F(number)
    case .string("inf"), .string("+inf"): return .infinity
    case .string("-inf"): return -.infinity
    case .string("nan"): return .nan
    case .string(let text?):
      guard let number = parse(text) else {
        throw ValueError(path, .typeMismatch, "expected a number, got the string \"\(text)\"")
      }
      return number
    #if arch(x86_64) || arch(i386)
      case .longDouble(let number): return F(number)
    #endif
    default:
      throw ValueError(path, .typeMismatch, "expected a number (or \"inf\", \"-inf\", \"nan\"), got \(value.kindName)")
    }
  }
}
