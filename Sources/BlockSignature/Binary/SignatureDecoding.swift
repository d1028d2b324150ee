// The one place where the binary scanner meets the type-encoding parser.
//
// Until the `Encoding/` parser is available, `SignatureDecoding` carries its own small,
// bounded validator of clang's block-signature grammar (enough to reject decoys) and renders
// no C declaration. Wiring the real parser changes only this file.

/// Validates candidate block signatures and renders their C declarations for the scanner.
enum SignatureDecoding {
  /// Deepest nesting of `{`, `(`, `[`, `^` accepted before a candidate is rejected.
  static let maximumNestingDepth = 100

  /// Whether `bytes` is a well-formed block signature: `<ret><frame>@?0` followed by
  /// `<type><offset>` pairs (a type may be empty, as clang writes for vectors), offsets
  /// non-decreasing and not above the frame.
  static func isBlockSignature(_ bytes: UnsafeRawBufferPointer) -> Bool {
    var cursor = SignatureCursor(bytes: bytes)
    guard cursor.skipType(depth: 0), let frame = cursor.number() else { return false }
    guard cursor.take(UInt8(ascii: "@")), cursor.take(UInt8(ascii: "?")) else { return false }
    guard let selfOffset = cursor.number(), selfOffset == 0 else { return false }
    var last: Int64 = 0
    while !cursor.atEnd {
      guard cursor.skipType(depth: 0) else { return false }
      guard let offset = cursor.number(), offset >= last else { return false }
      last = offset
    }
    return last <= frame
  }

  /// The C declaration of the block type with `signature`, or nil when it cannot be decoded.
  ///
  /// Returns nil until the type-encoding parser provides declaration rendering.
  static func declaration(forSignature signature: String) -> String? {
    nil
  }
}

/// A byte cursor over a candidate signature (swift-syntax `Cursor` style, bounded).
private struct SignatureCursor {
  let bytes: UnsafeRawBufferPointer
  var position = 0

  init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

  var atEnd: Bool { position >= bytes.count }

  func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

  mutating func take(_ byte: UInt8) -> Bool {
    guard peek() == byte else { return false }
    position += 1
    return true
  }

  /// An optionally negative decimal number (GCC-era encodings carry negative offsets).
  mutating func number() -> Int64? {
    var negative = false
    if peek() == UInt8(ascii: "-") {
      negative = true
      position += 1
    }
    var value: Int64 = 0
    var digits = 0
    while let byte = peek(), byte >= 0x30, byte <= 0x39 {
      guard digits < 12 else { return nil }
      value = value * 10 + Int64(byte - 0x30)
      digits += 1
      position += 1
    }
    guard digits > 0 else { return nil }
    return negative ? -value : value
  }

  /// Skips one (possibly empty) type; false when the bytes cannot be a type.
  mutating func skipType(depth: Int) -> Bool {
    guard depth < SignatureDecoding.maximumNestingDepth else { return false }
    // Qualifiers and prefix modifiers.
    while let byte = peek(), "rnNoORV+Aj".utf8.contains(byte) { position += 1 }
    guard let byte = peek() else { return false }
    switch byte {
    case 0x30...0x39, UInt8(ascii: "-"):
      return true  // an empty type (vectors, `_BitInt`): the offset follows directly.
    case _ where "cCsSiIlLqQfdDBv*#:?tT %".utf8.contains(byte):
      position += 1
      return true
    case UInt8(ascii: "@"):
      position += 1
      if take(UInt8(ascii: "?")) {
        if take(UInt8(ascii: "<")) { return skip(until: UInt8(ascii: ">"), depth: depth) }
        return true
      }
      if take(UInt8(ascii: "\"")) { return skipQuoted() }
      return true
    case UInt8(ascii: "^"):
      position += 1
      if take(UInt8(ascii: "?")) { return true }
      return skipType(depth: depth + 1)
    case UInt8(ascii: "b"):
      position += 1
      return number() != nil
    case UInt8(ascii: "["):
      position += 1
      guard number() != nil, skipType(depth: depth + 1) else { return false }
      return take(UInt8(ascii: "]"))
    case UInt8(ascii: "{"), UInt8(ascii: "("):
      let close = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: ")")
      position += 1
      // Name: up to '=' or the closing bracket (C++ names may hold '<', ',' and spaces).
      var nesting = 0
      while let next = peek() {
        if next == UInt8(ascii: "<") { nesting += 1 }
        if next == UInt8(ascii: ">") { nesting -= 1 }
        if nesting <= 0 && (next == UInt8(ascii: "=") || next == close) { break }
        if next == 0 || next == UInt8(ascii: "{") || next == UInt8(ascii: "(") { return false }
        position += 1
      }
      if take(close) { return true }
      guard take(UInt8(ascii: "=")) else { return false }
      while !take(close) {
        if take(UInt8(ascii: "\"")) { guard skipQuoted() else { return false } }
        guard !atEnd else { return false }
        let before = position
        guard skipType(depth: depth + 1), position > before else { return false }
      }
      return true
    default:
      return false
    }
  }

  private mutating func skipQuoted() -> Bool {
    while let byte = peek() {
      position += 1
      if byte == UInt8(ascii: "\"") { return true }
    }
    return false
  }

  private mutating func skip(until close: UInt8, depth: Int) -> Bool {
    var nesting = 1
    while let byte = peek() {
      position += 1
      if byte == UInt8(ascii: "<") { nesting += 1 }
      if byte == close {
        nesting -= 1
        if nesting == 0 { return true }
      }
    }
    return false
  }
}
