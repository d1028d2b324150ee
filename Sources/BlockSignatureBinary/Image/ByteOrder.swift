// Bounds-checked, endian-parametrised loads from untrusted bytes.

import BlockSignature
import BlockSignatureSystem

/// The byte order of a binary. A parameter of every load: the scanner never asks the host.
enum ByteOrder: Sendable, Hashable {
  case little
  case big
}

/// A view of untrusted bytes with bounds-checked, overflow-safe loads.
///
/// Every load returns `nil` instead of trapping when `offset + size` overflows or passes the end.
struct ByteView {
  let base: UnsafeRawBufferPointer
  let order: ByteOrder

  var count: Int { base.count }

  /// Whether `[offset, offset + length)` lies inside the view (overflow-safe).
  @inline(__always)
  func contains(offset: UInt64, length: UInt64) -> Bool {
    let (end, overflow) = offset.addingReportingOverflow(length)
    return !overflow && end <= UInt64(base.count)
  }

  @inline(__always)
  func u8(_ offset: UInt64) -> UInt8? {
    guard offset < UInt64(base.count) else { return nil }
    return base[Int(offset)]
  }

  @inline(__always)
  func u16(_ offset: UInt64) -> UInt16? {
    guard contains(offset: offset, length: 2) else { return nil }
    let raw = base.loadUnaligned(fromByteOffset: Int(offset), as: UInt16.self)
    return order == .little ? UInt16(littleEndian: raw) : UInt16(bigEndian: raw)
  }

  @inline(__always)
  func u32(_ offset: UInt64) -> UInt32? {
    guard contains(offset: offset, length: 4) else { return nil }
    let raw = base.loadUnaligned(fromByteOffset: Int(offset), as: UInt32.self)
    return order == .little ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw)
  }

  @inline(__always)
  func u64(_ offset: UInt64) -> UInt64? {
    guard contains(offset: offset, length: 8) else { return nil }
    let raw = base.loadUnaligned(fromByteOffset: Int(offset), as: UInt64.self)
    return order == .little ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw)
  }

  /// A word of `size` bytes (4 or 8), zero-extended.
  @inline(__always)
  func word(_ offset: UInt64, size: Int) -> UInt64? {
    size == 8 ? u64(offset) : u32(offset).map(UInt64.init)
  }

  /// The NUL-terminated byte string at `offset`, searched no further than `limit` bytes and
  /// not past `end`. Returns the range without the terminator, or `nil` if no NUL was found.
  func cStringRange(at offset: UInt64, end: UInt64, limit: UInt64) -> Range<Int>? {
    let stop = min(end, UInt64(base.count), offset &+ limit < offset ? UInt64.max : offset &+ limit)
    guard offset < stop, let start = base.baseAddress else { return nil }
    let searchLength = Int(stop - offset)
    guard let hit = system_memchr(start + Int(offset), 0, searchLength) else { return nil }
    let length = UnsafeRawPointer(start).distance(to: hit) - Int(offset)
    return Int(offset)..<(Int(offset) + length)
  }

  /// The bytes in `range` decoded as UTF-8 (lossy repair), for names and signatures.
  func string(_ range: Range<Int>) -> String {
    String(decoding: UnsafeRawBufferPointer(rebasing: base[range]), as: UTF8.self)
  }

  /// A sub-view sharing the same byte order.
  func slice(_ range: Range<Int>) -> ByteView {
    ByteView(base: UnsafeRawBufferPointer(rebasing: base[range]), order: order)
  }
}
