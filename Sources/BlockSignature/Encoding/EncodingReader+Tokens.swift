// The tokens of the grammar inside one type: numbers, record headers and names, bitfields and
// objects. Each returns `nil` or `false` with `failure` set on an error.

extension EncodingReader {
  /// An unsigned decimal number at `index`, which holds a digit. A lone `0` is a number; a
  /// longer one starting with `0` is `invalidNumber` (unless `allowingLeadingZero`), one beyond
  /// `UInt64` is `countOverflow`.
  @inline(__always)
  mutating func readNumber(allowingLeadingZero: Bool = false) -> UInt64? {
    let start = index
    let (position, value) = digitRun(from: start)
    index = position
    let length = position &- start
    if !allowingLeadingZero, length > 1, base[start] == 0x30 {
      _ = fail(.invalidNumber, at: start)
      return nil
    }
    return checkedNumber(from: start, to: position, wrapped: value)
  }

  /// The digits from `start` to `end` as a number, given their `wrapped` value: nineteen digits
  /// always fit; more are read again with the checks (`countOverflow` at `start`).
  @inline(__always)
  mutating func checkedNumber(from start: Int, to end: Int, wrapped: UInt64) -> UInt64? {
    if end &- start > 19 {
      var exact: UInt64 = 0
      for offset in start..<end {
        let (times10, o1) = exact.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times10.addingReportingOverflow(UInt64(base[offset] &- 0x30))
        if o1 || o2 {
          _ = fail(.countOverflow, at: start)
          return nil
        }
        exact = sum
      }
      return exact
    }
    return wrapped
  }

  /// The run of digits from `start`: where it ends, and its value, which wraps beyond 19
  /// digits (callers check the length). A local position and one store after the loop.
  @inline(__always)
  func digitRun(from start: Int) -> (end: Int, value: UInt64) {
    var position = start
    var value: UInt64 = 0
    while position < count {
      let digit = base[position] &- 0x30
      if digit >= 10 { break }
      value = value &* 10 &+ UInt64(digit)
      position &+= 1
    }
    return (position, value)
  }

  /// `[count` at `start`: the count, with `index` on the element.
  @inline(__always)
  mutating func readArrayCount(start: Int) -> UInt64? {
    index = start &+ 1
    guard index < count else {
      _ = fail(.unterminatedArray, at: start)
      return nil
    }
    guard isDigit(base[index]) else {
      _ = fail(.missingArrayCount, at: index)
      return nil
    }
    guard let elements = readNumber() else { return nil }
    guard index < count else {
      _ = fail(.unterminatedArray, at: start)
      return nil
    }
    return elements
  }

  /// `{name=`, `(name=`, `{name}` or `(name)` at `start`: a record without fields goes to the
  /// sink whole; one with fields is opened, with `index` on its first field.
  @inline(__always)
  mutating func readRecordHeader<Sink: EncodingSink>(start: Int, into sink: inout Sink) -> Bool {
    let isUnion = base[start] == 0x28
    let close: UInt8 = isUnion ? 0x29 : 0x7D
    // The depth is checked before the name is read.
    guard level < maximumDepth else { return fail(.nestingTooDeep, at: start) }
    let nameStart = start &+ 1
    guard let (end, isASCII) = findNameEnd(from: nameStart, close: close) else {
      return fail(isUnion ? .unterminatedUnion : .unterminatedStructure, at: start)
    }
    let name = UnsafeBufferPointer(start: base + nameStart, count: end &- nameStart)
    index = end &+ 1
    if !isASCII { guard validateName(name, at: nameStart) else { return false } }
    if base[end] == close { return sink.record(isUnion: isUnion, name: name) }
    guard push(.record, start: start, close: close) else { return false }
    return sink.open(.record(isUnion: isUnion, name: name))
  }

  /// The first `=` or `close` from `position`, and whether every byte before it is ASCII; `nil`
  /// at the end. Eight bytes at a time.
  @inline(__always)
  func findNameEnd(from position: Int, close: UInt8) -> (end: Int, isASCII: Bool)? {
    var position = position
    var isASCII = true
    let closeInEveryByte = UInt64(close) &* 0x0101_0101_0101_0101
    while position &+ 8 <= count {
      let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
      let found = Self.nameEnds(in: word, closeInEveryByte: closeInEveryByte)
      if found == 0 {
        position &+= 8
        continue
      }
      position &+= found.trailingZeroBitCount &>> 3
      let byte = base[position]
      if byte == 0x3D || byte == close { return (position, isASCII) }
      // A byte above 0x7F.
      isASCII = false
      position &+= 1
    }
    while position < count {
      let byte = base[position]
      if byte == 0x3D || byte == close { return (position, isASCII) }
      if byte >= 0x80 { isASCII = false }
      position &+= 1
    }
    return nil
  }

  /// The bytes of `word` (eight bytes of the input, the first in the low bits) that are `=`, the
  /// record's closing byte (repeated in each byte of `closeInEveryByte`) or above 0x7F, as their
  /// high bits; 0 when there are none. The classic test for a zero byte,
  /// `(x - 0x01…01) & ~x & 0x80…80`, may also mark a byte after a true one (the borrow runs
  /// upward), never before: the lowest bit set is exact, and so is 0.
  @inline(__always)
  static func nameEnds(in word: UInt64, closeInEveryByte: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    let equal = word ^ 0x3D3D_3D3D_3D3D_3D3D
    let close = word ^ closeInEveryByte
    let zeroEqual = (equal &- ones) & ~equal
    let zeroClose = (close &- ones) & ~close
    return (zeroEqual | zeroClose | word) & highs
  }

  /// The position of the first `"` from `position`, or `nil`.
  @inline(__always)
  func findQuote(from position: Int) -> Int? {
    var position = position
    while position < count {
      if base[position] == 0x22 { return position }
      position &+= 1
    }
    return nil
  }

  /// Whether `name`, which starts at `offset` and holds a byte above 0x7F, is UTF-8; if not,
  /// `invalidUTF8` at its first byte above 0x7F.
  mutating func validateName(_ name: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
    if String(validating: name, as: UTF8.self) != nil { return true }
    var position = offset
    for byte in name {
      if byte >= 0x80 { break }
      position &+= 1
    }
    return fail(.invalidUTF8, at: position)
  }

  /// A field's quoted name at `index` (on the `"`), in the open `record`.
  @inline(__always)
  mutating func readFieldName(record: ReaderNesting) -> UnsafeBufferPointer<UInt8>? {
    let quote = index
    guard let end = findQuote(from: quote &+ 1) else {
      _ = fail(.unterminatedString, at: quote)
      return nil
    }
    index = end &+ 1
    guard index < count else {
      _ = fail(unterminatedRecord(record), at: record.start)
      return nil
    }
    let name = UnsafeBufferPointer(start: base + (quote &+ 1), count: end &- quote &- 1)
    guard validateNameIfNeeded(name, at: quote &+ 1) else { return nil }
    return name
  }

  @inline(__always)
  mutating func validateNameIfNeeded(_ name: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
    for byte in name where byte >= 0x80 { return validateName(name, at: offset) }
    return true
  }

  /// `b<width>` (NeXT) or `b<offset><type><width>` (GNU) at `index`.
  @inline(__always)
  mutating func readBitfield() -> TypeEncoding.Bitfield? {
    index &+= 1
    let numberStart = index
    guard let first = byte(at: index), isDigit(first) else {
      _ = fail(index < count ? .invalidBitfield : .unexpectedEnd, at: numberStart)
      return nil
    }
    guard let value = readNumber() else { return nil }
    // GNU form: b<offset><integer type code><width>.
    if let code = byte(at: index), isDigit(byte(at: index &+ 1)), let type = TypeCode(rawValue: code), type.isIntegral {
      index &+= 1
      let widthStart = index
      guard let width = readNumber() else { return nil }
      // C forbids a width beyond the declared type's.
      guard width <= Self.maximumBitfieldWidth(of: type) else {
        _ = fail(.invalidBitfield, at: widthStart)
        return nil
      }
      return TypeEncoding.Bitfield(bitOffset: value, declaredType: type, width: width)
    }
    // No bitfield is wider than the widest integer type, `__int128`.
    guard value <= 128 else {
      _ = fail(.invalidBitfield, at: numberStart)
      return nil
    }
    return TypeEncoding.Bitfield(width: value)
  }

  /// The widest bitfield of an integral type in bits. `l`/`L` allow 64: GCC writes `l` for an
  /// LP64 `long`, where clang would write `q`.
  static func maximumBitfieldWidth(of type: TypeCode) -> UInt64 {
    switch type {
    case .char, .unsignedChar, .bool: 8
    case .short, .unsignedShort: 16
    case .int, .unsignedInt: 32
    case .long, .unsignedLong, .longLong, .unsignedLongLong: 64
    default: 128
    }
  }

  /// `@`, `@"Class"`, `@?` or `@?<` at `start`. In a record whose fields have names
  /// (`terminator` is its closing byte), `@"b"` is a class name only when a name, the record's
  /// end or the input's end follows: otherwise `"b"` names the next field. A nested signature
  /// is opened, with `index` on its first type.
  @inline(__always)
  mutating func readObject<Sink: EncodingSink>(start: Int, terminator: UInt8, into sink: inout Sink) -> Bool {
    index = start &+ 1
    let next = byte(at: index)
    if next == 0x3F {  // ?
      index &+= 1
      guard byte(at: index) == 0x3C else { return sink.block() }  // <
      index &+= 1
      guard push(.nestedSignature, start: start) else { return false }
      // An unterminated nested signature is reported at its `<`.
      let open = index &- 1
      stack[depth &- 1].start = open
      guard sink.open(.nestedSignature) else { return false }
      if Sink.readsPointees { return true }
      // The types' syntax alone, then the signature is complete.
      var check = SyntaxCheck()
      var elements = 0
      while true {
        guard index < count else { return fail(.unterminatedBlockSignature, at: open) }
        if base[index] == 0x3E, elements > 0 { break }  // >
        elements &+= 1
        guard readType(into: &check) else { return false }
      }
      index &+= 1
      depth &-= 1
      return sink.close(.nestedSignature)
    }
    guard next == 0x22 else { return sink.object(className: nil) }  // "
    let quote = index
    guard let end = findQuote(from: quote &+ 1) else { return fail(.unterminatedString, at: quote) }
    if terminator != 0 {
      let after = byte(at: end &+ 1)
      guard after == nil || after == 0x22 || after == terminator else { return sink.object(className: nil) }
    }
    let name = UnsafeBufferPointer(start: base + (quote &+ 1), count: end &- quote &- 1)
    guard validateNameIfNeeded(name, at: quote &+ 1) else { return false }
    index = end &+ 1
    return sink.object(className: name)
  }
}
