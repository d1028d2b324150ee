// Parsing into a compact signature: `EncodingReader`'s signature walk reads the bytes, and
// `NodeWriter` appends one node per event to a scratch buffer on the machine stack; the nodes
// and the text are then copied into the signature's one allocation.

extension CompactSignature {
  /// Parses a block signature, a method signature or a list of types, as
  /// ``SignatureEncoding/init(parsing:options:)`` does.
  ///
  ///     let signature = try CompactSignature(parsing: "v24@?08")
  ///     signature.argumentType(at: 1)  // .unencodable (a vector parameter), at offset 8
  ///
  /// - Throws: ``EncodingError`` with the kind and byte offset of the problem.
  /// - Complexity: O(*n*) in the length of `input`; one allocation.
  public init(parsing input: String, options: ParseOptions = ParseOptions()) throws(EncodingError) {
    self = try withContiguousUTF8(input) { bytes throws(EncodingError) in
      try CompactSignature(parsingBytes: bytes, options: options)
    }
  }

  /// Parses a signature from UTF-8 bytes, for example a C string read from a block descriptor.
  ///
  ///     let signature = try CompactSignature(parsingBytes: UnsafeBufferPointer(start: p, count: strlen(p)))
  ///
  /// - Throws: ``EncodingError``; an input of 1 GiB or more is a `countOverflow` at offset 0.
  public init(
    parsingBytes bytes: UnsafeBufferPointer<UInt8>, options: ParseOptions = ParseOptions()
  ) throws(EncodingError) {
    guard bytes.count < 1 << 30 else {
      throw EncodingError(kind: .countOverflow, offset: 0, input: String(decoding: bytes, as: UTF8.self))
    }
    var storage: CompactStorage? = nil
    if bytes.count >= NodeWriter.smallCapacity / 2,
      case .finished(let error) = Self.attempt(
        bytes, options: options, capacity: NodeWriter.smallCapacity, depth: NodeWriter.smallDepth, &storage)
    {
      if let error { throw error }
      self.init(storage: storage!)
      return
    }
    // A signature of n bytes has at most 2n + 2 nodes, and no more open ones than its bytes or
    // the depth limit (the reader checks the limit before it needs room): this try finishes.
    let capacity = 2 &* bytes.count &+ 2
    let limit = max(options.maximumNestingDepth, 0)
    let depth = limit < bytes.count ? limit &+ 1 : bytes.count &+ 1
    guard
      case .finished(let error) = Self.attempt(bytes, options: options, capacity: capacity, depth: depth, &storage)
    else {
      preconditionFailure("a signature outgrew a buffer of twice its bytes")
    }
    if let error { throw error }
    self.init(storage: storage!)
  }

  /// How one try of reading ended.
  private enum Attempt {
    /// With the reader's error, or `nil` when the storage was made.
    case finished(EncodingError?)
    /// The scratch buffers ran out.
    case outOfRoom
  }

  /// One try with room for `capacity` nodes and `depth` open ones.
  private static func attempt(
    _ bytes: UnsafeBufferPointer<UInt8>, options: ParseOptions, capacity: Int, depth: Int,
    _ storage: inout CompactStorage?
  ) -> Attempt {
    withUnsafeTemporaryAllocation(of: CompactNode.self, capacity: capacity) { nodes in
      withUnsafeTemporaryAllocation(of: Int32.self, capacity: depth) { open in
        withUnsafeTemporaryAllocation(of: ReaderNesting.self, capacity: depth) { nesting in
          let base = bytes.baseAddress ?? EncodingReader.emptyInput
          var writer = NodeWriter(
            nodes: nodes.baseAddress!, capacity: capacity, open: open.baseAddress!, depth: depth, text: base)
          // No return type before an offset (`24@?08`): an unencodable one, as the tree has.
          if let first = bytes.first, isDigit(first) || first == 0x2B || first == 0x2D {
            _ = writer.append(.unencodable)
          }
          var reader = EncodingReader(
            base: base, count: bytes.count, maximumDepth: options.maximumNestingDepth, stack: nesting.baseAddress!,
            capacity: depth)
          var visitor = CompactVisitor()
          guard
            reader.readSignatureHead(&visitor, sink: &writer), reader.readSignatureArguments(&visitor, sink: &writer)
          else {
            return reader.failure == nil ? .outOfRoom : .finished(reader.error())
          }
          writer.nodes[0].end = UInt32(writer.count)
          if let frame = visitor.frame { CompactVisitor.store(frame, in: &writer.nodes[0]) }
          storage = CompactStorage.make(
            nodes: UnsafeBufferPointer(start: writer.nodes, count: writer.count),
            text: UnsafeBufferPointer(start: base, count: bytes.count), argumentCount: visitor.argumentCount)
          return .finished(nil)
        }
      }
    }
  }
}

/// The sink that appends one ``CompactNode`` per event of the reader; an open node's `end` is
/// set when the reader closes it.
struct NodeWriter: EncodingSink {
  /// Nodes, and open nodes, for a first try: each buffer within the 1 KiB that
  /// `withUnsafeTemporaryAllocation` keeps on the machine stack. A signature of fewer than
  /// `smallCapacity / 2` bytes fits in one try of its own size, within that too.
  static let smallCapacity = 64
  static let smallDepth = 16

  let nodes: UnsafeMutablePointer<CompactNode>
  let capacity: Int
  private(set) var count = 0
  /// The open nodes' indices.
  private let open: UnsafeMutablePointer<Int32>
  private let depth: Int
  private var openCount = 0
  /// The text, for the ranges of names.
  private let text: UnsafePointer<UInt8>

  static var readsQualifiers: Bool { true }
  static var readsPointees: Bool { true }

  init(
    nodes: UnsafeMutablePointer<CompactNode>, capacity: Int, open: UnsafeMutablePointer<Int32>, depth: Int,
    text: UnsafePointer<UInt8>
  ) {
    self.nodes = nodes
    self.capacity = capacity
    self.open = open
    self.depth = depth
    self.text = text
    // The signature's own node; its `end` is set at the end.
    _ = append(.signature)
  }

  /// Appends a node without inner nodes (`inner` more nodes follow it before its end).
  @inline(__always)
  mutating func append(_ kind: CompactNode.Kind, code: UInt8 = 0, flags: UInt16 = 0, value: UInt64 = 0, inner: Int = 0)
    -> Bool
  {
    guard count < capacity else { return false }
    (nodes + count).initialize(
      to: CompactNode(
        kind, code: code, flags: flags, end: UInt32(truncatingIfNeeded: count &+ 1 &+ inner), value: value))
    count &+= 1
    return true
  }

  @inline(__always)
  private func range(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
    guard let start = name.baseAddress else { return 0 }
    return CompactNode.range(start: start - text, count: name.count)
  }

  mutating func primitive(_ code: TypeCode) -> Bool { append(.primitive, code: CompactNode.code(code)) }

  mutating func object(className: UnsafeBufferPointer<UInt8>?) -> Bool {
    guard let className else { return append(.object) }
    return append(.object, flags: CompactNode.Flag.hasName, value: range(className))
  }

  mutating func block() -> Bool { append(.block) }

  mutating func bitfield(_ bitfield: TypeEncoding.Bitfield) -> Bool {
    guard let bitOffset = bitfield.bitOffset, let declared = bitfield.declaredType else {
      return append(.bitfield, value: bitfield.width)
    }
    return append(
      .bitfield, code: CompactNode.code(declared), flags: CompactNode.Flag.isGNU, value: bitfield.width, inner: 1)
      && append(.bitOffset, value: bitOffset)
  }

  mutating func record(isUnion: Bool, name: UnsafeBufferPointer<UInt8>) -> Bool {
    append(isUnion ? .union : .structure, value: range(name))
  }

  mutating func open(_ node: EncodingNode) -> Bool {
    guard openCount < depth else { return false }
    open[openCount] = Int32(truncatingIfNeeded: count)
    openCount &+= 1
    switch node {
    case .qualifier(let qualifier): return append(.qualified, code: qualifier.rawValue)
    case .pointer: return append(.pointer)
    case .complex: return append(.complex)
    case .atomic: return append(.atomic)
    case .array(let count): return append(.array, value: count)
    case .record(let isUnion, let name):
      return append(isUnion ? .union : .structure, flags: CompactNode.Flag.hasFields, value: range(name))
    case .nestedSignature: return append(.block, flags: CompactNode.Flag.hasSignature)
    }
  }

  mutating func field(name: UnsafeBufferPointer<UInt8>?) -> Bool {
    guard let name else { return true }
    return append(.fieldName, value: range(name))
  }

  mutating func close(_ kind: ReaderNesting.Kind) -> Bool {
    openCount &-= 1
    nodes[Int(open[openCount])].end = UInt32(truncatingIfNeeded: count)
    return true
  }
}

/// The signature's top level, for the compact form: the frame length goes into the first node,
/// and each argument's offset into the `.argument` node written before its type.
struct CompactVisitor: SignatureVisitor {
  var argumentCount = 0
  /// Whether the frame length is read (types from then on are arguments).
  var headIsRead = false
  var frame: SignatureEncoding.Offset? = nil
  var previous: Int? = nil
  /// The `.argument` node of the argument being read.
  var marker = 0
  var pieces = OffsetPieces()

  @inline(__always)
  mutating func willRead(into sink: inout NodeWriter) {
    guard headIsRead else { return }
    marker = sink.count
    // Out of room: the type's first node does not fit either, and the reading stops.
    _ = sink.append(.argument)
  }

  @inline(__always)
  func returnType(_ sink: inout NodeWriter, end: Int) -> Bool { true }

  @inline(__always)
  mutating func frameLength(_ offset: WrittenOffset, reader: inout EncodingReader) -> Bool {
    guard let written = reader.singleOffset(offset) else { return false }
    headIsRead = true
    frame = written
    return true
  }

  @inline(__always)
  mutating func argument(
    _ sink: inout NodeWriter, typeStart: Int, offset: WrittenOffset, reader: inout EncodingReader
  ) -> SignatureStep {
    guard sink.count > marker, sink.nodes[marker].kind == .argument else { return .fail }
    let marker = self.marker
    let nodes = sink.nodes
    let count = sink.count
    // The common case: one plain offset that the rule takes at once (as the frame scanner reads it).
    if offset.sign == .none, !offset.isAbsent, (previous ?? 0) >= 0, (frame?.value ?? 0) >= 0,
      let whole = reader.wholeOffset(offset, previous: previous ?? -1, frame: frame?.value ?? -1)
    {
      nodes[marker].end = UInt32(truncatingIfNeeded: count)
      Self.store(SignatureEncoding.Offset(whole), in: &nodes[marker])
      argumentCount &+= 1
      previous = whole
      return .next
    }
    let text = reader.base
    let textCount = reader.count
    guard
      let run = reader.offsetRun(
        offset, previous: previous, frame: frame?.value, pieces: &pieces,
        firstHasZeroSize: {
          CompactNodes(base: nodes, count: count, text: text, textCount: textCount).hasKnownZeroSize(at: marker &+ 1)
        })
    else { return .fail }
    nodes[marker].end = UInt32(truncatingIfNeeded: count)
    argumentCount &+= 1
    switch run {
    case .single(let offset):
      if let offset { Self.store(offset, in: &nodes[marker]) }
    case .split:
      Self.store(SignatureEncoding.Offset(pieces[0]), in: &nodes[marker])
      for index in 1..<pieces.count {
        let piece = SignatureEncoding.Offset(pieces[index])
        guard sink.append(.argument, inner: 1), sink.append(.unencodable) else { return .fail }
        Self.store(piece, in: &sink.nodes[sink.count &- 2])
        argumentCount &+= 1
      }
    }
    previous = run.last ?? previous
    return .next
  }

  @inline(__always)
  static func store(_ offset: SignatureEncoding.Offset, in node: inout CompactNode) {
    node.flags = CompactNode.Flag.hasOffset | (offset.isRegister ? CompactNode.Flag.isRegister : 0)
    node.value = UInt64(bitPattern: Int64(offset.value))
  }
}
