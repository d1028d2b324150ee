// The one reader of the type-encoding grammar. It reads UTF-8 bytes through a raw pointer, in
// one loop without recursion: open pointers, arrays, records and nested signatures sit on a
// stack the caller provides (`withUnsafeTemporaryAllocation`), so it allocates nothing. It
// checks the whole grammar and reports every error with its kind and byte offset, and hands
// each node to an `EncodingSink`: the tree, the frame's layout and validation all stand on it.
//
// EncodingReader+Tokens reads numbers, names, bitfields and objects; +Offsets reads the
// offsets of a signature.

/// One open node on the reader's stack.
struct ReaderNesting {
  enum Kind: UInt8 {
    case qualifier, pointer, complex, atomic, array, record, nestedSignature
  }

  var kind: Kind
  /// A record's closing byte.
  var close: UInt8
  /// The node's nesting level, qualifiers before it included, as ``ParseOptions/maximumNestingDepth`` counts.
  var level: Int32
  /// Where errors about this node point: the `[`, `{` or `(`, or a nested signature's `<`.
  var start: Int
  /// The types a nested signature has begun so far.
  var elements: Int
}

/// Reads types at `index` of `count` bytes at `base`. A method that returns `false` has either
/// found an error (``failure``) or been stopped: by its sink, or by a stack smaller than the
/// nesting (``failure`` is `nil` then).
struct EncodingReader {
  let base: UnsafePointer<UInt8>
  let count: Int
  var index: Int
  /// ``ParseOptions/maximumNestingDepth``: deeper is an error.
  let maximumDepth: Int
  let stack: UnsafeMutablePointer<ReaderNesting>
  /// The stack's room: deeper, within `maximumDepth`, stops the reader without an error.
  let capacity: Int
  /// The open nodes on the stack (qualifiers only for a sink that reads them).
  var depth = 0
  /// The nesting level of the type being read: its open nodes and the qualifiers before it.
  var level = 0
  /// The error found, once a method has returned `false` for one.
  var failure: (kind: EncodingError.Kind, offset: Int)? = nil

  @inline(__always)
  init(
    base: UnsafePointer<UInt8>, count: Int, index: Int = 0, maximumDepth: Int,
    stack: UnsafeMutablePointer<ReaderNesting>, capacity: Int
  ) {
    self.base = base
    self.count = count
    self.index = index
    self.maximumDepth = maximumDepth
    self.stack = stack
    self.capacity = capacity
  }

  /// An address for an empty input, which has none (nothing is read there).
  static var emptyInput: UnsafePointer<UInt8> {
    let empty: StaticString = ""
    return empty.utf8Start
  }

  /// The error of the last failure, with the whole input.
  func error() -> EncodingError {
    let (kind, offset) = failure ?? (.unexpectedEnd, index)
    return EncodingError(
      kind: kind, offset: offset,
      input: String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self),
      byte: offset >= 0 && offset < count ? base[offset] : nil)
  }

  /// Records an error; returns `false` for the caller to return.
  @inline(__always)
  mutating func fail(_ kind: EncodingError.Kind, at offset: Int) -> Bool {
    failure = (kind, offset)
    return false
  }

  /// The byte at `position`, or `nil` at the end.
  @inline(__always)
  func byte(at position: Int) -> UInt8? { position < count ? base[position] : nil }

  /// Opens a node that started at `start` (errors about its depth point there).
  @inline(__always)
  mutating func push(_ kind: ReaderNesting.Kind, start: Int, close: UInt8 = 0) -> Bool {
    guard level < maximumDepth else { return fail(.nestingTooDeep, at: start) }
    guard depth < capacity else { return false }
    level &+= 1
    stack[depth] = ReaderNesting(
      kind: kind, close: close, level: Int32(truncatingIfNeeded: level), start: start, elements: 0)
    depth &+= 1
    return true
  }

  /// Reads one type at `index` into `sink`. A primitive or a plain object or block is read
  /// here, in the caller's loop (most types are one of these); anything else in ``readNested(into:)``.
  ///
  /// `@_transparent`: with `@inline(__always)` the optimizer keeps it out of the signature loop
  /// (a call per argument); SE-0496's `@inline(always)` would do, but needs Swift 6.3.
  @_transparent
  mutating func readType<Sink: EncodingSink>(into sink: inout Sink) -> Bool {
    if index < count {
      let byte = base[index]
      if let code = TypeCode(byte: byte) {
        index &+= 1
        return sink.primitive(code)
      }
      if byte == 0x40 {  // @
        let next = self.byte(at: index &+ 1)
        if next == 0x3F {  // ?
          if self.byte(at: index &+ 2) != 0x3C {  // <
            index &+= 2
            return sink.block()
          }
        } else if next != 0x22 {  // "
          index &+= 1
          return sink.object(className: nil)
        }
      }
    }
    return readNested(into: &sink)
  }

  /// Reads one type of any shape: a loop with two halves. The first reads the start of a type —
  /// a leaf goes to the sink at once, an opening node goes on the stack (the loop reads its inner
  /// type, or the second half its first field or element); the second completes the nodes the
  /// bytes close, innermost first, until the stack is back where it began (done) or an open
  /// record or nested signature wants its next type.
  @inline(never)
  mutating func readNested<Sink: EncodingSink>(into sink: inout Sink) -> Bool {
    let bottom = depth
    let bottomLevel = level
    // The reader's constants as locals, which stay in registers across the loop.
    let base = self.base
    let count = self.count
    let stack = self.stack
    // The closing byte of the record whose named field is being read: it decides whether
    // `@"x"` is a class name or the next field's name (0: none).
    var terminator: UInt8 = 0
    nextType: while true {
      let start = index
      guard index < count else { return fail(.unexpectedEnd, at: start) }
      let byte = base[index]
      if let code = TypeCode(byte: byte) {
        index &+= 1
        guard sink.primitive(code) else { return false }
      } else {
        switch byte {
        case 0x72, 0x6E, 0x4E, 0x6F, 0x4F, 0x52, 0x56:  // r n N o O R V
          index &+= 1
          if Sink.readsQualifiers {
            guard push(.qualifier, start: start), sink.open(.qualifier(TypeQualifier(byte: byte)!)) else {
              return false
            }
          } else {
            // Counted, not stacked: nothing closes it.
            guard level < maximumDepth else { return fail(.nestingTooDeep, at: start) }
            level &+= 1
          }
          // The qualified type keeps the terminator.
          continue nextType
        case 0x5E:  // ^
          index &+= 1
          if index < count, let code = TypeCode(byte: base[index]) {
            // A pointer to a primitive (`^v`, `^i`), the commonest: the same events, no stack.
            guard level < maximumDepth else { return fail(.nestingTooDeep, at: start) }
            index &+= 1
            guard sink.open(.pointer), !Sink.readsPointees || sink.primitive(code), sink.close(.pointer) else {
              return false
            }
            break
          }
          guard push(.pointer, start: start), sink.open(.pointer) else { return false }
          if !Sink.readsPointees {
            // The pointee's syntax alone, then the pointer is complete.
            var check = SyntaxCheck()
            guard readType(into: &check) else { return false }
            depth &-= 1
            guard sink.close(.pointer) else { return false }
            break
          }
          terminator = 0
          continue nextType
        case 0x6A:  // j
          index &+= 1
          guard push(.complex, start: start), sink.open(.complex) else { return false }
          terminator = 0
          continue nextType
        case 0x41:  // A
          index &+= 1
          guard push(.atomic, start: start), sink.open(.atomic) else { return false }
          terminator = 0
          continue nextType
        case 0x5B:  // [
          guard let elements = readArrayCount(start: start) else { return false }
          if let code = TypeCode(byte: base[index]), index &+ 1 < count, base[index &+ 1] == 0x5D {
            // An array of a primitive (`[4i]`): the same events, no stack.
            guard level < maximumDepth else { return fail(.nestingTooDeep, at: start) }
            index &+= 2
            guard sink.open(.array(count: elements)), sink.primitive(code), sink.close(.array) else { return false }
            break
          }
          guard push(.array, start: start), sink.open(.array(count: elements)) else { return false }
          terminator = 0
          continue nextType
        case 0x7B, 0x28:  // { (
          // A record with fields stays open: the second half reads them.
          guard readRecordHeader(start: start, into: &sink) else { return false }
        case 0x62:  // b
          guard let bitfield = readBitfield(), sink.bitfield(bitfield) else { return false }
        case 0x40:  // @
          // A nested signature stays open: the second half reads its types.
          guard readObject(start: start, terminator: terminator, into: &sink) else { return false }
        default:
          return fail(.unexpectedByte, at: start)
        }
      }
      // The second half: complete the open nodes the bytes close.
      while depth > bottom {
        let top = stack + (depth &- 1)
        switch top.pointee.kind {
        case .qualifier:
          depth &-= 1
          guard sink.close(.qualifier) else { return false }
        case .pointer:
          depth &-= 1
          guard sink.close(.pointer) else { return false }
        case .complex:
          depth &-= 1
          guard sink.close(.complex) else { return false }
        case .atomic:
          depth &-= 1
          guard sink.close(.atomic) else { return false }
        case .array:
          guard index < count else { return fail(.unterminatedArray, at: top.pointee.start) }
          guard base[index] == 0x5D else { return fail(.unexpectedByte, at: index) }  // ]
          index &+= 1
          depth &-= 1
          guard sink.close(.array) else { return false }
        case .record:
          guard index < count else { return fail(unterminatedRecord(top.pointee), at: top.pointee.start) }
          let byte = base[index]
          if byte == top.pointee.close {
            index &+= 1
            depth &-= 1
            guard sink.close(.record) else { return false }
            continue
          }
          level = Int(top.pointee.level)
          if byte != 0x22 {  // "
            guard sink.field(name: nil) else { return false }
            terminator = 0
            continue nextType
          }
          guard let name = readFieldName(record: top.pointee), sink.field(name: name) else { return false }
          terminator = top.pointee.close
          continue nextType
        case .nestedSignature:
          guard index < count else { return fail(.unterminatedBlockSignature, at: top.pointee.start) }
          if base[index] == 0x3E, top.pointee.elements > 0 {  // >
            index &+= 1
            depth &-= 1
            guard sink.close(.nestedSignature) else { return false }
            continue
          }
          top.pointee.elements &+= 1
          level = Int(top.pointee.level)
          terminator = 0
          continue nextType
        }
      }
      level = bottomLevel
      return true
    }
  }

  @inline(__always)
  func unterminatedRecord(_ node: ReaderNesting) -> EncodingError.Kind {
    node.close == 0x29 ? .unterminatedUnion : .unterminatedStructure
  }
}

extension EncodingReader {
  /// Reads the one type the input must hold, whole, into `sink`; `false` on an error.
  mutating func readWholeType<Sink: EncodingSink>(into sink: inout Sink) -> Bool {
    guard count > 0 else { return fail(.emptyInput, at: 0) }
    guard readType(into: &sink) else { return false }
    guard index == count else { return fail(.trailingBytes, at: index) }
    return true
  }
}

@inline(__always)
func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

@inline(__always)
func isDigit(_ byte: UInt8?) -> Bool {
  guard let byte else { return false }
  return byte &- 0x30 < 10
}
