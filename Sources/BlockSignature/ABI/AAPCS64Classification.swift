// AAPCS64 (AArch64 Linux and Apple's arm64): homogeneous floating-point aggregates in SIMD
// registers, other small values in general-purpose registers, large records through a pointer
// to a copy. Where those go in a call: AAPCS64Placement.swift.

extension TypeEncoding {
  /// Homogeneous floating-point aggregates of up to four members (structures, arrays, `_Complex`
  /// and unions whose members all are, with one base, leaving out empty records; an array of no
  /// elements makes a record not homogeneous) in SIMD registers, other values of up to
  /// 16 bytes in general-purpose registers, larger records through a pointer to the caller's
  /// copy. An argument of 16 bytes aligned to 16 (`__int128`,
  /// `struct { __int128 t; }`) is an ``ParameterPassing/alignedIntegerPair``, not two registers
  /// like `struct { long long a, b; }` (clang: `i128` against `[2 x i64]`); as a return value
  /// both come back in X0 and X1.
  func aapcs64Passing(size: Int, alignment: Int, model: DataModel, asParameter: Bool) -> ParameterPassing {
    var base = 0
    var count = 0
    var engine = LayoutEngine(model: model)
    // A homogeneous aggregate has no padding: an empty member's alignment may add some
    // (`{?=f{?=[0d]}}` is 8 bytes, an integer).
    if collectFloatingLeaves(base: &base, count: &count, engine: &engine), count >= 1, count <= 4,
      base * count == size
    {
      // clang returns a homogeneous aggregate as its LLVM type, which for a union with an empty
      // member aligned above its floating-point ones is that member and bytes: each byte comes
      // back in a general-purpose register (`union { float f[2]; struct { long long z[0]; } e; }`
      // in W0–W7), which this level does not model.
      if !asParameter, hasUnionStoredAsBytes(base: base, engine: &engine) { return .unknown }
      return .floatingPoint(size: base, count: count)
    }
    if isAggregate || scalarKind == .floatingPoint, size > 16 { return .memory }
    if asParameter, size == 16, alignment == 16 { return .alignedIntegerPair }
    return .integer(count: max(1, (size + 7) / 8))
  }

  /// Whether every leaf is a floating-point value of one size (a homogeneous aggregate).
  private func collectFloatingLeaves(base: inout Int, count: inout Int, engine: inout LayoutEngine) -> Bool {
    let type = unqualified
    switch type {
    case .primitive(.float), .primitive(.double), .primitive(.longDouble), .primitive(.otherFloat):
      guard let (size, _) = try? engine.measure(type) else { return false }
      if base != 0 && base != size { return false }
      base = size
      count += 1
      return count <= 4
    case .complex(let inner):
      // The imaginary half has the real half's leaves: collect them once and count them twice
      // (walking both cost 2^depth calls on nested `_Complex` without leaves, `jjj…j[0d]`).
      let before = count
      guard inner.collectFloatingLeaves(base: &base, count: &count, engine: &engine) else { return false }
      count += count - before
      return count <= 4
    case .array(let elements, let element):
      // An array of no elements is not homogeneous (clang).
      guard elements <= 4, elements > 0 else { return false }
      // Every element has the first one's leaves: collect them once and count them `elements`
      // times (walking each element cost 4^depth calls on nested arrays without leaves).
      let before = count
      guard element.collectFloatingLeaves(base: &base, count: &count, engine: &engine) else { return false }
      count += (count - before) * Int(elements - 1)
      return count <= 4
    case .structure(_, let fields?):
      return Self.collectStructureLeaves(fields, base: &base, count: &count, engine: &engine)
    case .union(_, let fields?):
      return Self.collectUnionLeaves(fields, base: &base, count: &count, engine: &engine)
    default:
      return false
    }
  }

  /// A structure's leaves: every member's, empty records left out.
  private static func collectStructureLeaves(
    _ fields: [Field], base: inout Int, count: inout Int, engine: inout LayoutEngine
  ) -> Bool {
    for field in fields {
      switch field.type.homogeneousMember {
      case .zeroLength: return false
      case .empty: continue
      case .other:
        guard field.type.collectFloatingLeaves(base: &base, count: &count, engine: &engine) else { return false }
      }
    }
    return count > 0
  }

  /// A union is homogeneous when every member is, with one base: its members overlap, so it
  /// counts as many leaves as its largest member (clang: `union { float a; float b[2]; }` is
  /// `[2 x float]`).
  private static func collectUnionLeaves(
    _ fields: [Field], base: inout Int, count: inout Int, engine: inout LayoutEngine
  ) -> Bool {
    let before = count
    var widest = 0
    for field in fields {
      switch field.type.homogeneousMember {
      case .zeroLength: return false
      case .empty: continue
      case .other:
        var fieldCount = 0
        guard field.type.collectFloatingLeaves(base: &base, count: &fieldCount, engine: &engine) else {
          return false
        }
        widest = max(widest, fieldCount)
      }
    }
    count = before + widest
    return widest > 0 && count <= 4
  }

  /// Whether a union in this homogeneous aggregate has an empty member aligned above the
  /// aggregate's floating-point base (whose alignment is its size): clang's LLVM type for the
  /// union is then the empty member and bytes.
  private func hasUnionStoredAsBytes(base: Int, engine: inout LayoutEngine) -> Bool {
    switch unqualified {
    case .structure(_, let fields?):
      return fields.contains { $0.type.hasUnionStoredAsBytes(base: base, engine: &engine) }
    case .union(_, let fields?):
      return fields.contains { field in
        if field.type.homogeneousMember == .empty {
          guard let (_, alignment) = try? engine.measure(field.type) else { return false }
          return alignment > base
        }
        return field.type.hasUnionStoredAsBytes(base: base, engine: &engine)
      }
    case .array(_, let element):
      return element.hasUnionStoredAsBytes(base: base, engine: &engine)
    default:
      return false
    }
  }

  /// How a member of a record counts towards a homogeneous aggregate, as clang has it: an array
  /// of no elements at any depth makes the record not homogeneous (`{?=f[0f]}` is an integer),
  /// an empty record in arrays of any length is left out (`{?={?=[0i]}ff}` is `[2 x float]`).
  private enum HomogeneousMember { case zeroLength, empty, other }

  private var homogeneousMember: HomogeneousMember {
    var type = unqualified
    while case .array(let count, let element) = type {
      if count == 0 { return .zeroLength }
      type = element.unqualified
    }
    return type.isEmptyRecord ? .empty : .other
  }

  /// A structure or union whose every field is empty: an array of no elements, or an empty
  /// record in arrays of any length (`{?=}`, `{?=[0i]}`, `{?=[2{?=[0c]}]}`).
  private var isEmptyRecord: Bool {
    switch self {
    case .structure(_, let fields?), .union(_, let fields?):
      return fields.allSatisfy { field in
        var type = field.type.unqualified
        while case .array(let count, let element) = type {
          if count == 0 { return true }
          type = element.unqualified
        }
        return type.isEmptyRecord
      }
    default:
      return false
    }
  }
}
