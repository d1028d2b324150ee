import ArgumentParser
import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime
import Foundation

extension Diagnostics {
  /// Prints `label:offset: error: message`, the input, and a `^~~` underline of the bytes the
  /// error covers (``EncodingError/range``: a byte, a number, an unterminated construct to the
  /// end), and returns exit code 65. The place is a column counted in bytes from 1, as
  /// compilers count it (`<argument 1>:4:`, `<stdin>:3:4:`).
  static func malformed(_ error: EncodingError, label: String) -> ExitCode {
    let shown = excerpt(error.input, around: error.offset)
    let length = max(1, min(error.range.count, shown.end - shown.column))
    let marks = underline(0..<length, indent: shown.column)
    write("\(label):\(error.offset + 1): error: \(error.message)\n\(shown.text)\n\(marks)\n")
    return ExitCode(ExitStatus.dataError)
  }

  /// The part of `input` printed under an error: all of it when it is at most `width` bytes,
  /// otherwise `width` bytes around `offset` with `…` where it was cut (a megabyte of encoding
  /// should not become a megabyte of message). `column` is where `offset` falls in `text`;
  /// `end` is the column just after the last byte of input shown.
  static func excerpt(_ input: String, around offset: Int, width: Int = 100) -> (text: String, column: Int, end: Int) {
    let bytes = Array(input.utf8)
    guard bytes.count > width else { return (input, offset, bytes.count) }
    var start = max(0, min(offset - width / 2, bytes.count - width))
    var end = min(bytes.count, start + width)
    // Never cut inside a UTF-8 sequence.
    while start > 0, bytes[start] & 0xC0 == 0x80 { start -= 1 }
    while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
    let lead = start > 0 ? 1 : 0
    let text =
      (start > 0 ? "…" : "") + String(decoding: bytes[start..<end], as: UTF8.self) + (end < bytes.count ? "…" : "")
    return (text, lead + offset - start, lead + end - start)
  }

  /// Reports a ``LayoutError`` (a size that does not fit) at the first place the type that
  /// overflowed appears in `input`, underlined, as a malformed encoding is; on one line when
  /// it cannot be found (or the plain search would take more than 2^24 comparisons).
  static func layoutFailure(_ error: LayoutError, input: String, label: String) {
    let bytes = Array(input.utf8)
    let needle = Array(error.encoding.utf8)
    var start: Int?
    // A plain search, so bounded: at most 2^24 byte comparisons whatever the input holds.
    if !needle.isEmpty, needle.count <= bytes.count, needle.count * (bytes.count - needle.count + 1) <= 1 << 24 {
      start = (0...(bytes.count - needle.count)).first { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
    }
    guard let start else {
      write("\(label): error: \(error)\n")
      return
    }
    let shown = excerpt(input, around: start)
    let length = max(1, min(needle.count, shown.end - shown.column))
    write(
      "\(label):\(start + 1): error: \(error)\n\(shown.text)\n\(underline(0..<length, indent: shown.column))\n"
    )
  }

  /// Prints `label:offset: error: message`, the input and a `^~~` underline of `range`, as a
  /// malformed encoding is reported, for a problem found after parsing.
  static func located(_ message: String, input: String, range: Range<Int>, label: String) {
    let shown = excerpt(input, around: range.lowerBound)
    let length = max(1, min(range.count, shown.end - shown.column))
    write(
      "\(label):\(range.lowerBound + 1): error: \(message)\n\(shown.text)\n"
        + "\(underline(0..<length, indent: shown.column))\n")
  }

  /// Reports a ``SignatureError``: malformed text with its underline, anything else on one line;
  /// returns exit code 65.
  static func failure(_ error: SignatureError, label: String) -> ExitCode {
    if let encodingError = error.encodingError { return malformed(encodingError, label: label) }
    write("\(label): error: \(error)\n")
    return ExitCode(ExitStatus.dataError)
  }
}

/// `^~~` under `range` of a line indented by `indent` columns.
func underline(_ range: Range<Int>, indent: Int) -> String {
  String(repeating: " ", count: indent + range.lowerBound) + "^"
    + String(repeating: "~", count: max(0, range.count - 1))
}
