// What the calling-convention rules ask of a type before they place it: scalar or aggregate,
// `_Atomic` or not, what kind of scalar, which leaves it holds.

/// What a scalar is, for the abi level's warnings.
enum ScalarKind: Hashable {
  case signedInteger, unsignedInteger, bool, pointer, floatingPoint, other
}

extension TypeEncoding {
  /// The scalar kind, qualifiers (and an `_Atomic` around a scalar) removed.
  var scalarKind: ScalarKind {
    switch unqualified {
    case .primitive(let code):
      switch code {
      case .char, .short, .int, .long, .longLong, .int128: .signedInteger
      case .unsignedChar, .unsignedShort, .unsignedInt, .unsignedLong, .unsignedLongLong, .unsignedInt128:
        .unsignedInteger
      case .bool: .bool
      case .cString, .class, .selector, .atom: .pointer
      case .float, .double, .longDouble, .otherFloat: .floatingPoint
      default: .other
      }
    case .object, .block, .pointer, .array: .pointer
    // An `_Atomic` scalar is passed as the scalar: `Ai` against `I` differs in signedness.
    case .atomic(let inner) where inner.unqualified.isScalar: inner.scalarKind
    default: .other
    }
  }

  /// A primitive other than `void`, or a pointer: what an `_Atomic` at the top level leaves as it is.
  package var isScalar: Bool {
    switch self {
    case .primitive(let code): code != .void
    case .object, .block, .pointer: true
    default: false
    }
  }

  /// A structure, union, array or `_Complex`, an `_Atomic` one included (for a type whose
  /// qualifiers are removed).
  var isAggregate: Bool {
    switch self {
    case .structure, .union, .array, .complex: true
    case .atomic(let inner): inner.unqualified.isAggregate
    default: false
    }
  }

  /// Whether this is an `_Atomic` type, qualifiers removed.
  var isAtomic: Bool {
    if case .atomic = unqualified { return true }
    return false
  }

  /// Whether this is an `_Atomic` scalar (`Ai`, `A^v`), which clang passes as the scalar but
  /// counts no register for on x86_64 System V.
  var isAtomicScalar: Bool {
    if case .atomic(let inner) = unqualified { return inner.unqualified.isScalar }
    return false
  }

  /// Whether an argument of this type is a structure, union or `_Complex` (what clang passes as
  /// an aggregate), an `_Atomic` one included; an array parameter is a pointer.
  var isCompositeArgument: Bool {
    let type = unqualified
    if case .array = type { return false }
    return type.isAggregate
  }

  /// Whether every leaf is an integer, a pointer or a bitfield, in records with fields and
  /// arrays with elements (no `_Atomic`, `_Complex` or floating point): what System V classes
  /// INTEGER throughout.
  var hasOnlyIntegerLeaves: Bool {
    switch self {
    case .primitive, .object, .block, .pointer: scalarKind != .floatingPoint && scalarKind != .other
    case .bitfield: true
    case .structure(_, let fields?), .union(_, let fields?):
      !fields.isEmpty && fields.allSatisfy { $0.type.hasOnlyIntegerLeaves }
    case .array(let count, let element): count > 0 && element.hasOnlyIntegerLeaves
    case .qualified(_, let inner): inner.hasOnlyIntegerLeaves
    default: false
    }
  }

  /// Whether a bitfield of at least one bit is somewhere inside (not in a zero-length array):
  /// an integer member, so no homogeneous floating-point aggregate.
  var hasBitfieldWithBits: Bool {
    switch self {
    case .bitfield(let bitfield): bitfield.width > 0
    case .structure(_, let fields?), .union(_, let fields?): fields.contains { $0.type.hasBitfieldWithBits }
    case .array(let count, let element): count > 0 && element.hasBitfieldWithBits
    case .qualified(_, let inner), .atomic(let inner): inner.hasBitfieldWithBits
    default: false
    }
  }
}
