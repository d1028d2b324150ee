// `TypeEncoding` values made from a compact signature's nodes, when asked for; and a compact
// signature made from a tree.

extension CompactSignature {
  /// The compact form of a tree, read again from its text.
  ///
  ///     let tree = try SignatureEncoding(parsing: "i@?ir*").synthesizingOffsets(for: .x86_64SysV)
  ///     try CompactSignature(tree).description  // i20@?0i8r*12
  ///
  /// - Throws: ``EncodingError`` for a tree made by hand whose text does not read back, such as
  ///   a structure name holding `=`.
  public init(_ signature: SignatureEncoding) throws(EncodingError) {
    try self.init(parsing: signature.description)
  }
}

extension CompactSignature: Codable {
  /// Decodes from the signature string.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    self = try CompactSignature(parsing: try container.decode(String.self))
  }

  /// Encodes as the signature string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

extension CompactNodes {
  /// The type whose node is at `index`.
  func type(at index: Int) -> TypeEncoding {
    let node = base[index]
    switch node.kind {
    case .primitive:
      return .primitive(node.typeCode)
    case .object:
      return .object(className: node.flags & CompactNode.Flag.hasName != 0 ? string(node) : nil)
    case .block:
      guard node.flags & CompactNode.Flag.hasSignature != 0 else { return .block(signature: nil) }
      var types: [TypeEncoding] = []
      var inner = index &+ 1
      while inner < Int(node.end) {
        types.append(type(at: inner))
        inner = Int(base[inner].end)
      }
      return .block(signature: types)
    case .pointer:
      return .pointer(type(at: index &+ 1))
    case .array:
      return .array(count: node.value, element: type(at: index &+ 1))
    case .structure, .union:
      let name = string(node)
      let fields = node.flags & CompactNode.Flag.hasFields != 0 ? self.fields(of: index) : nil
      return node.kind == .union ? .union(name: name, fields: fields) : .structure(name: name, fields: fields)
    case .bitfield:
      guard node.flags & CompactNode.Flag.isGNU != 0 else { return .bitfield(TypeEncoding.Bitfield(width: node.value)) }
      return .bitfield(
        TypeEncoding.Bitfield(bitOffset: base[index &+ 1].value, declaredType: node.typeCode, width: node.value))
    case .complex:
      return .complex(type(at: index &+ 1))
    case .atomic:
      return .atomic(type(at: index &+ 1))
    case .qualified:
      return .qualified(TypeQualifier(rawValue: node.code)!, type(at: index &+ 1))
    case .unencodable, .fieldName, .bitOffset, .argument, .signature:
      return .unencodable
    }
  }

  /// The fields of the record at `index`, with their names.
  private func fields(of index: Int) -> [TypeEncoding.Field] {
    var fields: [TypeEncoding.Field] = []
    var inner = index &+ 1
    let end = Int(base[index].end)
    while inner < end {
      var name: String? = nil
      if base[inner].kind == .fieldName {
        name = string(base[inner])
        inner &+= 1
      }
      fields.append(TypeEncoding.Field(name: name, type: type(at: inner)))
      inner = Int(base[inner].end)
    }
    return fields
  }
}
