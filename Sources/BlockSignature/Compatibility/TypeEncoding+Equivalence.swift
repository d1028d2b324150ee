// Structural comparison for the equivalent level. Walks both trees at once; allocates nothing.

/// The first structural difference between two types that are not equivalent.
enum EquivalenceDifference: Hashable, Sendable {
  /// Different constructs or type codes at `candidate` / `expected`.
  case differentTypes(TypeEncoding, TypeEncoding)
  /// A structure against a union.
  case aggregateKind(candidateIsUnion: Bool)
  /// Named aggregates with different names.
  case aggregateName(String, String)
  /// Different field counts.
  case fieldCount(Int, Int)
  /// Different array element counts.
  case arrayCount(UInt64, UInt64)
  /// Different bitfield widths.
  case bitfieldWidth(UInt64, UInt64)

  /// Lower-case text naming the numbers.
  var reason: String {
    switch self {
    case .differentTypes(let a, let b):
      "\(TypeEncoding.display(a)) is not \(TypeEncoding.display(b))"
    case .aggregateKind(let candidateIsUnion):
      candidateIsUnion ? "a union is not a structure" : "a structure is not a union"
    case .aggregateName(let a, let b): "name \(a) does not match \(b)"
    case .fieldCount(let a, let b): "field count \(a) does not match \(b)"
    case .arrayCount(let a, let b): "element count \(a) does not match \(b)"
    case .bitfieldWidth(let a, let b): "bitfield width \(a) does not match \(b)"
    }
  }
}

extension TypeEncoding {
  /// The encoding as text for a message: `(no encoding)` for an unencodable parameter,
  /// quoted when it holds a space (`' '` for `_Float16`, `'^ '`), which would otherwise be
  /// blank or lost at the end of the text, and ``shortened(_:width:)`` when long.
  static func display(_ type: TypeEncoding) -> String {
    if type == .unencodable { return "(no encoding)" }
    let text = type.description
    guard text.utf8.count > shortenedWidth else { return text.utf8.contains(0x20) ? "'\(text)'" : text }
    // Long: quoted around its excerpt, then its length.
    return "'\(shortened(text, showingLength: false))' (\(text.utf8.count) bytes)"
  }

  /// Whether clang writes this as an object pointer: `@`, `@"C"`, `#`, `@?`, `@?<…>`.
  var isObjectLike: Bool {
    switch self {
    case .object, .block, .primitive(.class): true
    default: false
    }
  }

  /// `*`, `^c` or `^C` (qualifiers removed): a pointer to char.
  var isCharPointer: Bool {
    switch self {
    case .primitive(.cString): return true
    case .pointer(let pointee):
      switch pointee.unqualified {
      case .primitive(.char), .primitive(.unsignedChar): return true
      default: return false
      }
    default: return false
    }
  }

  /// The first difference with `other` under the equivalent level's rules, or `nil`.
  ///
  ///     try TypeEncoding(parsing: "^^{S}").equivalenceDifference(to: TypeEncoding(parsing: "^^{S=dd}"))  // nil
  func equivalenceDifference(to other: TypeEncoding) -> EquivalenceDifference? {
    let a = unqualified
    let b = other.unqualified
    if a.isObjectLike && b.isObjectLike { return nil }
    if a.isCharPointer && b.isCharPointer { return nil }
    switch (a, b) {
    case (.primitive(let x), .primitive(let y)):
      return x == y ? nil : .differentTypes(a, b)
    case (.pointer(let x), .pointer(let y)):
      return x.equivalenceDifference(to: y)
    case (.array(let n, let x), .array(let m, let y)):
      if n != m { return .arrayCount(n, m) }
      return x.equivalenceDifference(to: y)
    case (.structure(let n, let x), .structure(let m, let y)), (.union(let n, let x), .union(let m, let y)):
      if n != m && n != "?" && m != "?" { return .aggregateName(n, m) }
      guard let x, let y, !x.isEmpty, !y.isEmpty else { return nil }
      if x.count != y.count { return .fieldCount(x.count, y.count) }
      for index in x.indices {
        if let difference = x[index].type.equivalenceDifference(to: y[index].type) { return difference }
      }
      return nil
    case (.structure, .union):
      return .aggregateKind(candidateIsUnion: false)
    case (.union, .structure):
      return .aggregateKind(candidateIsUnion: true)
    case (.bitfield(let x), .bitfield(let y)):
      return x.width == y.width ? nil : .bitfieldWidth(x.width, y.width)
    case (.complex(let x), .complex(let y)), (.atomic(let x), .atomic(let y)):
      return x.equivalenceDifference(to: y)
    case (.unencodable, .unencodable):
      return nil
    default:
      return .differentTypes(a, b)
    }
  }

  /// The first byte of the encoding (0 for an unencodable parameter): what BlocksKit and
  /// Aspects compare.
  var firstByte: UInt8 {
    switch self {
    case .primitive(let code): code.rawValue
    case .object, .block: UInt8(ascii: "@")
    case .pointer: UInt8(ascii: "^")
    case .array: UInt8(ascii: "[")
    case .structure: UInt8(ascii: "{")
    case .union: UInt8(ascii: "(")
    case .bitfield: UInt8(ascii: "b")
    case .complex: UInt8(ascii: "j")
    case .atomic: UInt8(ascii: "A")
    case .qualified(let qualifier, _): qualifier.rawValue
    case .unencodable: 0
    }
  }

  /// The number of bytes ``description`` writes, without building it.
  var encodedLength: Int {
    switch self {
    case .primitive: return 1
    case .object(let name): return 1 + (name.map { $0.utf8.count + 2 } ?? 0)
    case .block(let signature):
      guard let signature else { return 2 }
      return signature.reduce(4) { $0 + $1.encodedLength }
    case .pointer(let inner), .complex(let inner), .atomic(let inner), .qualified(_, let inner):
      return 1 + inner.encodedLength
    case .array(let count, let element):
      return 2 + decimalLength(count) + element.encodedLength
    case .structure(let name, let fields), .union(let name, let fields):
      var length = 2 + name.utf8.count
      if let fields {
        length += 1
        for field in fields {
          length += field.type.encodedLength + (field.name.map { $0.utf8.count + 2 } ?? 0)
        }
      }
      return length
    case .bitfield(let bitfield):
      var length = 1 + decimalLength(bitfield.width)
      if let offset = bitfield.bitOffset, bitfield.declaredType != nil { length += decimalLength(offset) + 1 }
      return length
    case .unencodable:
      return 0
    }
  }
}

private func decimalLength(_ value: UInt64) -> Int {
  var length = 1
  var rest = value
  while rest >= 10 {
    rest /= 10
    length += 1
  }
  return length
}

extension SignatureEncoding {
  /// The byte range of the return type and of each argument's type in ``description``.
  func typeRanges() -> (returnType: Range<Int>, arguments: [Range<Int>]) {
    var position = returnType.encodedLength
    let returnRange = 0..<position
    if let frameLength { position += frameLength.description.utf8.count }
    var ranges: [Range<Int>] = []
    ranges.reserveCapacity(arguments.count)
    for argument in arguments {
      let end = position + argument.type.encodedLength
      ranges.append(position..<end)
      position = end
      if let offset = argument.offset { position += offset.description.utf8.count }
    }
    return (returnRange, ranges)
  }
}
