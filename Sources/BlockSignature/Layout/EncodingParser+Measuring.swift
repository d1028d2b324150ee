// The single-pass layout scanner: reads one type encoding with the parser's own lexing helpers
// and computes its size and alignment with `LayoutRules`/`AggregateLayout` as it goes, building
// no tree. It accepts and rejects exactly what `parseType` does (same errors, same offsets) and
// measures exactly what `LayoutEngine.measure` does; `SignatureFrameTests` checks both claims.

/// The result of measuring one type.
struct MeasuredType {
  var size: Int
  var alignment: Int
  /// The outermost node, qualifiers stripped.
  var shape: TypeShape
  /// The bitfield, when the outermost node (qualifiers stripped) is one.
  var bitfield: TypeEncoding.Bitfield? = nil
}

/// What measuring collects besides sizes: the caveats, and the first node whose size overflowed
/// (in the order the tree engine would meet it), reported once the whole input has parsed.
struct MeasureState {
  var caveats: LayoutCaveats = []
  var overflow: Range<Int>? = nil

  @inline(__always)
  mutating func fail(_ range: Range<Int>) {
    if overflow == nil { overflow = range }
  }
}

extension EncodingParser {
  /// Reads one type at the cursor and returns its size and alignment under `rules`.
  mutating func measureType(
    rules: LayoutRules, state: inout MeasureState, fieldTerminator: UInt8? = nil
  ) throws(EncodingError) -> MeasuredType {
    let start = cursor.offset
    guard let byte = cursor.peek() else { throw error(.unexpectedEnd, at: start) }
    switch byte {
    case "r", "n", "N", "o", "O", "R", "V":
      cursor.advance()
      try enter(at: start)
      let inner = try measureType(rules: rules, state: &state, fieldTerminator: fieldTerminator)
      leave()
      return inner
    case "^":
      cursor.advance()
      try enter(at: start)
      // A pointer's size does not depend on its pointee: the tree engine never measures it.
      var pointee = MeasureState()
      _ = try measureType(rules: rules, state: &pointee)
      leave()
      return MeasuredType(size: rules.pointerSize, alignment: rules.pointerSize, shape: .other)
    case "j", "A":
      cursor.advance()
      try enter(at: start)
      let inner = try measureType(rules: rules, state: &state)
      leave()
      if byte == "A" {
        let (size, alignment) = rules.atomic((inner.size, inner.alignment))
        return MeasuredType(size: size, alignment: alignment, shape: .aggregate)
      }
      guard let (size, alignment) = rules.complex((inner.size, inner.alignment)) else {
        state.fail(start..<cursor.offset)
        return MeasuredType(size: 0, alignment: 1, shape: .other)
      }
      return MeasuredType(size: size, alignment: alignment, shape: .other)
    case "[":
      return try measureArray(rules: rules, state: &state)
    case "{", "(":
      return try measureAggregate(rules: rules, state: &state)
    case "b":
      let bitfield = try scanBitfield()
      if bitfield.declaredType == nil { state.caveats.insert(.bitfieldUnitAssumed) }
      let (size, alignment) = rules.bitfieldUnit(declaredType: bitfield.declaredType, width: bitfield.width)
      return MeasuredType(size: size, alignment: alignment, shape: .bitfield, bitfield: bitfield)
    case "@":
      switch try scanObject(fieldTerminator: fieldTerminator) {
      case .object(let className):
        if let className { try validateName(className) }
      case .block(hasSignature: false):
        break
      case .block(hasSignature: true):
        let open = cursor.offset - 1
        try enter(at: start)
        // Nested signatures do not affect the block pointer's size.
        var nested = MeasureState()
        var count = 0
        while try scanNestedSignatureElement(open: open, isEmpty: count == 0) {
          _ = try measureType(rules: rules, state: &nested)
          count += 1
        }
        leave()
      }
      return MeasuredType(size: rules.pointerSize, alignment: rules.pointerSize, shape: .other)
    default:
      guard let code = TypeCode(rawValue: byte) else { throw error(.unexpectedByte, at: start) }
      cursor.advance()
      state.caveats.formUnion(rules.caveats(of: code))
      let (size, alignment) = rules.primitive(code)
      let shape: TypeShape = code.isIntegral ? .integral : code == .otherFloat ? .otherFloat : .other
      return MeasuredType(size: size, alignment: alignment, shape: shape)
    }
  }

  private mutating func measureArray(rules: LayoutRules, state: inout MeasureState) throws(EncodingError)
    -> MeasuredType
  {
    let start = cursor.offset
    cursor.advance()
    guard let count = try parseNumber() else {
      if cursor.isAtEnd { throw error(.unterminatedArray, at: start) }
      throw error(.missingArrayCount, at: cursor.offset)
    }
    if cursor.isAtEnd { throw error(.unterminatedArray, at: start) }
    try enter(at: start)
    let element = try measureType(rules: rules, state: &state)
    leave()
    guard let close = cursor.peek() else { throw error(.unterminatedArray, at: start) }
    guard close == "]" else { throw error(.unexpectedByte, at: cursor.offset) }
    cursor.advance()
    guard let (size, alignment) = rules.array(count: count, element: (element.size, element.alignment)) else {
      state.fail(start..<cursor.offset)
      return MeasuredType(size: 0, alignment: 1, shape: .array)
    }
    return MeasuredType(size: size, alignment: alignment, shape: .array)
  }

  private mutating func measureAggregate(rules: LayoutRules, state: inout MeasureState) throws(EncodingError)
    -> MeasuredType
  {
    let start = cursor.offset
    let header = try scanAggregateHeader()
    defer { leave() }
    try validateName(header.name)
    guard header.hasFields else {
      state.caveats.insert(.fieldsNotEncoded)
      return MeasuredType(size: 0, alignment: 1, shape: .aggregate)
    }
    var builder = AggregateLayout(isUnion: header.isUnion)
    // The tree engine stops at the first field that overflows the aggregate: claim the report
    // for this aggregate at once (its end is known only after the closing byte).
    var claimedOverflow = false
    while let nameRange = try scanFieldStart(header, start: start) {
      if let nameRange { try validateName(nameRange) }
      let field = try measureType(
        rules: rules, state: &state, fieldTerminator: nameRange == nil ? nil : header.close)
      if claimedOverflow || state.overflow != nil { continue }
      let placed =
        if let bitfield = field.bitfield {
          builder.addBitfield(bitfield, rules: rules)
        } else {
          builder.addField(size: field.size, alignment: field.alignment)
        }
      if placed == nil {
        claimedOverflow = true
        state.fail(start..<start)
      }
    }
    state.caveats.formUnion(builder.caveats)
    if claimedOverflow {
      state.overflow = start..<cursor.offset
      return MeasuredType(size: 0, alignment: 1, shape: .aggregate)
    }
    guard let (size, alignment) = builder.finish(rules: rules) else {
      state.fail(start..<cursor.offset)
      return MeasuredType(size: 0, alignment: 1, shape: .aggregate)
    }
    return MeasuredType(size: size, alignment: alignment, shape: .aggregate)
  }
}
