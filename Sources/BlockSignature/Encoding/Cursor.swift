/// A byte literal readable in source: `"{" as CharacterByte`.
@usableFromInline
struct CharacterByte: ExpressibleByUnicodeScalarLiteral, Equatable, Sendable {
  @usableFromInline var value: UInt8
  @inlinable init(unicodeScalarLiteral scalar: Unicode.Scalar) {
    value = UInt8(truncatingIfNeeded: scalar.value)
  }
  @inlinable static func ~= (pattern: CharacterByte, byte: UInt8) -> Bool { pattern.value == byte }
  @inlinable static func == (lhs: UInt8, rhs: CharacterByte) -> Bool { lhs == rhs.value }
  @inlinable static func != (lhs: UInt8, rhs: CharacterByte) -> Bool { lhs != rhs.value }
  @inlinable static func ~= (pattern: CharacterByte, byte: UInt8?) -> Bool { pattern.value == byte }
  @inlinable static func == (lhs: UInt8?, rhs: CharacterByte) -> Bool { lhs == rhs.value }
  @inlinable static func != (lhs: UInt8?, rhs: CharacterByte) -> Bool { lhs != rhs.value }
}

/// A forward cursor over UTF-8 bytes (swift-syntax `Lexer.Cursor`).
///
/// The buffer must outlive the cursor; every read is bounds-checked against `end`.
package struct Cursor {
  @usableFromInline let base: UnsafeBufferPointer<UInt8>
  /// The byte offset of the next byte.
  package private(set) var offset: Int

  package init(_ base: UnsafeBufferPointer<UInt8>, offset: Int = 0) {
    self.base = base
    self.offset = offset
  }

  package var isAtEnd: Bool { offset >= base.count }

  /// The next byte, or `nil` at the end.
  @inline(__always)
  package func peek(ahead distance: Int = 0) -> UInt8? {
    let index = offset &+ distance
    guard index >= 0, index < base.count else { return nil }
    return base[index]
  }

  /// Consumes one byte and returns it, or `nil` at the end.
  @inline(__always) @discardableResult
  package mutating func advance() -> UInt8? {
    guard offset < base.count else { return nil }
    defer { offset &+= 1 }
    return base[offset]
  }

  /// Consumes the next byte if it equals `byte`.
  @inline(__always)
  mutating func advance(if byte: CharacterByte) -> Bool {
    guard offset < base.count, base[offset] == byte.value else { return false }
    offset &+= 1
    return true
  }

  /// Consumes bytes while `predicate` holds and returns the consumed range.
  @inline(__always) @discardableResult
  package mutating func advance(while predicate: (UInt8) -> Bool) -> Range<Int> {
    let start = offset
    while offset < base.count, predicate(base[offset]) { offset &+= 1 }
    return start..<offset
  }

  package mutating func move(to newOffset: Int) {
    offset = min(max(newOffset, 0), base.count)
  }

  /// The bytes in `range`, which must lie inside the buffer.
  package func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: base[range])
  }

  package var count: Int { base.count }
}

@inline(__always)
func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
