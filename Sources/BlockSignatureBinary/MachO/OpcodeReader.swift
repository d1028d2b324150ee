import BlockSignature

/// Reads opcode streams: bytes, ULEB128/SLEB128 (overflow-checked), C strings, all within `end`.
struct OpcodeReader {
  let bytes: ByteView
  var position: UInt64
  let end: UInt64

  init(bytes: ByteView, at position: UInt64, end: UInt64) {
    self.bytes = bytes
    self.position = position
    self.end = end
  }

  mutating func nextByte() -> (UInt64, UInt8)? {
    guard position < end, let byte = bytes.u8(position) else { return nil }
    defer { position += 1 }
    return (position, byte)
  }

  /// A ULEB128, or nil when it runs off the end or does not fit 64 bits.
  mutating func uleb() -> UInt64? {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while let (_, byte) = nextByte() {
      let bits = UInt64(byte & 0x7f)
      if shift >= 64 || (shift > 0 && bits >> (64 - shift) != 0) { return nil }
      result |= bits << shift
      if byte & 0x80 == 0 { return result }
      shift += 7
    }
    return nil
  }

  /// An SLEB128, or nil when it runs off the end or does not fit 64 bits.
  mutating func sleb() -> Int64? {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while let (_, byte) = nextByte() {
      guard shift < 64 else { return nil }
      result |= UInt64(byte & 0x7f) << shift
      shift += 7
      if byte & 0x80 == 0 {
        if shift < 64, byte & 0x40 != 0 { result |= ~0 << shift }
        return Int64(bitPattern: result)
      }
    }
    return nil
  }

  /// The NUL-terminated string at the current position (range without the NUL).
  mutating func cString() -> Range<Int>? {
    guard let range = bytes.cStringRange(at: position, end: end, limit: 4096) else { return nil }
    position = UInt64(range.upperBound) + 1
    return range
  }
}
