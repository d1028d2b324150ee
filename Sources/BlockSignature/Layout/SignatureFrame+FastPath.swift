// The fast path of `SignatureFrame`: one loop over a raw pointer, without recursion, for the
// encodings that clang writes (primitives, qualifiers, pointers, arrays, unnamed-field
// structures and unions, bitfields, objects, blocks with or without a nested signature, offsets
// and offset runs). Open pointers, arrays, aggregates and nested signatures sit on a small
// stack in the caller's frame (`withUnsafeTemporaryAllocation`), so nothing is allocated.
//
// It never reports an error: anything it does not fully handle (a malformed byte, a quoted field
// name, a signed offset, an offset run with no consistent reading, a size overflow, nesting
// beyond the limit or deeper than its stack, a name that is not ASCII) makes it give up, and
// `SignatureFrame` runs the general scanner (`EncodingParser.measureType`) from the start, which
// reports the error with the same kind and offset as the tree parser. What it accepts it
// measures with the shared `LayoutRules`, `AggregateLayout` and `ArgumentOffsets`, so both paths
// give the same numbers (`SignatureFrameTests` compares them on the corpus, the fixtures and
// random inputs; the `FuzzSignature` target does too). Inside a pointer or a nested signature
// it checks the syntax and lays nothing out: no size there reaches the result, and the general
// scanner discards those sizes too.

/// One node the fast scanner is inside of: what completes it once its inner type is measured.
struct FastNesting {
  enum Kind: UInt8 {
    /// `^T`: the pointee's size and caveats do not matter.
    case pointer
    /// `jT`.
    case complex
    /// `AT`.
    case atomic
    /// `[N T]`.
    case array
    /// `{name=…}` or `(name=…)`: one field read at a time.
    case aggregate
    /// `@?<…>`: the nested signature's types do not matter.
    case nestedSignature
  }

  var kind: Kind
  /// The node's nesting level, qualifiers included, as the tree parser counts it.
  var level: Int32
  /// The caveats before a pointer or nested signature (restored when it closes).
  var savedCaveats: LayoutCaveats
  /// An array's element count.
  var count: UInt64
  /// An aggregate's fields so far.
  var aggregate: AggregateLayout

  /// Nodes the stack holds; with ``LayoutCaveats``, ``AggregateLayout`` and the rest, a stack of
  /// this many fits the 1 KiB that `withUnsafeTemporaryAllocation` keeps on the stack.
  static let capacity = 16
}

/// Reads types and offsets at `index`; every method returns `false` (or `nil`) to give up.
struct FastScanner {
  let base: UnsafePointer<UInt8>
  let count: Int
  var index = 0
  let rules: LayoutRules
  /// The deepest level accepted: the caller's limit, or the stack's.
  let depthLimit: Int
  let stack: UnsafeMutablePointer<FastNesting>

  // The type just measured by `measure()`; `caveats` accumulates until the caller resets it.
  var size = 0
  var alignment = 1
  var shape = TypeShape.other
  var caveats: LayoutCaveats = []
  // The bitfield just measured, when `shape` is `.bitfield`: width, GNU bit offset and declared
  // type code (0 for a NeXT bitfield).
  var bitfieldWidth: UInt64 = 0
  var bitfieldOffset: UInt64 = 0
  var bitfieldType: UInt8 = 0

  @inline(__always)
  init(
    base: UnsafePointer<UInt8>, count: Int, rules: LayoutRules, maximumDepth: Int,
    stack: UnsafeMutablePointer<FastNesting>
  ) {
    self.base = base
    self.count = count
    self.rules = rules
    self.depthLimit = min(maximumDepth, FastNesting.capacity)
    self.stack = stack
  }

  /// The byte at `index`, or 0 at the end (a 0 inside the input always makes the path give up).
  @inline(__always)
  func peek() -> UInt8 { index < count ? base[index] : 0 }

  @inline(__always)
  func peek(at position: Int) -> UInt8 { position < count ? base[position] : 0 }

  @inline(__always)
  var isAtEnd: Bool { index >= count }

  /// Reads one type at `index` into `size`, `alignment` and `shape`, adding its caveats to
  /// `caveats`.
  ///
  /// A loop with two halves: the first reads the start of a type — a leaf is measured at once,
  /// an opening node goes on the stack and the loop reads its inner type; the second completes
  /// the nodes the leaf closes, innermost first, until the stack is empty (done) or an open
  /// aggregate or nested signature wants its next type.
  @inline(__always)
  mutating func measure() -> Bool {
    var depth = 0
    // The nesting level of the next node: its parent's, plus the qualifiers read since.
    var level = 0
    // Open pointers and nested signatures: inside one, types are read but not laid out (their
    // sizes never reach the result, and the general scanner discards their overflows too).
    var opaque = 0
    while true {
      guard index < count else { return false }
      let byte = base[index]
      index &+= 1
      if let code = TypeCode(byte: byte) {
        measure(code)
      } else {
        switch byte {
        case 0x72, 0x6E, 0x4E, 0x6F, 0x4F, 0x52, 0x56:  // r n N o O R V
          level &+= 1
          guard level <= depthLimit else { return false }
          continue
        case 0x5E:  // ^
          guard push(.pointer, depth: &depth, level: &level) else { return false }
          opaque &+= 1
          continue
        case 0x6A:  // j
          guard push(.complex, depth: &depth, level: &level) else { return false }
          continue
        case 0x41:  // A
          guard push(.atomic, depth: &depth, level: &level) else { return false }
          continue
        case 0x5B:  // [
          guard let elements = number(), !isAtEnd, push(.array, depth: &depth, level: &level) else { return false }
          stack[depth &- 1].count = elements
          continue
        case 0x7B, 0x28:  // { (
          let isUnion = byte == 0x28
          let close: UInt8 = isUnion ? 0x29 : 0x7D
          // The level is checked before the name is read, as the general scanner does.
          guard level &+ 1 <= depthLimit else { return false }
          // The name, with a local position (one store after the loop, not one per byte).
          var position = index
          var next: UInt8
          // Eight bytes at a time: the first that ends the name, is 0 or is not ASCII.
          let closeInEveryByte = UInt64(close) &* 0x0101_0101_0101_0101
          while true {
            if position &+ 8 <= count {
              let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
              let found = FastScanner.nameEnds(in: word, closeInEveryByte: closeInEveryByte)
              if found == 0 {
                position &+= 8
                continue
              }
              position &+= found.trailingZeroBitCount &>> 3
              next = base[position]
            } else {
              guard position < count else { return false }
              next = base[position]
              if next != 0x3D && next != close && next != 0 && next < 0x80 {
                position &+= 1
                continue
              }
            }
            if next == 0x3D || next == close { break }
            // A byte the name check (UTF-8 validation) would look at.
            return false
          }
          index = position &+ 1
          if next == close {
            caveats.insert(.fieldsNotEncoded)
            (size, alignment, shape) = (0, 1, .aggregate)
          } else {
            let first = peek()
            if first == close {
              // `{name=}`: no fields; `finish(rules:)` sizes an empty record.
              index &+= 1
              if opaque == 0 {
                guard let (total, emptyAlignment) = AggregateLayout(isUnion: isUnion).finish(rules: rules)
                else { return false }
                (size, alignment) = (total, emptyAlignment)
              }
              shape = .aggregate
            } else {
              if first == 0 || first == 0x22 { return false }
              guard push(.aggregate, depth: &depth, level: &level) else { return false }
              stack[depth &- 1].aggregate = AggregateLayout(isUnion: isUnion)
              continue
            }
          }
        case 0x62:  // b
          guard bitfield() else { return false }
        case 0x40:  // @
          (size, alignment, shape) = (rules.pointerSize, rules.pointerSize, .other)
          let next = peek()
          if next == 0x3F {  // ?
            index &+= 1
            if peek() == 0x3C {  // <
              index &+= 1
              guard push(.nestedSignature, depth: &depth, level: &level) else { return false }
              opaque &+= 1
              continue
            }
          } else if next == 0x22 {  // "
            index &+= 1
            while true {
              let byte = peek()
              if byte == 0x22 { break }
              // The end, or a byte a name check would look at.
              if byte == 0 || byte >= 0x80 { return false }
              index &+= 1
            }
            index &+= 1
          }
        default:
          // Anything else is an error (or `>` of an empty nested signature).
          return false
        }
      }
      // Complete the open nodes with the type just measured.
      completing: while depth > 0 {
        let top = stack + (depth &- 1)
        switch top.pointee.kind {
        case .pointer:
          (size, alignment, shape) = (rules.pointerSize, rules.pointerSize, .other)
          caveats = top.pointee.savedCaveats
          opaque &-= 1
        case .complex:
          if opaque == 0 {
            guard let (total, elementAlignment) = rules.complex((size, alignment)) else { return false }
            (size, alignment) = (total, elementAlignment)
          }
          shape = .other
        case .atomic:
          if opaque == 0 { (size, alignment) = rules.atomic((size, alignment)) }
          shape = .aggregate
        case .array:
          guard peek() == 0x5D else { return false }  // ]
          index &+= 1
          if opaque == 0 {
            guard let (total, elementAlignment) = rules.array(count: top.pointee.count, element: (size, alignment))
            else { return false }
            (size, alignment) = (total, elementAlignment)
          }
          shape = .array
        case .aggregate:
          if opaque == 0 {
            let placed =
              if shape == .bitfield {
                top.pointee.aggregate.addBitfield(
                  bitOffset: bitfieldType == 0 ? nil : bitfieldOffset, declaredType: TypeCode(rawValue: bitfieldType),
                  width: bitfieldWidth, rules: rules)
              } else {
                top.pointee.aggregate.addField(size: size, alignment: alignment)
              }
            guard placed != nil else { return false }
          }
          let next = peek()
          if next != (top.pointee.aggregate.isUnion ? 0x29 : 0x7D) {
            if next == 0 || next == 0x22 { return false }
            level = Int(top.pointee.level)
            break completing
          }
          index &+= 1
          if opaque == 0 {
            caveats.formUnion(top.pointee.aggregate.caveats)
            guard let (total, aggregateAlignment) = top.pointee.aggregate.finish(rules: rules) else { return false }
            (size, alignment) = (total, aggregateAlignment)
          }
          shape = .aggregate
        case .nestedSignature:
          let next = peek()
          if next != 0x3E {  // >
            if next == 0 { return false }
            level = Int(top.pointee.level)
            break completing
          }
          index &+= 1
          (size, alignment, shape) = (rules.pointerSize, rules.pointerSize, .other)
          caveats = top.pointee.savedCaveats
          opaque &-= 1
        }
        depth &-= 1
        level = depth > 0 ? Int(stack[depth &- 1].level) : 0
      }
      if depth == 0 { return true }
    }
  }

  /// A primitive type: its size, alignment and shape, and its caveats added to `caveats`.
  @inline(__always)
  mutating func measure(_ code: TypeCode) {
    caveats.formUnion(rules.caveats(of: code))
    (size, alignment) = rules.primitive(code)
    shape = code.isIntegral ? .integral : code == .otherFloat ? .otherFloat : .other
  }

  /// `measure()` for a type that starts the return value or an argument: a primitive, or an
  /// object without a class name or nested signature, is measured here, in the caller's loop
  /// (most arguments are one of these); anything else goes to `measure()`. `caveats` must be
  /// empty.
  ///
  /// `@_transparent`: with `@inline(__always)` the optimizer keeps it out of the signature loop
  /// (a call per argument); SE-0496's `@inline(always)` would do, but needs Swift 6.3.
  @_transparent
  mutating func measureTopLevel() -> Bool {
    let byte = base[index]
    if let code = TypeCode(byte: byte) {
      index &+= 1
      measure(code)
      return true
    }
    if byte == 0x40 {  // @
      var next = peek(at: index &+ 1)
      var length = 1
      if next == 0x3F {  // ?
        length = 2
        next = peek(at: index &+ 2)
        if next == 0x3C { return measureOutOfLine() }  // <
      } else if next == 0x22 {  // "
        return measureOutOfLine()
      }
      index &+= length
      (size, alignment, shape) = (rules.pointerSize, rules.pointerSize, .other)
      return true
    }
    return measureOutOfLine()
  }

  /// `measure()` as a call, so that `measureTopLevel()` stays small enough to be inlined.
  @inline(never)
  mutating func measureOutOfLine() -> Bool { measure() }

  /// The bytes of `word` (eight bytes of the input, the first in the low bits) that end a name
  /// (`=`, or the record's closing byte, repeated in each byte of `closeInEveryByte`), are 0 or
  /// are not ASCII, as their high bits; 0 when there are none. The classic test for a zero
  /// byte, `(x - 0x01…01) & ~x & 0x80…80`, may also mark a byte after a true one (the borrow
  /// runs upward), never before: the lowest bit set is exact, and so is 0.
  @inline(__always)
  static func nameEnds(in word: UInt64, closeInEveryByte: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let equal = word ^ 0x3D3D_3D3D_3D3D_3D3D
    let close = word ^ closeInEveryByte
    let zero = (word &- ones) & ~word
    let zeroEqual = (equal &- ones) & ~equal
    let zeroClose = (close &- ones) & ~close
    return (zero | zeroEqual | zeroClose | word) & highs
  }

  /// Opens a node one level below `level`; `false` beyond the depth limit.
  @inline(__always)
  mutating func push(_ kind: FastNesting.Kind, depth: inout Int, level: inout Int) -> Bool {
    level &+= 1
    guard level <= depthLimit else { return false }
    let slot = stack + depth
    slot.pointee.kind = kind
    slot.pointee.level = Int32(truncatingIfNeeded: level)
    slot.pointee.savedCaveats = caveats
    depth &+= 1
    return true
  }

  /// `b<width>` (NeXT) or `b<offset><type><width>` (GNU), after the `b`.
  @inline(__always)
  mutating func bitfield() -> Bool {
    guard let first = number() else { return false }
    // GNU form: b<offset><integer type code><width>.
    if isDigit(peek(at: index &+ 1)), let type = TypeCode(rawValue: peek()), type.isIntegral {
      index &+= 1
      guard let width = number(), width <= EncodingParser.maximumBitfieldWidth(of: type) else { return false }
      (size, alignment) = rules.bitfieldUnit(declaredType: type, width: width)
      (bitfieldWidth, bitfieldOffset, bitfieldType) = (width, first, type.rawValue)
    } else {
      guard first <= 128 else { return false }
      caveats.insert(.bitfieldUnitAssumed)
      (size, alignment) = rules.bitfieldUnit(declaredType: nil, width: first)
      (bitfieldWidth, bitfieldOffset, bitfieldType) = (first, 0, 0)
    }
    shape = .bitfield
    return true
  }

  /// An unsigned decimal number without a leading zero (a lone `0` is allowed); `nil` when no
  /// digit is next, on a leading zero or when it has more than 19 digits (the general scanner
  /// then reads it, overflow checks and all: 19 digits always fit, so the loop needs none).
  @inline(__always)
  mutating func number() -> UInt64? {
    var digit = peek() &- 0x30
    guard digit < 10 else { return nil }
    if digit == 0 {
      index &+= 1
      return isDigit(peek()) ? nil : 0
    }
    let start = index
    var value: UInt64 = 0
    repeat {
      value = value &* 10 &+ UInt64(digit)
      index &+= 1
      digit = peek() &- 0x30
    } while digit < 10
    return index &- start > 19 ? nil : value
  }

  /// A run of offset digits read as one offset when the general rule allows it at once (no
  /// leading zero, not above `frame`, not below `previous`, at most 18 digits so that the loop
  /// needs no overflow check); otherwise `nil`, with `index` after the run, for
  /// ``OffsetRunSplitter``, which reads longer runs with the checks. `previous` and `frame`
  /// are -1 when there is none. The caller has seen a digit at `index`.
  @inline(__always)
  mutating func wholeOffset(previous: Int, frame: Int) -> Int? {
    // A local position and one store after the loop, not one per digit.
    let start = index
    let first = base[start] &- 0x30
    var value = Int(first)
    var position = start &+ 1
    while position < count {
      let digit = base[position] &- 0x30
      if digit >= 10 { break }
      value = value &* 10 &+ Int(digit)
      position &+= 1
    }
    index = position
    // More than one digit: no leading zero, and at most 18.
    if position &- start > 1, first == 0 || position &- start > 18 { return nil }
    // Not above `frame` (-1, none, is above every offset as an unsigned number), not below
    // `previous`; `value` is not negative.
    if UInt(bitPattern: value) > UInt(bitPattern: frame) || value < previous { return nil }
    return value
  }

}

extension TypeCode {
  /// `TypeCode(rawValue:)` as a switch the optimizer inlines and threads into the rules'
  /// switches on the code (the synthesized initializer is an out-of-line call).
  @inline(__always)
  package init?(byte: UInt8) {
    switch byte {
    case 0x63: self = .char
    case 0x69: self = .int
    case 0x73: self = .short
    case 0x6C: self = .long
    case 0x71: self = .longLong
    case 0x43: self = .unsignedChar
    case 0x49: self = .unsignedInt
    case 0x53: self = .unsignedShort
    case 0x4C: self = .unsignedLong
    case 0x51: self = .unsignedLongLong
    case 0x74: self = .int128
    case 0x54: self = .unsignedInt128
    case 0x66: self = .float
    case 0x64: self = .double
    case 0x44: self = .longDouble
    case 0x20: self = .otherFloat
    case 0x42: self = .bool
    case 0x76: self = .void
    case 0x2A: self = .cString
    case 0x23: self = .`class`
    case 0x3A: self = .selector
    case 0x25: self = .atom
    case 0x3F: self = .unknown
    default: return nil
    }
  }
}

extension TypeQualifier {
  /// `TypeQualifier(rawValue:)` as a switch the optimizer inlines (see `TypeCode(byte:)`).
  @inline(__always)
  init?(byte: UInt8) {
    switch byte {
    case 0x72: self = .const
    case 0x6E: self = .in
    case 0x4E: self = .inout
    case 0x6F: self = .out
    case 0x4F: self = .bycopy
    case 0x52: self = .byref
    case 0x56: self = .oneway
    default: return nil
    }
  }
}

extension SignatureFrame {
  /// Arguments the fast path holds before it makes the array (more: the general scanner runs).
  static let fastArgumentCapacity = 16

  /// The largest of the fast path's two temporary allocations, in bytes: at most 1 KiB stays
  /// on the stack.
  package static var fastPathStackBytes: Int {
    max(
      MemoryLayout<FastNesting>.stride * FastNesting.capacity,
      MemoryLayout<FastArgument>.stride * fastArgumentCapacity,
      MemoryLayout<Argument>.stride * fastArgumentCapacity)
  }

  /// The single pass over the encodings the fast path handles; `nil` when it gives up, before
  /// anything is reported. The open nodes and the arguments live in the caller's stack frame
  /// until the one array of arguments is made.
  @inline(__always)
  static func scanFast(
    _ bytes: UnsafeBufferPointer<UInt8>, rules: LayoutRules, maximumDepth: Int
  ) -> SignatureFrame? {
    scanFast(bytes, rules: rules, maximumDepth: maximumDepth, storage: nil, twoPasses: nil)
  }

  /// The fast path, with the arguments copied into the array of `storage` for their count (its
  /// buffer is reused when no earlier frame still holds it) and shared with the result.
  @inline(__always)
  static func scanFast(
    _ bytes: UnsafeBufferPointer<UInt8>, rules: LayoutRules, maximumDepth: Int, reusing storage: inout [[Argument]]
  ) -> SignatureFrame? {
    withUnsafeMutablePointer(to: &storage) {
      scanFast(bytes, rules: rules, maximumDepth: maximumDepth, storage: $0, twoPasses: nil)
    }
  }

  /// The fast path; the arguments go to a new array, or into `storage` (one array per argument
  /// count) when there is one.
  /// `twoPasses` (for tests) is set when the one pass handed over to the two passes.
  @inline(__always)
  static func scanFast(
    _ bytes: UnsafeBufferPointer<UInt8>, rules: LayoutRules, maximumDepth: Int,
    storage: UnsafeMutablePointer<[[Argument]]>?, twoPasses: UnsafeMutablePointer<Bool>?
  ) -> SignatureFrame? {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
    return withUnsafeTemporaryAllocation(of: FastNesting.self, capacity: FastNesting.capacity) { stack in
      withUnsafeTemporaryAllocation(of: FastArgument.self, capacity: fastArgumentCapacity) { read in
        withUnsafeTemporaryAllocation(of: Argument.self, capacity: fastArgumentCapacity) { arguments in
          var scanner = FastScanner(
            base: base, count: bytes.count, rules: rules, maximumDepth: maximumDepth, stack: stack.baseAddress!)
          return scanner.scanSignature(
            reading: read.baseAddress!, into: arguments.baseAddress!, storage: storage, twoPasses: twoPasses)
        }
      }
    }
  }
}

extension FastScanner {
  /// The return type, the frame length, then the arguments: in one pass when the written
  /// offsets are clang's running sums (``scanArgumentsInOnePass``), otherwise in two passes
  /// (``scanArgumentsInTwoPasses``).
  @inline(__always)
  mutating func scanSignature(
    reading read: UnsafeMutablePointer<FastArgument>,
    into buffer: UnsafeMutablePointer<SignatureFrame.Argument>,
    storage: UnsafeMutablePointer<[[SignatureFrame.Argument]]>?, twoPasses: UnsafeMutablePointer<Bool>?
  ) -> SignatureFrame? {
    var frame = -1

    // The return value.
    let first = base[0]
    var returnValue: SignatureFrame.Value
    let returnEnd: Int
    if isDigit(first) || first == 0x2B || first == 0x2D {
      // No return type: an unencodable one.
      returnValue = SignatureFrame.Value(size: 0, alignment: 1, caveats: .unknownSize)
      returnEnd = 0
    } else {
      caveats = []
      guard measureTopLevel() else { return nil }
      returnValue = SignatureFrame.Value(size: size, alignment: alignment, caveats: caveats)
      returnEnd = index
    }
    if index < count {
      let byte = base[index]
      if isDigit(byte) {
        guard let value = wholeOffset(previous: -1, frame: -1) else { return nil }
        frame = value
      } else if byte == 0x2B || byte == 0x2D {
        return nil
      }
    }

    var kind = SignatureEncoding.Kind.types
    let pushed: Int
    let frameLength: Int
    let offsetsMatch: Bool
    switch scanArgumentsInOnePass(frame: frame, reading: read, into: buffer, kind: &kind) {
    case .settled(let count, let running):
      (pushed, frameLength, offsetsMatch) = (count, running, true)
    case .failed:
      return nil
    case .inconsistent(let alreadyRead, let resumeAt):
      twoPasses?.pointee = true
      // The arguments read so far stay read; the one whose offset did not fit is read again.
      for position in 0..<alreadyRead {
        let argument = buffer[position]
        read[position].size = argument.size
        read[position].alignment = argument.alignment
        read[position].caveats = argument.caveats
        read[position].written = argument.writtenOffset ?? -1
      }
      index = resumeAt
      guard
        let settled = scanArgumentsInTwoPasses(
          frame: frame, returnEnd: returnEnd, returnValue: &returnValue, alreadyRead: alreadyRead, reading: read,
          into: buffer, kind: &kind)
      else { return nil }
      (pushed, frameLength, offsetsMatch) = settled
    }

    let settled = UnsafeBufferPointer(start: buffer, count: pushed)
    let arguments: [SignatureFrame.Argument]
    if pushed == 0 {
      // No buffer to share (writing through the empty array's would make a new one each time).
      arguments = []
    } else if let storage {
      // One array per argument count, made once: overwritten in place while no frame holds it.
      storage.pointee.withUnsafeMutableBufferPointer { pool in
        if pool[pushed].count == pushed {
          pool[pushed].withUnsafeMutableBufferPointer { target in
            for position in 0..<pushed { target[position] = buffer[position] }
          }
        } else {
          pool[pushed] = [SignatureFrame.Argument](settled)
        }
      }
      arguments = storage.pointee[pushed]
    } else {
      arguments = [SignatureFrame.Argument](settled)
    }
    return SignatureFrame(
      kind: kind, returnValue: returnValue, arguments: arguments, frameLength: frameLength,
      writtenFrameLength: frame < 0 ? nil : frame, offsetsMatch: offsetsMatch)
  }

  /// What ``scanArgumentsInOnePass`` made of the arguments.
  enum OnePassOutcome {
    /// Every argument settled: `count` of them, `running` bytes of frame.
    case settled(count: Int, running: Int)
    /// A type the fast path gives up on: the general scanner runs.
    case failed
    /// An offset that is not the running sum (or a frame length that is not the total): the
    /// two passes take over, with the first `read` arguments already read and the next one
    /// starting at `resumeAt`.
    case inconsistent(read: Int, resumeAt: Int)
  }

  /// The arguments in one pass, for what clang writes whenever it could encode every
  /// parameter: each written offset (if any) is the sum of the slots before it, and the frame
  /// length (if any) the sum of all. Then no slot needs the offset after it — there is nothing
  /// to reconcile, no hidden layout, every offset agrees — so each argument is settled into
  /// `buffer` as soon as its type is read. Each is also recorded in `read`, so that the first
  /// offset that is not the running sum (an unencodable parameter's digit run, a packed
  /// structure, `' '` as `__float128`, a leading zero) hands the arguments read so far to the
  /// two passes, which reconcile them with the offsets.
  @inline(__always)
  mutating func scanArgumentsInOnePass(
    frame: Int, reading read: UnsafeMutablePointer<FastArgument>,
    into buffer: UnsafeMutablePointer<SignatureFrame.Argument>, kind: inout SignatureEncoding.Kind
  ) -> OnePassOutcome {
    var pushed = 0
    var running = 0
    var firstHead = SignatureFrame.Head.other
    while index < count {
      let typeStart = index
      caveats = []
      guard measureTopLevel() else { return .failed }
      let typeEnd = index
      if pushed < 2 {
        let head = SignatureFrame.Head(base, typeStart, typeEnd)
        if pushed == 0 { firstHead = head } else { kind = SignatureFrame.Head.kind(firstHead, head) }
      }
      var written = -1
      if index < count {
        let byte = base[index]
        if isDigit(byte) {
          // Kept only when `wholeOffset` reads the run as one offset (no leading zero, not
          // above the frame length) and it is the running sum, so that the arguments read so
          // far can be handed to the two passes as they are; anything else is theirs to read
          // as a whole offset or split.
          guard let value = wholeOffset(previous: running, frame: frame), value == running else {
            return .inconsistent(read: pushed, resumeAt: typeStart)
          }
          written = value
        } else if byte == 0x2B || byte == 0x2D {
          // A signed offset: the general scanner reads it.
          return .failed
        }
      }
      guard pushed < SignatureFrame.fastArgumentCapacity else { return .failed }
      // What the settled argument does not keep (`FastArgument` is trivial: its other
      // fields are filled in from `buffer` if the two passes take over).
      (read + pushed).pointee.shape = shape
      (read + pushed).pointee.typeStart = typeStart
      (read + pushed).pointee.typeEnd = typeEnd
      let slot = rules.parameterSlot(size: size, shape: shape)
      (buffer + pushed).initialize(
        to: SignatureFrame.Argument(
          size: size, alignment: alignment, caveats: caveats, slotSize: slot, offset: running,
          writtenOffset: written < 0 ? nil : written))
      pushed &+= 1
      let (sum, overflowed) = running.addingReportingOverflow(slot)
      // A frame that overflows `Int` is reported by the general scanner.
      if overflowed { return .failed }
      running = sum
    }
    if frame >= 0, frame != running { return .inconsistent(read: pushed, resumeAt: index) }
    if pushed == 1 { kind = SignatureFrame.Head.kind(firstHead, .other) }
    return .settled(count: pushed, running: running)
  }

  /// The arguments in two passes over few values each: the first reads the types and offsets
  /// into `read` after the `alreadyRead` there (nothing settled, so the loop carries only the
  /// position and the last offset); the second settles each argument now that the offset after
  /// it is known, into `buffer`. Returns the count, the frame length and whether the offsets
  /// match; `returnValue` takes the size an argument spelled as the return type shows.
  @inline(never)
  mutating func scanArgumentsInTwoPasses(
    frame: Int, returnEnd: Int, returnValue: inout SignatureFrame.Value, alreadyRead: Int,
    reading read: UnsafeMutablePointer<FastArgument>,
    into buffer: UnsafeMutablePointer<SignatureFrame.Argument>, kind: inout SignatureEncoding.Kind
  ) -> (count: Int, frameLength: Int, offsetsMatch: Bool)? {
    let capacity = SignatureFrame.fastArgumentCapacity
    // First pass: each argument's type and written offset (-1 when absent).
    var pushed = alreadyRead
    // The last written offset so far (they never decrease).
    var previous = -1
    for position in 0..<alreadyRead { previous = max(previous, read[position].written) }
    while index < count {
      let typeStart = index
      caveats = []
      guard measureTopLevel() else { return nil }
      let typeEnd = index
      var written = -1
      if index < count {
        let byte = base[index]
        if isDigit(byte) {
          let runStart = index
          if let whole = wholeOffset(previous: previous, frame: frame) {
            written = whole
            previous = whole
          } else {
            // A digit run holding the offsets of unencodable parameters after this one.
            let splitter = OffsetRunSplitter(
              digits: UnsafeBufferPointer(start: base + runStart, count: index &- runStart),
              previous: previous < 0 ? nil : previous, frame: frame < 0 ? nil : frame)
            let (typeBytes, typeSize, typeCaveats) = (
              UnsafeBufferPointer(start: base + typeStart, count: typeEnd &- typeStart), size, caveats
            )
            var pieces = OffsetPieces()
            guard
              splitter.split(
                into: &pieces,
                firstHasZeroSize: {
                  TypeEncoding.hasKnownZeroSize(
                    encodedBy: typeBytes, size: typeSize, caveats: typeCaveats, rules: rules,
                    maximumNestingDepth: depthLimit)
                }),
              pushed &+ pieces.count <= capacity
            else { return nil }
            (read + pushed).initialize(
              to: FastArgument(
                size: size, alignment: alignment, caveats: caveats, shape: shape, written: pieces[0],
                typeStart: typeStart, typeEnd: typeEnd))
            pushed &+= 1
            for piece in 1..<pieces.count {
              (read + pushed).initialize(
                to: FastArgument(
                  size: 0, alignment: 1, caveats: .unknownSize, shape: .unencodable, written: pieces[piece],
                  typeStart: typeEnd, typeEnd: typeEnd))
              pushed &+= 1
            }
            previous = pieces[pieces.count - 1]
            continue
          }
        } else if byte == 0x2B || byte == 0x2D {
          // A signed offset: the general scanner reads it.
          return nil
        }
      }
      guard pushed < capacity else { return nil }
      (read + pushed).initialize(
        to: FastArgument(
          size: size, alignment: alignment, caveats: caveats, shape: shape, written: written,
          typeStart: typeStart, typeEnd: typeEnd))
      pushed &+= 1
    }

    // Second pass: slots and offsets, each argument settled with the offset after it.
    var assembler = FrameAssembler(rules: rules)
    for position in 0..<pushed {
      let argument = read[position]
      let nextWritten = position &+ 1 < pushed ? read[position &+ 1].written : frame
      let (settled, overflowed) = assembler.settle(
        size: argument.size, alignment: argument.alignment, shape: argument.shape, caveats: argument.caveats,
        written: argument.written < 0 ? nil : argument.written, nextWritten: nextWritten < 0 ? nil : nextWritten
      ) {
        argument.typeEnd &- argument.typeStart == returnEnd
          && UnsafeBufferPointer(start: base + argument.typeStart, count: returnEnd).elementsEqual(
            UnsafeBufferPointer(start: base, count: returnEnd))
      }
      // A frame that overflows `Int` is reported by the general scanner.
      if overflowed { return nil }
      (buffer + position).initialize(to: settled)
    }

    // (A type recovered from a digit run has an empty range.)
    let bytes = UnsafeBufferPointer(start: base, count: count)
    kind =
      pushed == 0
      ? .types
      : SignatureFrame.Head.kind(
        SignatureFrame.Head(bytes, read[0].typeStart..<read[0].typeEnd),
        pushed > 1 ? SignatureFrame.Head(bytes, read[1].typeStart..<read[1].typeEnd) : .other)
    let writtenFrame = frame < 0 ? nil : frame
    returnValue = assembler.returnValue(
      size: returnValue.size, alignment: returnValue.alignment, caveats: returnValue.caveats)
    return (pushed, assembler.running, assembler.offsetsMatch(frame: writtenFrame))
  }
}

/// An argument as the fast path's first pass reads it: its type and written offset (-1 when
/// absent), and where its encoding lies (for the head and the hidden-layout check).
struct FastArgument {
  var size: Int
  var alignment: Int
  var caveats: LayoutCaveats
  var shape: TypeShape
  var written: Int
  var typeStart: Int
  var typeEnd: Int
}
