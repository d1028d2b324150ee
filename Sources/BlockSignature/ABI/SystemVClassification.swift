// System V x86_64: the classes of a value's eightbytes, from which it goes in general-purpose
// or SSE registers, on the x87 stack (return values) or in memory. Where those go in a call:
// SystemVPlacement.swift.

/// The classes of a value's two eightbytes.
typealias EightbyteClasses = (RegisterClass, RegisterClass)

extension TypeEncoding {
  /// System V classes. An argument of class X87 goes in memory, `long double` too (clang:
  /// `x86_fp80` parameters live on the stack, `struct { long double x; }` is `byval`); a return
  /// value of class X87 comes back on the x87 stack, for a `long double` and for an aggregate
  /// that holds one `long double` alone, members without bytes aside (clang returns both as
  /// `x86_fp80`); a union that mixes one with anything else is memory, unless an INTEGER member
  /// covers both its halves before any SSE one joins it (`(?=D[4i]f)` is INTEGER, INTEGER: the
  /// merge goes in order).
  func systemVPassing(size: Int, model: DataModel, asParameter: Bool) -> ParameterPassing {
    if case .primitive(.longDouble) = self { return asParameter ? .memory : .eightbytes(.x87, .x87) }
    // A `_Complex long double` (class COMPLEX_X87) is returned in ST0 and ST1 (clang:
    // `{ x86_fp80, x86_fp80 }`), a structure holding one through a hidden pointer; both are
    // arguments in memory. Its 32 bytes tell it from a `long double`'s x87 pair.
    if !asParameter, case .complex(let inner) = self, case .primitive(.longDouble) = inner.unqualified {
      return .eightbytes(.x87, .x87)
    }
    guard size <= 16 else { return .memory }
    var classes: EightbyteClasses = (.none, .none)
    var engine = LayoutEngine(model: model)
    guard classifySystemV(at: 0, into: &classes, engine: &engine), classes.0 != .memory, classes.1 != .memory
    else { return .memory }
    if classes.0 == .x87 || classes.1 == .x87 {
      // X87 and X87UP (this engine's x87 in both halves) is a `long double` at offset 0 and
      // nothing else with bytes: returned on the x87 stack (`union { long double x; int z[0]; }`
      // too). Anything else with an x87 class is memory.
      if !asParameter, size == 16, classes == (.x87, .x87) { return .eightbytes(.x87, .x87) }
      return .memory
    }
    return .eightbytes(classes.0, classes.1)
  }

  /// Adds this type's leaves at byte `offset` to the eightbyte classes; false means memory.
  private func classifySystemV(at offset: Int, into classes: inout EightbyteClasses, engine: inout LayoutEngine)
    -> Bool
  {
    let type = unqualified
    guard let (size, alignment) = try? engine.measure(type) else { return false }
    if size > 0, offset % alignment != 0 { return false }  // unaligned field: memory
    switch type {
    case .primitive(let code):
      switch code {
      case .float, .double, .otherFloat: Self.add(.sse, from: offset, size: size, to: &classes)
      case .longDouble: Self.add(.x87, from: offset, size: size, to: &classes)
      case .void: break
      default: Self.add(.integer, from: offset, size: size, to: &classes)
      }
    case .object, .block, .pointer, .bitfield:
      Self.add(.integer, from: offset, size: size, to: &classes)
    case .array(let count, let element):
      return element.classifySystemVElements(count, at: offset, into: &classes, engine: &engine)
    case .complex(let inner):
      return inner.classifySystemVComplexHalves(at: offset, into: &classes, engine: &engine)
    case .atomic:
      // clang gives no class to an `_Atomic` type: a record holding one, and an atomic
      // `_Complex` or record at the top level, are MEMORY (`byval`, `sret`); an atomic scalar at
      // the top level is passed as the scalar before classification.
      return false
    case .structure(_, let fields?):
      return Self.classifySystemVRecord(fields, isUnion: false, at: offset, into: &classes, engine: &engine)
    case .union(_, let fields?):
      return Self.classifySystemVRecord(fields, isUnion: true, at: offset, into: &classes, engine: &engine)
    default:
      return false
    }
    return true
  }

  /// Merges `registerClass` into every eightbyte that bytes `start..<start + size` touch (one
  /// byte at least).
  private static func add(
    _ registerClass: RegisterClass, from start: Int, size: Int, to classes: inout EightbyteClasses
  ) {
    let end = start + max(size, 1) - 1
    for eightbyte in (start / 8)...(end / 8) {
      if eightbyte == 0 { classes.0 = classes.0.merged(with: registerClass) }
      if eightbyte == 1 { classes.1 = classes.1.merged(with: registerClass) }
    }
  }

  /// An array of `count` of this element from `offset` (at most 16 elements reach the two
  /// eightbytes).
  private func classifySystemVElements(
    _ count: UInt64, at offset: Int, into classes: inout EightbyteClasses, engine: inout LayoutEngine
  ) -> Bool {
    guard let (elementSize, _) = try? engine.measure(self) else { return false }
    guard elementSize > 0 else { return true }
    var position = offset
    for _ in 0..<min(count, 16) {
      guard classifySystemV(at: position, into: &classes, engine: &engine) else { return false }
      position += elementSize
    }
    return true
  }

  /// A `_Complex` of this type: its two halves, one after the other.
  private func classifySystemVComplexHalves(
    at offset: Int, into classes: inout EightbyteClasses, engine: inout LayoutEngine
  ) -> Bool {
    guard let (elementSize, _) = try? engine.measure(self) else { return false }
    // Both halves at one offset add the same classes twice: once is enough, and nested
    // zero-sized `_Complex` (`jjj…jv`) costs one call per level, not 2^depth.
    if elementSize == 0 { return classifySystemV(at: offset, into: &classes, engine: &engine) }
    return classifySystemV(at: offset, into: &classes, engine: &engine)
      && classifySystemV(at: offset + elementSize, into: &classes, engine: &engine)
  }

  /// A structure's or union's fields from `offset`. Each member is classified whole and merged
  /// into the record's own classes, in order, and those into the enclosing ones only then, as
  /// clang and GCC do: the merge is not associative (X87 with SSE is MEMORY, X87 with INTEGER is
  /// INTEGER).
  private static func classifySystemVRecord(
    _ fields: [Field], isUnion: Bool, at offset: Int, into classes: inout EightbyteClasses,
    engine: inout LayoutEngine
  ) -> Bool {
    var own: EightbyteClasses = (.none, .none)
    var position = offset
    for field in fields {
      var member: EightbyteClasses = (.none, .none)
      if case .bitfield = field.type.unqualified {
        member.0 = position < 8 ? .integer : .none
        member.1 = position >= 8 ? .integer : .none
      } else {
        guard let (fieldSize, fieldAlignment) = try? engine.measure(field.type),
          let start = isUnion ? offset : roundUp(position, to: fieldAlignment)
        else { return false }
        guard field.type.classifySystemV(at: start, into: &member, engine: &engine) else { return false }
        if !isUnion { position = start + fieldSize }
      }
      own = (own.0.merged(with: member.0), own.1.merged(with: member.1))
      if own.0 == .memory || own.1 == .memory { return false }
    }
    // The post-merge cleanup of every record, a member one too: the upper half of a
    // `long double` (X87UP) without its lower half is MEMORY
    // (`union { union { long double x; int i; } u; int c[4]; }`).
    if own.1 == .x87, own.0 != .x87 { return false }
    classes = (classes.0.merged(with: own.0), classes.1.merged(with: own.1))
    return true
  }
}
