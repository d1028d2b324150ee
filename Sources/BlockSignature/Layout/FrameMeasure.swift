// The sink that lays types out as `EncodingReader` reads them, for `SignatureFrame`: sizes and
// alignments with the shared `LayoutRules` and `AggregateLayout`, no tree. It does not read a
// pointer's pointee or a nested signature's types (the reader checks their syntax alone): no
// size there reaches the result, and the tree's layout never measures them either. It stops
// the reader on a size that overflows, which the tree's layout then reports.

/// Measures each type read into it: ``size``, ``alignment`` and ``shape`` of the type just
/// read, its caveats added to ``caveats`` (the caller resets them).
struct FrameMeasure: EncodingSink {
  let rules: LayoutRules
  let stack: UnsafeMutablePointer<MeasureNesting>
  var depth = 0

  var size = 0
  var alignment = 1
  var shape = TypeShape.other
  var caveats = LayoutCaveats()
  /// The bitfield just measured, when `shape` is `.bitfield`.
  var bitfield = TypeEncoding.Bitfield(width: 0)

  static var readsQualifiers: Bool { false }
  static var readsPointees: Bool { false }

  @inline(__always)
  init(rules: LayoutRules, stack: UnsafeMutablePointer<MeasureNesting>) {
    self.rules = rules
    self.stack = stack
  }

  /// The type just measured goes into the open aggregate, if that is where it is.
  @inline(__always)
  mutating func placeInAggregate() -> Bool {
    guard depth > 0 else { return true }
    let top = stack + (depth &- 1)
    guard top.pointee.kind == .aggregate else { return true }
    let placed =
      shape == .bitfield
      ? top.pointee.aggregate.addBitfield(bitfield, rules: rules)
      : top.pointee.aggregate.addField(size: size, alignment: alignment)
    return placed != nil
  }

  @_transparent
  mutating func primitive(_ code: TypeCode) -> Bool {
    caveats.formUnion(rules.caveats(of: code))
    (size, alignment) = rules.primitive(code)
    shape = code.isIntegral ? .integral : code == .otherFloat ? .otherFloat : .other
    return placeInAggregate()
  }

  @inline(__always)
  mutating func object(className: UnsafeBufferPointer<UInt8>?) -> Bool { block() }

  @inline(__always)
  mutating func block() -> Bool {
    (size, alignment, shape) = (rules.pointerSize, rules.pointerSize, .other)
    return placeInAggregate()
  }

  @inline(__always)
  mutating func bitfield(_ bitfield: TypeEncoding.Bitfield) -> Bool {
    if bitfield.declaredType == nil { caveats.insert(.bitfieldUnitAssumed) }
    (size, alignment) = rules.bitfieldUnit(declaredType: bitfield.declaredType, width: bitfield.width)
    self.bitfield = bitfield
    shape = .bitfield
    return placeInAggregate()
  }

  @inline(__always)
  mutating func record(isUnion: Bool, name: UnsafeBufferPointer<UInt8>) -> Bool {
    caveats.insert(.fieldsNotEncoded)
    (size, alignment, shape) = (0, 1, .aggregate)
    return placeInAggregate()
  }

  @inline(__always)
  mutating func open(_ node: EncodingNode) -> Bool {
    let kind: MeasureNesting.Kind
    switch node {
    // Nothing to keep: nothing inside is measured (the reader reads no pointee into this sink).
    case .qualifier, .pointer, .nestedSignature: return true
    case .complex: kind = .complex
    case .atomic: kind = .atomic
    case .array: kind = .array
    case .record: kind = .aggregate
    }
    guard depth < MeasureNesting.capacity else { return false }
    let slot = stack + depth
    slot.pointee.kind = kind
    if case .array(let count) = node { slot.pointee.count = count }
    if case .record(let isUnion, _) = node { slot.pointee.aggregate = AggregateLayout(isUnion: isUnion) }
    depth &+= 1
    return true
  }

  @inline(__always)
  mutating func field(name: UnsafeBufferPointer<UInt8>?) -> Bool { true }

  /// Completes the innermost node with the type just measured. `kind` is the reader's, a
  /// constant where the reader calls this (its stack and this one agree).
  @inline(__always)
  mutating func close(_ kind: ReaderNesting.Kind) -> Bool {
    switch kind {
    case .qualifier:
      return true
    case .pointer, .nestedSignature:
      (size, alignment, shape) = (rules.pointerSize, rules.pointerSize, .other)
      return placeInAggregate()
    default:
      break
    }
    depth &-= 1
    let top = stack + depth
    switch kind {
    case .complex:
      guard let (total, elementAlignment) = rules.complex((size, alignment)) else { return false }
      (size, alignment, shape) = (total, elementAlignment, .other)
    case .atomic:
      (size, alignment) = rules.atomic((size, alignment))
      shape = .aggregate
    case .array:
      guard let (total, elementAlignment) = rules.array(count: top.pointee.count, element: (size, alignment))
      else { return false }
      (size, alignment, shape) = (total, elementAlignment, .array)
    default:
      caveats.formUnion(top.pointee.aggregate.caveats)
      guard let (total, aggregateAlignment) = top.pointee.aggregate.finish(rules: rules) else { return false }
      (size, alignment, shape) = (total, aggregateAlignment, .aggregate)
    }
    return placeInAggregate()
  }
}
