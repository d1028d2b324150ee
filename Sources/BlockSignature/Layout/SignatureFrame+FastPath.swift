// The fast path of `SignatureFrame`: a lean byte loop over a raw pointer for the encodings that
// clang writes (primitives, qualifiers, pointers, arrays, unnamed-field structures and unions,
// bitfields, objects, blocks with or without a nested signature, offsets and offset runs).
//
// It never reports an error: anything it does not fully handle (a malformed byte, a quoted field
// name, a signed offset, an offset run with no consistent reading, a size overflow, the nesting limit, a name
// that is not ASCII) makes it give up, and `SignatureFrame` runs the general scanner
// (`EncodingParser.measureType`) from the start, which reports the error with the same kind and
// offset as the tree parser. What it accepts it measures with the shared `LayoutRules`,
// `AggregateLayout` and `ArgumentOffsets`, so both paths give the same numbers
// (`SignatureFrameTests` compares them on the corpus, the fixtures and random inputs).

/// One type measured by ``FastMeasurer``.
struct FastMeasuredType {
  var size: Int
  var alignment: Int
  /// The outermost node, qualifiers stripped.
  var shape: TypeShape
  /// The bitfield's width, when `shape` is `.bitfield`.
  var bitfieldWidth: UInt64 = 0
  /// The GNU bitfield's bit offset.
  var bitfieldOffset: UInt64 = 0
  /// The GNU bitfield's declared type code, or 0 for a NeXT bitfield.
  var bitfieldType: UInt8 = 0
}

/// Reads types and offsets at `index`; every method returns `nil` (or `false`) to give up.
struct FastMeasurer {
  let base: UnsafePointer<UInt8>
  let count: Int
  var index = 0
  let rules: LayoutRules
  let maximumDepth: Int
  var depth = 0
  /// The caveats of the type being measured (reset by the caller per argument).
  var caveats: LayoutCaveats = []

  @inline(__always)
  init(base: UnsafePointer<UInt8>, count: Int, rules: LayoutRules, maximumDepth: Int) {
    self.base = base
    self.count = count
    self.rules = rules
    self.maximumDepth = maximumDepth
  }

  /// The byte at `index`, or 0 at the end (a 0 inside the input always makes the path give up).
  @inline(__always)
  func peek() -> UInt8 { index < count ? base[index] : 0 }

  @inline(__always)
  func peek(at position: Int) -> UInt8 { position < count ? base[position] : 0 }

  @inline(__always)
  var isAtEnd: Bool { index >= count }

  @inline(__always)
  mutating func enter() -> Bool {
    depth &+= 1
    return depth <= maximumDepth
  }

  /// Reads one type at `index`: primitives inline, anything else in ``measureComposite()``.
  @inline(__always)
  mutating func measure() -> FastMeasuredType? {
    if let code = TypeCode(byte: peek()) {
      index &+= 1
      caveats.formUnion(rules.caveats(of: code))
      let (size, alignment) = rules.primitive(code)
      let shape: TypeShape = code.isIntegral ? .integral : code == .otherFloat ? .otherFloat : .other
      return FastMeasuredType(size: size, alignment: alignment, shape: shape)
    }
    return measureComposite()
  }

  /// Reads one type that is not a primitive at `index`.
  mutating func measureComposite() -> FastMeasuredType? {
    let byte = peek()
    switch byte {
    case "r", "n", "N", "o", "O", "R", "V":
      index &+= 1
      guard enter(), let inner = measure() else { return nil }
      depth &-= 1
      return inner
    case "^":
      index &+= 1
      // A pointer's size does not depend on its pointee, nor do its caveats.
      let saved = caveats
      guard enter(), measure() != nil else { return nil }
      depth &-= 1
      caveats = saved
      return FastMeasuredType(size: rules.pointerSize, alignment: rules.pointerSize, shape: .other)
    case "j", "A":
      index &+= 1
      guard enter(), let inner = measure() else { return nil }
      depth &-= 1
      if byte == "A" {
        let (size, alignment) = rules.atomic((inner.size, inner.alignment))
        return FastMeasuredType(size: size, alignment: alignment, shape: .aggregate)
      }
      guard let (size, alignment) = rules.complex((inner.size, inner.alignment)) else { return nil }
      return FastMeasuredType(size: size, alignment: alignment, shape: .other)
    case "[":
      index &+= 1
      guard let elementCount = number(), !isAtEnd, enter(), let element = measure() else { return nil }
      depth &-= 1
      guard peek() == "]" else { return nil }
      index &+= 1
      let layout = (size: element.size, alignment: element.alignment)
      guard let (size, alignment) = rules.array(count: elementCount, element: layout) else { return nil }
      return FastMeasuredType(size: size, alignment: alignment, shape: .array)
    case "{", "(":
      return measureAggregate(isUnion: byte == "(")
    case "b":
      index &+= 1
      guard let first = number() else { return nil }
      // GNU form: b<offset><integer type code><width>.
      if isDigit(peek(at: index &+ 1)), let type = TypeCode(rawValue: peek()), type.isIntegral {
        index &+= 1
        guard let width = number(), width <= EncodingParser.maximumBitfieldWidth(of: type) else { return nil }
        let (size, alignment) = rules.bitfieldUnit(declaredType: type, width: width)
        return FastMeasuredType(
          size: size, alignment: alignment, shape: .bitfield, bitfieldWidth: width, bitfieldOffset: first,
          bitfieldType: type.rawValue)
      }
      guard first <= 128 else { return nil }
      caveats.insert(.bitfieldUnitAssumed)
      let (size, alignment) = rules.bitfieldUnit(declaredType: nil, width: first)
      return FastMeasuredType(size: size, alignment: alignment, shape: .bitfield, bitfieldWidth: first)
    case "@":
      index &+= 1
      switch peek() {
      case "?":
        index &+= 1
        if peek() == "<" {
          index &+= 1
          guard enter() else { return nil }
          // Nested signatures do not affect the block pointer's size or caveats.
          let saved = caveats
          var isEmpty = true
          while true {
            let next = peek()
            if next == 0 { return nil }
            if next == ">", !isEmpty {
              index &+= 1
              break
            }
            guard measure() != nil else { return nil }
            isEmpty = false
          }
          caveats = saved
          depth &-= 1
        }
      case "\"":
        index &+= 1
        while true {
          let next = peek()
          if next == "\"" { break }
          // The end, or a byte a name check would look at.
          if next == 0 || next >= 0x80 { return nil }
          index &+= 1
        }
        index &+= 1
      default:
        break
      }
      return FastMeasuredType(size: rules.pointerSize, alignment: rules.pointerSize, shape: .other)
    default:
      // Primitives are read by `measure()`; anything else is an error.
      return nil
    }
  }

  /// `{name=fields}`, `(name=fields)`, `{name}` or `(name)` without quoted field names.
  private mutating func measureAggregate(isUnion: Bool) -> FastMeasuredType? {
    index &+= 1
    guard enter() else { return nil }
    let close: UInt8 = isUnion ? 0x29 : 0x7D
    var byte = peek()
    while byte != 0x3D && byte != close {
      // The end, or a byte the name check (UTF-8 validation) would look at.
      if byte == 0 || byte >= 0x80 { return nil }
      index &+= 1
      byte = peek()
    }
    index &+= 1
    if byte == close {
      depth &-= 1
      caveats.insert(.fieldsNotEncoded)
      return FastMeasuredType(size: 0, alignment: 1, shape: .aggregate)
    }
    var builder = AggregateLayout(rules: rules, isUnion: isUnion)
    while true {
      let next = peek()
      if next == close {
        index &+= 1
        break
      }
      if next == 0 || next == 0x22 { return nil }
      guard let field = measure() else { return nil }
      if field.shape == .bitfield {
        let declaredType = TypeCode(rawValue: field.bitfieldType)
        let placed = builder.addBitfield(
          bitOffset: declaredType == nil ? nil : field.bitfieldOffset, declaredType: declaredType,
          width: field.bitfieldWidth)
        guard placed != nil else { return nil }
      } else {
        guard builder.addField(size: field.size, alignment: field.alignment) != nil else { return nil }
      }
    }
    depth &-= 1
    caveats.formUnion(builder.caveats)
    guard let (size, alignment) = builder.finish() else { return nil }
    return FastMeasuredType(size: size, alignment: alignment, shape: .aggregate)
  }

  /// An unsigned decimal number without a leading zero (a lone `0` is allowed); `nil` when no
  /// digit is next, on a leading zero or on overflow.
  @inline(__always)
  mutating func number() -> UInt64? {
    var digit = peek() &- 0x30
    guard digit < 10 else { return nil }
    if digit == 0 {
      index &+= 1
      return isDigit(peek()) ? nil : 0
    }
    var value: UInt64 = 0
    repeat {
      let (times10, o1) = value.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
      if o1 || o2 { return nil }
      value = sum
      index &+= 1
      digit = peek() &- 0x30
    } while digit < 10
    return value
  }

  /// A run of offset digits read as one offset when the general rule allows it at once (no
  /// leading zero, no overflow, not above `frame`, not below `previous`); otherwise `nil`, with
  /// `index` after the run, for ``OffsetRunSplitter``.
  @inline(__always)
  mutating func wholeOffset(previous: Int?, frame: Int?) -> Int? {
    let start = index
    var value = 0
    var overflowed = false
    var digit = peek() &- 0x30
    while digit < 10 {
      let (times10, o1) = value.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(Int(digit))
      overflowed = overflowed || o1 || o2
      value = sum
      index &+= 1
      digit = peek() &- 0x30
    }
    if overflowed || (index &- start > 1 && base[start] == 0x30) { return nil }
    if let frame, value > frame { return nil }
    if let previous, value < previous { return nil }
    return value
  }

  /// The offset after a type: `.some(nil)` when none is written, `.some(value)` for one offset
  /// the general scanner would read whole; `nil` (give up) for a signed offset, a leading zero,
  /// or a run that may hold several offsets.
  @inline(__always)
  mutating func offset(previous: Int?, frame: Int?) -> Int?? {
    let byte = peek()
    guard isDigit(byte) else {
      return byte == "+" || byte == "-" ? nil : .some(nil)
    }
    guard let raw = number(), raw <= UInt64(Int.max) else { return nil }
    let value = Int(raw)
    if let frame, value > frame { return nil }
    if let previous, value < previous { return nil }
    return .some(value)
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
