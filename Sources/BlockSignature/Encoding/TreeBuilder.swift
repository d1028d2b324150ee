// The sink that builds `TypeEncoding` trees from what `EncodingReader` reads. Completed types
// wait on a value stack; each open node remembers where its inner types begin on it, and is
// made when the reader closes it, its inner types moved (not copied) into it. Both stacks live
// in the caller's frame (`withUnsafeTemporaryAllocation`), small enough to stay on the machine
// stack; a type that needs more is read again with room for any input of its length. The only
// allocations are the tree's own (field and nested-signature arrays, boxes of indirect cases,
// long names).

/// Builds the tree of each type read into it; ``take()`` hands over the type read last.
/// Call ``discard()`` before its storage goes away.
struct TreeBuilder: EncodingSink {
  /// An open node, and where its inner types begin on the value stack.
  struct Frame {
    enum Kind: UInt8 { case qualifier, pointer, complex, atomic, array, record, union, nestedSignature }
    var kind: Kind
    var qualifier: TypeQualifier = .const
    var base: Int
    var count: UInt64 = 0
    var name: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0)
    /// The name of the field the node is, in the record around it.
    var fieldName: UnsafeBufferPointer<UInt8>? = nil
  }

  /// Completed types not yet taken into their parent, and beside each its field name (when it
  /// is a named field of a record).
  private let values: UnsafeMutablePointer<TypeEncoding>
  private let names: UnsafeMutablePointer<UnsafeBufferPointer<UInt8>?>
  private var valueCount = 0
  private let frames: UnsafeMutablePointer<Frame>
  private var frameCount = 0
  /// The room of each stack.
  private let capacity: Int
  /// The name the next field takes.
  private var fieldName: UnsafeBufferPointer<UInt8>? = nil

  static var readsQualifiers: Bool { true }
  static var readsPointees: Bool { true }

  /// A builder over storage for `capacity` values (with their names) and open nodes: a type of
  /// *n* bytes never needs more than *n* of either.
  init(
    values: UnsafeMutablePointer<TypeEncoding>, names: UnsafeMutablePointer<UnsafeBufferPointer<UInt8>?>,
    frames: UnsafeMutablePointer<Frame>, capacity: Int
  ) {
    self.values = values
    self.names = names
    self.frames = frames
    self.capacity = capacity
  }

  /// Room on the machine stack for the first try: each stack within the 1 KiB that
  /// `withUnsafeTemporaryAllocation` keeps there.
  static let smallCapacity = 16

  /// Reads `bytes` with `read`, given a reader and a builder; returns the reader's error, or
  /// `nil` when `read` succeeded. Stacks of ``smallCapacity`` come first; when they run out (a
  /// stop without an error), the reading starts over with room for any input of that length.
  static func read(
    _ bytes: UnsafeBufferPointer<UInt8>, options: ParseOptions,
    _ read: (inout EncodingReader, inout TreeBuilder) -> Bool
  ) -> EncodingError? {
    if bytes.count > smallCapacity,
      case .finished(let error) = attempt(bytes, options: options, capacity: smallCapacity, read)
    {
      return error
    }
    // A type of n bytes never has more than n values or open nodes: this try finishes.
    guard case .finished(let error) = attempt(bytes, options: options, capacity: max(1, bytes.count), read) else {
      preconditionFailure("a type outgrew stacks as long as its bytes")
    }
    return error
  }

  /// How one try of ``read(_:options:_:)`` ended.
  private enum Attempt {
    /// With the reader's error, or `nil` when `read` succeeded.
    case finished(EncodingError?)
    /// The stacks ran out.
    case outOfRoom
  }

  /// One try of ``read(_:options:_:)`` with stacks of `capacity`.
  private static func attempt(
    _ bytes: UnsafeBufferPointer<UInt8>, options: ParseOptions, capacity: Int,
    _ read: (inout EncodingReader, inout TreeBuilder) -> Bool
  ) -> Attempt {
    withUnsafeTemporaryAllocation(of: TypeEncoding.self, capacity: capacity) { values in
      withUnsafeTemporaryAllocation(of: UnsafeBufferPointer<UInt8>?.self, capacity: capacity) { names in
        withUnsafeTemporaryAllocation(of: Frame.self, capacity: capacity) { frames in
          withUnsafeTemporaryAllocation(of: ReaderNesting.self, capacity: capacity) { nesting in
            var builder = TreeBuilder(
              values: values.baseAddress!, names: names.baseAddress!, frames: frames.baseAddress!, capacity: capacity)
            var reader = EncodingReader(
              base: bytes.baseAddress ?? EncodingReader.emptyInput, count: bytes.count,
              maximumDepth: options.maximumNestingDepth, stack: nesting.baseAddress!, capacity: capacity)
            let succeeded = read(&reader, &builder)
            builder.discard()
            if succeeded { return .finished(nil) }
            guard reader.failure != nil else { return .outOfRoom }
            return .finished(reader.error())
          }
        }
      }
    }
  }

  /// The type read last.
  mutating func take() -> TypeEncoding {
    valueCount = 0
    return values.move()
  }

  /// Drops whatever a reading that failed left behind.
  mutating func discard() {
    values.deinitialize(count: valueCount)
    valueCount = 0
    frameCount = 0
  }

  @inline(__always)
  private mutating func deliver(_ type: TypeEncoding) -> Bool {
    guard valueCount < capacity else { return false }
    (values + valueCount).initialize(to: type)
    (names + valueCount).initialize(to: fieldName)
    fieldName = nil
    valueCount &+= 1
    return true
  }

  mutating func primitive(_ code: TypeCode) -> Bool { deliver(.primitive(code)) }

  mutating func object(className: UnsafeBufferPointer<UInt8>?) -> Bool {
    deliver(.object(className: className.map { String(decoding: $0, as: UTF8.self) }))
  }

  mutating func block() -> Bool { deliver(.block(signature: nil)) }

  mutating func bitfield(_ bitfield: TypeEncoding.Bitfield) -> Bool { deliver(.bitfield(bitfield)) }

  mutating func record(isUnion: Bool, name: UnsafeBufferPointer<UInt8>) -> Bool {
    let name = String(decoding: name, as: UTF8.self)
    return deliver(isUnion ? .union(name: name, fields: nil) : .structure(name: name, fields: nil))
  }

  mutating func open(_ node: EncodingNode) -> Bool {
    guard frameCount < capacity else { return false }
    var frame = Frame(kind: .pointer, base: valueCount, fieldName: fieldName)
    fieldName = nil
    switch node {
    case .qualifier(let qualifier):
      frame.kind = .qualifier
      frame.qualifier = qualifier
    case .pointer: frame.kind = .pointer
    case .complex: frame.kind = .complex
    case .atomic: frame.kind = .atomic
    case .array(let count):
      frame.kind = .array
      frame.count = count
    case .record(let isUnion, let name):
      frame.kind = isUnion ? .union : .record
      frame.name = name
    case .nestedSignature: frame.kind = .nestedSignature
    }
    (frames + frameCount).initialize(to: frame)
    frameCount &+= 1
    return true
  }

  mutating func field(name: UnsafeBufferPointer<UInt8>?) -> Bool {
    fieldName = name
    return true
  }

  mutating func close(_ kind: ReaderNesting.Kind) -> Bool {
    frameCount &-= 1
    let frame = frames[frameCount]
    let base = frame.base
    let type: TypeEncoding
    switch frame.kind {
    // Over a primitive, the shared value: no box of its own.
    case .qualifier:
      let inner = (values + base).move()
      type = TypeEncoding.shared(.qualified(frame.qualifier), over: inner) ?? .qualified(frame.qualifier, inner)
    case .pointer:
      let inner = (values + base).move()
      type = TypeEncoding.shared(.pointer, over: inner) ?? .pointer(inner)
    case .complex:
      let inner = (values + base).move()
      type = TypeEncoding.shared(.complex, over: inner) ?? .complex(inner)
    case .atomic:
      let inner = (values + base).move()
      type = TypeEncoding.shared(.atomic, over: inner) ?? .atomic(inner)
    case .array: type = .array(count: frame.count, element: (values + base).move())
    case .record, .union:
      let fields = movedFields(from: base)
      let name = String(decoding: frame.name, as: UTF8.self)
      type = frame.kind == .union ? .union(name: name, fields: fields) : .structure(name: name, fields: fields)
    case .nestedSignature:
      type = .block(signature: movedTypes(from: base))
    }
    valueCount = base
    fieldName = frame.fieldName
    return deliver(type)
  }

  /// The values from `base` up, moved into a nested signature's types.
  private func movedTypes(from base: Int) -> [TypeEncoding] {
    let count = valueCount &- base
    // Never empty (`@?<>` is an error); with no capacity, `unsafeUninitializedCapacity` would
    // write into the shared empty array's storage.
    if count == 0 { return [] }
    return [TypeEncoding](unsafeUninitializedCapacity: count) { buffer, initialized in
      buffer.baseAddress!.moveInitialize(from: values + base, count: count)
      initialized = count
    }
  }

  /// The values from `base` up, with their names, moved into a record's fields.
  private func movedFields(from base: Int) -> [TypeEncoding.Field] {
    let count = valueCount &- base
    // `{S=}`: with no capacity, `unsafeUninitializedCapacity` would write the count into the
    // shared empty array's storage (a data race that ThreadSanitizer reports).
    if count == 0 { return [] }
    return [TypeEncoding.Field](unsafeUninitializedCapacity: count) { buffer, initialized in
      for position in 0..<count {
        let name = names[base &+ position].map { String(decoding: $0, as: UTF8.self) }
        (buffer.baseAddress! + position).initialize(
          to: TypeEncoding.Field(name: name, type: (values + (base &+ position)).move()))
      }
      initialized = count
    }
  }
}
