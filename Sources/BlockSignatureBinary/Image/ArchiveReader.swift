// Reading the members of a Unix `ar` archive (GNU and BSD name forms) without copying them.

import BlockSignature

/// A member of an `ar` archive: its name and the byte range of its contents.
struct ArchiveMember {
  var name: String
  var range: Range<Int>
}

enum ArchiveReader {
  static let magic = Array("!<arch>\n".utf8)
  static let headerSize = 60

  static func isArchive(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.count >= magic.count && zip(bytes.prefix(magic.count), magic).allSatisfy { $0 == $1 }
  }

  /// Parses a decimal header field (space padded).
  private static func decimal(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
    var value = 0
    var digits = 0
    for index in range {
      let byte = bytes[index]
      if byte == 0x20 { if digits > 0 { break } else { continue } }
      guard byte >= 0x30, byte <= 0x39, digits < 15 else { return nil }
      value = value * 10 + Int(byte - 0x30)
      digits += 1
    }
    return digits > 0 ? value : nil
  }

  /// The members in file order, special members (symbol tables, long-name tables) left out.
  static func members(of bytes: UnsafeRawBufferPointer) throws(BinaryScanError) -> [ArchiveMember] {
    var members: [ArchiveMember] = []
    var longNames: Range<Int>?
    var offset = magic.count
    while offset < bytes.count {
      guard bytes.count - offset >= headerSize else {
        throw BinaryScanError(
          .malformed, offset: UInt64(offset),
          "archive member header at \(hex(offset)) goes past end of file (size \(hex(bytes.count)))")
      }
      guard bytes[offset + 58] == 0x60, bytes[offset + 59] == 0x0a else {
        throw BinaryScanError(
          .malformed, offset: UInt64(offset + 58), "archive member header at \(hex(offset)) has a bad terminator")
      }
      guard let size = decimal(bytes, (offset + 48)..<(offset + 58)) else {
        throw BinaryScanError(
          .malformed, offset: UInt64(offset + 48), "archive member header at \(hex(offset)) has a bad size field")
      }
      let dataStart = offset + headerSize
      guard size <= bytes.count - dataStart else {
        throw BinaryScanError(
          .malformed, offset: UInt64(offset),
          "archive member at \(hex(offset)) (size \(hex(size))) goes past end of file (size \(hex(bytes.count)))")
      }
      var range = dataStart..<(dataStart + size)
      let rawName = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + 16)])
      var name = String(decoding: rawName, as: UTF8.self).trimmingSpaces()
      if name == "/" || name == "/SYM64/" || name.hasPrefix("__.SYMDEF") {
        name = ""
      } else if name == "//" {
        longNames = range
        name = ""
      } else if name.hasPrefix("#1/") {
        // BSD: the name is the first `length` bytes of the contents.
        let field = name.dropFirst(3)
        guard let length = Int(field), length >= 0, length <= size else {
          throw BinaryScanError(
            .malformed, offset: UInt64(offset + 3),
            "archive member at \(hex(offset)) has BSD name length \"\(field)\", not a byte count within its size \(size)"
          )
        }
        name = String(
          decoding: UnsafeRawBufferPointer(rebasing: bytes[dataStart..<(dataStart + length)]), as: UTF8.self)
        while name.last == "\0" { name.removeLast() }
        range = (dataStart + length)..<(dataStart + size)
      } else if name.hasPrefix("/"), let index = Int(name.dropFirst()), let table = longNames {
        guard index >= 0, index < table.count else {
          throw BinaryScanError(
            .malformed, offset: UInt64(offset),
            "archive member at \(hex(offset)) names long-name offset \(index) past end of the name table")
        }
        var end = table.lowerBound + index
        while end < table.upperBound && bytes[end] != 0x0a && bytes[end] != 0 { end += 1 }
        name = String(
          decoding: UnsafeRawBufferPointer(rebasing: bytes[(table.lowerBound + index)..<end]), as: UTF8.self)
        if name.hasSuffix("/") { name.removeLast() }
      } else if name.hasSuffix("/") {
        name.removeLast()
      }
      if !name.isEmpty { members.append(ArchiveMember(name: name, range: range)) }
      offset = dataStart + size + (size & 1)
    }
    return members
  }
}

extension String {
  fileprivate func trimmingSpaces() -> String {
    var result = self
    while result.last == " " { result.removeLast() }
    return result
  }
}
