// The fast path of `SignatureFrame`: one loop over a raw pointer, without recursion, for the
// encodings that clang writes (primitives, qualifiers, pointers, arrays, unnamed-field
// structures and unions, bitfields, objects, blocks with or without a nested signature, offsets
// and offset runs). Open pointers, arrays, aggregates and nested signatures sit on a small
// stack in the caller's frame (`withUnsafeTemporaryAllocation`), so nothing is allocated.
//
// It never reports an error: anything it does not fully handle (a malformed byte, a quoted field
// name, a signed offset, an offset run with no consistent reading, a size overflow, nesting
// beyond the limit or deeper than its stack, a name that is not ASCII) makes it give up, and
// `SignatureFrame` parses the tree and lays it out from the start, and so reports the tree
// parser's error or the layout's overflow. What it accepts it measures with the shared
// `LayoutRules`, `AggregateLayout` and `ArgumentOffsets`, so both paths give the same numbers
// (`SignatureFrameTests` compares them on the corpus, the fixtures and random inputs; the
// `FuzzSignature` target does too). Inside a pointer or a nested signature it checks the syntax
// and lays nothing out: no size there reaches the result, and the tree's layout never measures
// a pointee either.
//
// FastScanner+Signature reads the signature: return type, frame length, arguments and offsets.

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
    // sizes never reach the result, and the tree's layout never measures them either).
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
          // The level is checked before the name is read, as the tree parser does.
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
  /// digit is next, on a leading zero or when it has more than 19 digits (the tree parser
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
