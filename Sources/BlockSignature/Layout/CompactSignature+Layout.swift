// Layout straight from a compact signature's nodes: the rules of `LayoutRules` and
// `AggregateLayout`, walked over the nodes as `LayoutEngine` walks a tree.

extension CompactSignature {
  /// Computes sizes, slots and clang's offsets on `model`, and checks the written ones, as
  /// ``SignatureEncoding/layout(for:)`` does for the same text.
  ///
  ///     try CompactSignature(parsing: "i24@?0i8r*12").layout(for: .x86_64SysV).frameLength  // 20
  ///
  /// - Throws: ``LayoutError`` when a size overflows.
  public func layout(for model: DataModel = .x86_64SysV) throws(LayoutError) -> SignatureLayout {
    try storage.withNodes { nodes throws(LayoutError) in
      try SignatureLayout(laying: CompactLayoutSource(nodes: nodes, argumentCount: argumentCount), for: model)
    }
  }
}

/// The sizes and alignments of the types in a compact signature's nodes.
struct CompactMeasure {
  let nodes: CompactNodes
  let rules: LayoutRules
  var caveats = LayoutCaveats()

  init(nodes: CompactNodes, rules: LayoutRules) {
    self.nodes = nodes
    self.rules = rules
  }

  func overflow(_ index: Int) -> LayoutError {
    LayoutError(kind: .sizeOverflow, encoding: nodes.type(at: index).description)
  }

  mutating func measure(_ index: Int) throws(LayoutError) -> (size: Int, alignment: Int) {
    let node = nodes[index]
    switch node.kind {
    case .primitive:
      let code = node.typeCode
      caveats.formUnion(rules.caveats(of: code))
      return rules.primitive(code)
    case .object, .block, .pointer:
      return (rules.pointerSize, rules.pointerSize)
    case .array:
      guard let result = rules.array(count: node.value, element: try measure(index &+ 1)) else {
        throw overflow(index)
      }
      return result
    case .structure, .union:
      guard node.flags & CompactNode.Flag.hasFields != 0 else {
        caveats.insert(.fieldsNotEncoded)
        return (0, 1)
      }
      return try aggregate(index)
    case .bitfield:
      guard node.flags & CompactNode.Flag.isGNU != 0 else {
        caveats.insert(.bitfieldUnitAssumed)
        return rules.bitfieldUnit(declaredType: nil, width: node.value)
      }
      return rules.bitfieldUnit(declaredType: node.typeCode, width: node.value)
    case .complex:
      guard let result = rules.complex(try measure(index &+ 1)) else { throw overflow(index) }
      return result
    case .atomic:
      return rules.atomic(try measure(index &+ 1))
    case .qualified:
      return try measure(index &+ 1)
    case .unencodable, .fieldName, .bitOffset, .argument, .signature:
      caveats.insert(.unknownSize)
      return (0, 1)
    }
  }

  /// Lays out the fields of the record at `index` in order (or all at 0 for a union).
  mutating func aggregate(_ index: Int) throws(LayoutError) -> (size: Int, alignment: Int) {
    var builder = AggregateLayout(isUnion: nodes[index].kind == .union)
    let end = Int(nodes[index].end)
    var field = index &+ 1
    while field < end {
      if nodes[field].kind == .fieldName { field &+= 1 }
      let type = nodes.unqualified(field)
      let start: Int?
      if nodes[type].kind == .bitfield {
        let bitfield = nodes[type]
        let isGNU = bitfield.flags & CompactNode.Flag.isGNU != 0
        start = builder.addBitfield(
          bitOffset: isGNU ? nodes[type &+ 1].value : nil, declaredType: isGNU ? bitfield.typeCode : nil,
          width: bitfield.value, rules: rules)
      } else {
        let (size, alignment) = try measure(field)
        start = builder.addField(size: size, alignment: alignment)
      }
      guard start != nil else { throw overflow(index) }
      field = Int(nodes[field].end)
    }
    caveats.formUnion(builder.caveats)
    guard let result = builder.finish(rules: rules) else { throw overflow(index) }
    return result
  }

  /// What the signature-level rules need to know of the type at `index` (qualifiers skipped).
  func shape(_ index: Int) -> TypeShape {
    let node = nodes[nodes.unqualified(index)]
    switch node.kind {
    case .array: return .array
    case .primitive where node.typeCode.isIntegral: return .integral
    case .primitive where node.typeCode == .otherFloat: return .otherFloat
    case .structure, .union, .atomic: return .aggregate
    case .unencodable: return .unencodable
    case .bitfield: return .bitfield
    default: return .other
    }
  }

  /// The slot, layout and shape of the type at `index`, as a parameter. A primitive or a
  /// pointer (most parameters) is answered without a walk.
  @inline(__always)
  static func parameterSlot(_ index: Int, nodes: CompactNodes, rules: LayoutRules) throws(LayoutError)
    -> ParameterSlot
  {
    let node = nodes[index]
    switch node.kind {
    case .primitive:
      let code = node.typeCode
      let (size, alignment) = rules.primitive(code)
      let shape: TypeShape = code.isIntegral ? .integral : code == .otherFloat ? .otherFloat : .other
      return (
        rules.parameterSlot(size: size, shape: shape),
        TypeLayout(size: size, alignment: alignment, caveats: rules.caveats(of: code)), shape
      )
    case .object, .block, .pointer:
      return (rules.pointerSize, TypeLayout(size: rules.pointerSize, alignment: rules.pointerSize), .other)
    default:
      var measure = CompactMeasure(nodes: nodes, rules: rules)
      let (size, alignment) = try measure.measure(index)
      let shape = measure.shape(index)
      return (
        rules.parameterSlot(size: size, shape: shape),
        TypeLayout(size: size, alignment: alignment, caveats: measure.caveats), shape
      )
    }
  }
}

extension CompactNodes {
  /// ``TypeEncoding/hasKnownZeroSize`` of the type at `index`.
  func hasKnownZeroSize(at index: Int) -> Bool {
    var measure = CompactMeasure(nodes: self, rules: LayoutRules(.x86_64SysV))
    guard let (size, _) = try? measure.measure(index) else { return false }
    return TypeEncoding.isKnownZeroSize(size, caveats: measure.caveats)
  }
}

/// A compact signature, as ``SignatureLayout/init(laying:for:)`` reads it.
struct CompactLayoutSource: SignatureLayoutSource {
  let nodes: CompactNodes
  let argumentCount: Int

  var writtenFrameLength: Int? { nodes.offset(of: nodes[0])?.value }
  var returnIsUnencodable: Bool { nodes[1].kind == .unencodable }
  var returnType: TypeEncoding { nodes.type(at: 1) }
  var text: String { nodes.text }
  var kind: SignatureEncoding.Kind { nodes.kind(argumentCount: argumentCount) }

  func returnSlot(rules: LayoutRules) throws(LayoutError) -> ParameterSlot {
    try CompactMeasure.parameterSlot(1, nodes: nodes, rules: rules)
  }

  func makeCursor() -> Cursor { Cursor(nodes: nodes, next: Int(nodes[1].end)) }

  /// Walks the `.argument` nodes in order.
  struct Cursor: ArgumentCursor {
    let nodes: CompactNodes
    /// The current argument's node (-1 before the first).
    var node = -1
    var next: Int

    init(nodes: CompactNodes, next: Int) {
      self.nodes = nodes
      self.next = next
    }

    mutating func advance() -> Bool {
      guard next < nodes.count else { return false }
      node = next
      next = Int(nodes[node].end)
      return true
    }

    func slot(rules: LayoutRules) throws(LayoutError) -> ParameterSlot {
      try CompactMeasure.parameterSlot(node &+ 1, nodes: nodes, rules: rules)
    }

    var written: Int? { nodes.offset(of: nodes[node])?.value }
    var nextWritten: Int? { nodes.offset(of: next < nodes.count ? nodes[next] : nodes[0])?.value }
    var type: TypeEncoding { nodes.type(at: node &+ 1) }
  }
}
