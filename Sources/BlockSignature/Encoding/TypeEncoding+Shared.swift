// Shared values for the commonest nodes around a primitive (`^v`, `r*`, `^i`, `jd`, and a
// qualifier over a pointer to one, `r^v`): a `TypeEncoding` is immutable, so every tree can
// hold the same boxed value instead of allocating its own. The parser takes them from here.

extension TypeEncoding {
  /// The node `kind` over `inner`, from the shared values when there is one; nil otherwise.
  @inline(__always)
  static func shared(_ kind: SharedNode, over inner: TypeEncoding) -> TypeEncoding? {
    switch inner {
    case .primitive(let code):
      return SharedNodes.values[kind.row &* 128 &+ Int(code.rawValue & 0x7F)]
    case .pointer(.primitive(let code)):
      guard case .qualified(let qualifier) = kind else { return nil }
      return SharedNodes.values[SharedNode.qualifiedPointer(qualifier).row &* 128 &+ Int(code.rawValue & 0x7F)]
    default:
      return nil
    }
  }
}

/// A node kind that has shared values over each primitive.
enum SharedNode {
  case pointer, complex, atomic
  case qualified(TypeQualifier)
  /// A qualifier over a pointer to a primitive.
  case qualifiedPointer(TypeQualifier)

  /// Its row in ``SharedNodes/values``.
  @inline(__always)
  var row: Int {
    switch self {
    case .pointer: 0
    case .complex: 1
    case .atomic: 2
    case .qualified(let qualifier): 3 &+ SharedNodes.qualifierRow(qualifier)
    case .qualifiedPointer(let qualifier): 3 &+ TypeQualifier.allCases.count &+ SharedNodes.qualifierRow(qualifier)
    }
  }
}

/// Rows of 128 values, one per ASCII type code (`.unencodable` where no primitive has that code):
/// pointer, complex, atomic, each qualifier, then each qualifier over a pointer, over each
/// primitive.
enum SharedNodes {
  static let rowCount = 3 + 2 * TypeQualifier.allCases.count

  @inline(__always)
  static func qualifierRow(_ qualifier: TypeQualifier) -> Int {
    switch qualifier {
    case .const: 0
    case .in: 1
    case .inout: 2
    case .out: 3
    case .bycopy: 4
    case .byref: 5
    case .oneway: 6
    }
  }

  static let values: [TypeEncoding] = {
    var values = [TypeEncoding](repeating: .unencodable, count: rowCount * 128)
    for code in TypeCode.allCases {
      let column = Int(code.rawValue & 0x7F)
      values[SharedNode.pointer.row * 128 + column] = .pointer(.primitive(code))
      values[SharedNode.complex.row * 128 + column] = .complex(.primitive(code))
      values[SharedNode.atomic.row * 128 + column] = .atomic(.primitive(code))
      for qualifier in TypeQualifier.allCases {
        values[SharedNode.qualified(qualifier).row * 128 + column] = .qualified(qualifier, .primitive(code))
        values[SharedNode.qualifiedPointer(qualifier).row * 128 + column] =
          .qualified(qualifier, values[SharedNode.pointer.row * 128 + column])
      }
    }
    return values
  }()
}
