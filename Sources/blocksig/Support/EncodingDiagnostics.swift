import ArgumentParser
import BlockSignature
import Foundation

extension Diagnostics {
  /// Prints `label:offset: error: message`, the input, and a `^~~` underline at the offset
  /// (to the end for unterminated constructs), and returns exit code 65.
  static func malformed(_ error: EncodingError, label: String) -> ExitCode {
    let column = error.offset
    var underline = String(repeating: " ", count: column) + "^"
    let length = error.input.utf8.count
    if error.kind.rawValue.hasPrefix("unterminated"), length > column + 1 {
      underline += String(repeating: "~", count: length - column - 1)
    }
    write("\(label):\(error.offset): error: \(error.message)\n\(error.input)\n\(underline)\n")
    return ExitCode(65)
  }

  /// Reports a ``SignatureError``: malformed text with its underline, anything else on one line;
  /// returns exit code 65.
  static func failure(_ error: SignatureError, label: String) -> ExitCode {
    if let encodingError = error.encodingError { return malformed(encodingError, label: label) }
    write("\(label): error: \(error)\n")
    return ExitCode(65)
  }
}

/// `^~~` under `range` of a line indented by `indent` columns.
func underline(_ range: Range<Int>, indent: Int) -> String {
  String(repeating: " ", count: indent + range.lowerBound) + "^"
    + String(repeating: "~", count: max(0, range.count - 1))
}
