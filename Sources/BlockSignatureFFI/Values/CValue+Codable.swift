// The JSON form of a value through `Codable`: the syntax of `CValue(json:as:model:)` and
// `jsonText`. JSON alone does not say a value's C type (1 may be an int, a double or a pointer),
// so decoding gives the type-free reading and `converted(to:model:)` reads it as a type.

import BlockSignature

extension CValue: Codable {
  private enum UnionKey: String, CodingKey {
    case member, value
  }

  /// Writes the value in `blocksig call`'s syntax: integers as numbers (as decimal strings
  /// beyond 64 bits, which JSON readers would round), floating point as numbers or `"inf"`,
  /// `"-inf"`, `"nan"`, a pointer as its address, `void` and a NULL string as null, a structure,
  /// array or `_Complex` value as an array, a union as `{"member": K, "value": V}`.
  ///
  ///     let text = try JSONEncoder().encode(CValue.aggregate([.signed(1), .double(.infinity), .string(nil)]))
  ///     // [1,"inf",null]
  ///
  /// A `long double` that a `double` does not hold exactly is written as a string of its
  /// decimal digits, which ``converted(to:model:)`` and `CValue(json:as:model:)` read back
  /// exactly. Read as its type, the text gives the value ``jsonText`` gives.
  ///
  /// - Throws: What the encoder throws.
  public func encode(to encoder: any Encoder) throws {
    switch self {
    case .complex(let real, let imaginary):
      var container = encoder.unkeyedContainer()
      try container.encode(real)
      try container.encode(imaginary)
    case .aggregate(let members):
      var container = encoder.unkeyedContainer()
      for member in members { try container.encode(member) }
    case .union(let member, let value):
      var container = encoder.container(keyedBy: UnionKey.self)
      try container.encode(member, forKey: .member)
      try container.encode(value, forKey: .value)
    default:
      var container = encoder.singleValueContainer()
      try encodeScalar(into: &container)
    }
  }

  private func encodeScalar(into container: inout any SingleValueEncodingContainer) throws {
    switch self {
    case .void, .string(nil): try container.encodeNil()
    case .signed(let number):
      if let narrow = Int64(exactly: number) {
        try container.encode(narrow)
      } else {
        try container.encode(String(number))
      }
    case .unsigned(let number):
      if let narrow = UInt64(exactly: number) {
        try container.encode(narrow)
      } else {
        try container.encode(String(number))
      }
    case .bool(let flag): try container.encode(flag)
    case .float(let number):
      if number.isFinite { try container.encode(number) } else { try container.encode(Self.nonFinite(number)) }
    case .double(let number):
      if number.isFinite { try container.encode(number) } else { try container.encode(Self.nonFinite(number)) }
    #if arch(x86_64) || arch(i386)
      case .longDouble(let number):
        if !number.isFinite {
          try container.encode(Self.nonFinite(number))
        } else if let exact = Double(exactly: number) {
          try container.encode(exact)
        } else {
          try container.encode(number.description)
        }
    #endif
    case .pointer(let address): try container.encode(UInt64(address))
    case .string(let text?): try container.encode(text)
    case .complex, .aggregate, .union: preconditionFailure("not a scalar")
    }
  }

  private static func nonFinite(_ number: some FloatingPoint) -> String {
    number.isNaN ? "nan" : number < 0 ? "-inf" : "inf"
  }

  /// Reads a value in `blocksig call`'s syntax without knowing its type: null is ``void``, a
  /// number ``signed(_:)``, ``unsigned(_:)`` or ``double(_:)``, a string ``string(_:)``, an
  /// array ``aggregate(_:)``, `{"member": K, "value": V}` ``union(member:value:)``, as
  /// `CValue(json:)` reads text. Read it as its C type with ``converted(to:model:)``.
  ///
  ///     let value = try JSONDecoder().decode(CValue.self, from: Data(#"[1, "inf", null]"#.utf8))
  ///     try value.converted(to: TypeEncoding(parsing: "{?=cd*}"))  // [.signed(1), .double(.infinity), .string(nil)]
  ///
  /// - Throws: `DecodingError` for JSON that is none of these.
  public init(from decoder: any Decoder) throws {
    if let keyed = try? decoder.container(keyedBy: UnionKey.self), keyed.contains(.member) {
      self = .union(
        member: try keyed.decode(Int.self, forKey: .member), value: try keyed.decode(CValue.self, forKey: .value))
      return
    }
    if var unkeyed = try? decoder.unkeyedContainer() {
      var members: [CValue] = []
      while !unkeyed.isAtEnd { members.append(try unkeyed.decode(CValue.self)) }
      self = .aggregate(members)
      return
    }
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .void
    } else if let flag = try? container.decode(Bool.self) {
      self = .bool(flag)
    } else if let number = try? container.decode(Int64.self) {
      self = .signed(Int128(number))
    } else if let number = try? container.decode(UInt64.self) {
      self = .unsigned(UInt128(number))
    } else if let number = try? container.decode(Double.self) {
      self = .double(number)
    } else {
      self = .string(try container.decode(String.self))
    }
  }
}
