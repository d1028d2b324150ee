/// A parsed signature held in one allocation: its nodes, and its text beside them.
///
/// ``SignatureEncoding`` is a tree of values, convenient to match and to edit; it allocates a
/// box for most nodes that hold another type and an array for every record's fields.
/// `CompactSignature` reads the same grammar into fixed-size nodes kept in one buffer with the
/// text, and lays the signature out straight from them. Its types are made as ``TypeEncoding``
/// values only when asked for. Keep it where many parsed signatures are kept (a cache, a scan of
/// a binary); use the tree to match or edit types.
///
///     let signature = try CompactSignature(parsing: "i24@?0{P=dic}8")
///     signature.argumentCount                        // 2
///     signature.argumentType(at: 1)                  // .structure(name: "P", fields: […])
///     try signature.layout(for: .x86_64SysV).frameLength  // 24
///     signature.tree == (try SignatureEncoding(parsing: "i24@?0{P=dic}8"))  // true
///
/// Two compact signatures are equal when their texts are: a text has exactly one tree.
public struct CompactSignature: Hashable, @unchecked Sendable, CustomStringConvertible {
  /// Never written after it is made, so that sharing it across threads is safe
  /// (`ManagedBuffer` is not `Sendable` itself).
  let storage: CompactStorage

  init(storage: CompactStorage) { self.storage = storage }

  /// The number of arguments, the block (or `self` and `_cmd`) included.
  public var argumentCount: Int { storage.header.argumentCount }

  /// The return type (the first type of a plain list of types); `.unencodable` when none is
  /// written.
  public var returnType: TypeEncoding { storage.withNodes { $0.type(at: 1) } }

  /// The frame length written after the return type.
  public var frameLength: SignatureEncoding.Offset? { storage.withNodes { $0.offset(of: $0[0]) } }

  /// The type of argument `index`, made from the nodes.
  ///
  /// - Complexity: O(1) to find the argument; O(*n*) in its nodes to make the type.
  /// - Precondition: `index` is below ``argumentCount``.
  public func argumentType(at index: Int) -> TypeEncoding {
    precondition(index >= 0 && index < argumentCount, "argument index out of range")
    return storage.withNodes { $0.type(at: $0.argumentNode(index) &+ 1) }
  }

  /// The offset written after argument `index`.
  ///
  /// - Complexity: O(1).
  /// - Precondition: `index` is below ``argumentCount``.
  public func offset(ofArgument index: Int) -> SignatureEncoding.Offset? {
    precondition(index >= 0 && index < argumentCount, "argument index out of range")
    return storage.withNodes { $0.offset(of: $0[$0.argumentNode(index)]) }
  }

  /// The same signature as a tree of values.
  public var tree: SignatureEncoding {
    storage.withNodes { nodes in
      var arguments: [SignatureEncoding.Argument] = []
      arguments.reserveCapacity(argumentCount)
      var index = Int(nodes[1].end)
      while index < nodes.count {
        arguments.append(
          SignatureEncoding.Argument(type: nodes.type(at: index &+ 1), offset: nodes.offset(of: nodes[index])))
        index = Int(nodes[index].end)
      }
      return SignatureEncoding(
        returnType: nodes.type(at: 1), frameLength: nodes.offset(of: nodes[0]), arguments: arguments)
    }
  }

  /// What the signature describes, decided from its first arguments as ``SignatureEncoding/kind``.
  public var kind: SignatureEncoding.Kind { storage.withNodes { $0.kind(argumentCount: argumentCount) } }

  /// The signature as written, byte for byte.
  public var description: String { storage.withText { String(decoding: $0, as: UTF8.self) } }

  /// The bytes the signature holds on the heap: its nodes, its argument index and its text,
  /// with the buffer's header.
  public var storageSize: Int {
    MemoryLayout<CompactStorage.Header>.stride + 16 + storage.capacity * MemoryLayout<CompactNode>.stride
  }

  /// Whether the two texts are the same bytes (and so the two trees the same).
  public static func == (lhs: CompactSignature, rhs: CompactSignature) -> Bool {
    lhs.storage === rhs.storage || lhs.storage.withText { left in rhs.storage.withText { left.elementsEqual($0) } }
  }

  /// Hashes the text.
  public func hash(into hasher: inout Hasher) {
    storage.withText { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
  }
}

/// One node of a ``CompactSignature``, 16 bytes. Nodes are in the order of the text; a node's
/// inner types follow it, up to ``end``.
struct CompactNode {
  enum Kind: UInt8 {
    /// `code` is the `TypeCode` (see `typeCode`).
    case primitive
    /// `value` is the class name's range, when `flags` has `hasName`.
    case object
    /// Inner types: the nested signature's, when `flags` has `hasSignature`.
    case block
    case pointer
    /// `value` is the count; one inner type.
    case array
    /// `value` is the name's range; inner types: the fields, when `flags` has `hasFields`.
    case structure
    case union
    /// `value` is the width; in the GNU form (`flags` has `isGNU`) `code` is the declared type,
    /// and a `bitOffset` inner node follows.
    case bitfield
    case complex
    case atomic
    /// `code` is the `TypeQualifier`.
    case qualified
    case unencodable
    /// Before a record's field: `value` is the field name's range.
    case fieldName
    /// Inside a GNU-form bitfield: `value` is the bit offset.
    case bitOffset
    /// Before each argument's type: `value` is the offset's bit pattern, when `flags` has
    /// `hasOffset`.
    case argument
    /// The first node: `value` is the frame length's, when `flags` has `hasOffset`.
    case signature
  }

  /// Bits of ``flags``.
  enum Flag {
    static let hasName: UInt16 = 1
    static let hasFields: UInt16 = 2
    static let hasSignature: UInt16 = 4
    static let hasOffset: UInt16 = 8
    static let isRegister: UInt16 = 16
    /// A bitfield in the GNU form: `code` is its declared type.
    static let isGNU: UInt16 = 32
  }

  var kind: Kind
  var code: UInt8
  var flags: UInt16
  /// The index one past the node's inner types.
  var end: UInt32
  var value: UInt64

  @inline(__always)
  init(_ kind: Kind, code: UInt8 = 0, flags: UInt16 = 0, end: UInt32, value: UInt64 = 0) {
    self.kind = kind
    self.code = code
    self.flags = flags
    self.end = end
    self.value = value
  }

  /// The `TypeCode` of a `.primitive` or GNU-form `.bitfield` node. `code` holds the case's
  /// index, not its raw value (the byte), so that reading it back needs no switch.
  @inline(__always) var typeCode: TypeCode { unsafeBitCast(code, to: TypeCode.self) }

  /// `code` for `typeCode`.
  @inline(__always) static func code(_ typeCode: TypeCode) -> UInt8 { unsafeBitCast(typeCode, to: UInt8.self) }

  /// A range of the text, as `value` holds it.
  @inline(__always)
  static func range(start: Int, count: Int) -> UInt64 { UInt64(truncatingIfNeeded: start) << 32 | UInt64(count) }

  @inline(__always) var rangeStart: Int { Int(truncatingIfNeeded: value >> 32) }
  @inline(__always) var rangeCount: Int { Int(truncatingIfNeeded: value & 0xFFFF_FFFF) }
}

/// The one allocation of a ``CompactSignature``: the nodes, the index of each argument's node
/// (so that an argument is found at once, however many there are), then the text's bytes.
final class CompactStorage: ManagedBuffer<CompactStorage.Header, CompactNode> {
  struct Header {
    var nodeCount: Int
    var textCount: Int
    var argumentCount: Int
  }

  /// A storage holding `nodes`, the index of their `.argument` nodes, and `text`.
  static func make(nodes: UnsafeBufferPointer<CompactNode>, text: UnsafeBufferPointer<UInt8>, argumentCount: Int)
    -> CompactStorage
  {
    let tableNodes = tableNodeCount(argumentCount)
    let textNodes = (text.count &+ 15) / 16
    let buffer = create(minimumCapacity: nodes.count &+ tableNodes &+ textNodes) { _ in
      Header(nodeCount: nodes.count, textCount: text.count, argumentCount: argumentCount)
    }
    buffer.withUnsafeMutablePointerToElements { elements in
      elements.initialize(from: nodes.baseAddress!, count: nodes.count)
      let table = UnsafeMutableRawPointer(elements + nodes.count).bindMemory(to: UInt32.self, capacity: argumentCount)
      var node = Int(nodes[1].end)
      for argument in 0..<argumentCount {
        table[argument] = UInt32(truncatingIfNeeded: node)
        node = Int(nodes[node].end)
      }
      if text.count > 0 {
        UnsafeMutableRawPointer(elements + (nodes.count &+ tableNodes)).bindMemory(to: UInt8.self, capacity: text.count)
          .initialize(from: text.baseAddress!, count: text.count)
      }
    }
    // `create` is declared to return the base class; the object is this class.
    return unsafeDowncast(buffer, to: CompactStorage.self)
  }

  /// The node-sized elements the argument table takes (four bytes an argument).
  @inline(__always)
  private static func tableNodeCount(_ argumentCount: Int) -> Int { (argumentCount &* 4 &+ 15) / 16 }

  @inline(__always)
  func withNodes<R>(_ body: (CompactNodes) throws(LayoutError) -> R) throws(LayoutError) -> R {
    try withUnsafeMutablePointers { header, elements throws(LayoutError) in try body(nodes(elements, header)) }
  }

  @inline(__always)
  func withNodes<R>(_ body: (CompactNodes) -> R) -> R {
    withUnsafeMutablePointers { header, elements in body(nodes(elements, header)) }
  }

  @inline(__always)
  func withText<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    withUnsafeMutablePointers { header, elements in
      let nodes = nodes(elements, header)
      return body(UnsafeBufferPointer(start: nodes.textStart, count: nodes.textCount))
    }
  }

  @inline(__always)
  private func nodes(_ elements: UnsafeMutablePointer<CompactNode>, _ header: UnsafeMutablePointer<Header>)
    -> CompactNodes
  {
    let table = UnsafeRawPointer(elements + header.pointee.nodeCount)
    return CompactNodes(
      base: elements, count: header.pointee.nodeCount,
      text: (table + Self.tableNodeCount(header.pointee.argumentCount) &* 16).assumingMemoryBound(to: UInt8.self),
      textCount: header.pointee.textCount, arguments: table.assumingMemoryBound(to: UInt32.self))
  }

  deinit {
    _ = withUnsafeMutablePointers { header, elements in
      // Nodes are trivial; the table and the text lie past them as raw bytes.
      elements.deinitialize(count: header.pointee.nodeCount)
    }
  }
}

/// The nodes of one signature and its text, for reading.
struct CompactNodes {
  let base: UnsafePointer<CompactNode>
  let count: Int
  let textStart: UnsafePointer<UInt8>
  let textCount: Int
  /// The index of each argument's `.argument` node; `nil` while the nodes are being written.
  let arguments: UnsafePointer<UInt32>?

  init(
    base: UnsafePointer<CompactNode>, count: Int, text: UnsafePointer<UInt8>, textCount: Int,
    arguments: UnsafePointer<UInt32>? = nil
  ) {
    self.base = base
    self.count = count
    self.textStart = text
    self.textCount = textCount
    self.arguments = arguments
  }

  /// The whole text.
  var text: String { String(decoding: UnsafeBufferPointer(start: textStart, count: textCount), as: UTF8.self) }

  /// ``SignatureEncoding/kind``, from the first arguments' nodes.
  func kind(argumentCount: Int) -> SignatureEncoding.Kind {
    guard argumentCount > 0 else { return .types }
    let first = base[unqualified(argumentNode(0) &+ 1)]
    // The second is read only when it can decide: after an object.
    let second = first.kind == .object && argumentCount >= 2 ? base[unqualified(argumentNode(1) &+ 1)] : nil
    return SignatureEncoding.Kind(
      firstIsBlock: first.kind == .block, firstIsObject: first.kind == .object,
      secondIsSelector: second.map { $0.kind == .primitive && $0.typeCode == .selector } ?? false)
  }

  @inline(__always) subscript(index: Int) -> CompactNode { base[index] }

  /// The node of argument `index`'s `.argument` marker.
  @inline(__always)
  func argumentNode(_ index: Int) -> Int {
    if let arguments { return Int(arguments[index]) }
    var node = Int(base[1].end)
    for _ in 0..<index { node = Int(base[node].end) }
    return node
  }

  /// The node under any qualifiers of the type at `index`.
  @inline(__always)
  func unqualified(_ index: Int) -> Int {
    var index = index
    while base[index].kind == .qualified { index &+= 1 }
    return index
  }

  /// The offset an `.argument` or `.signature` node holds.
  @inline(__always)
  func offset(of node: CompactNode) -> SignatureEncoding.Offset? {
    guard node.flags & CompactNode.Flag.hasOffset != 0 else { return nil }
    return SignatureEncoding.Offset(
      Int(truncatingIfNeeded: node.value), isRegister: node.flags & CompactNode.Flag.isRegister != 0)
  }

  /// The text a node's range names.
  func string(_ node: CompactNode) -> String {
    String(decoding: UnsafeBufferPointer(start: textStart + node.rangeStart, count: node.rangeCount), as: UTF8.self)
  }
}
