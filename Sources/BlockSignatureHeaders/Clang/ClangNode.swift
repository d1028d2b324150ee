// The part of clang's JSON AST dump (`-Xclang -ast-dump=json`) the readers use.

import Foundation

/// One node of clang's JSON AST: a declaration and the declarations inside it, with only the
/// attributes the readers look at.
struct ClangNode: Decodable {
  /// A type as clang prints it: as written, and without its sugar when that differs.
  struct QualType: Decodable {
    var qualType: String?
    var desugaredQualType: String?

    /// The type without typedefs, as clang prints it.
    var desugared: String? { desugaredQualType ?? qualType }
  }

  var kind: String?
  var name: String?
  var type: QualType?
  var tagUsed: String?
  var completeDefinition: Bool?
  var isBitfield: Bool?
  var variadic: Bool?
  var inner: [ClangNode]?

  /// Why the dump does not read: the byte offset where a value starts that does not decode,
  /// or where the text stops in the middle of a value.
  struct ReadingError: Error, CustomStringConvertible {
    var offset: Int
    var message: String
    var description: String { "at byte \(offset): \(message)" }
  }

  /// The values of `text`, one after another: what clang prints for the declarations a
  /// filter (`-ast-dump-filter`) matches, each a JSON object.
  static func sequence(_ text: String) throws(ReadingError) -> [ClangNode] {
    let bytes = Array(text.utf8)
    var nodes: [ClangNode] = []
    var start: Int?
    var depth = 0
    var inString = false
    var escaped = false
    for (index, byte) in bytes.enumerated() {
      if inString {
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          inString = false
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""):
        inString = true
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        if depth == 0 { start = index }
        depth += 1
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth -= 1
        guard depth >= 0, let first = start else { throw ReadingError(offset: index, message: "unbalanced brackets") }
        if depth == 0 {
          do {
            nodes.append(try JSONDecoder().decode(ClangNode.self, from: Data(bytes[first...index])))
          } catch {
            throw ReadingError(offset: first, message: "\(error)")
          }
          start = nil
        }
      case 0x20, 0x09, 0x0A, 0x0D:
        continue
      default:
        if depth == 0 { throw ReadingError(offset: index, message: "text outside any object") }
      }
    }
    guard depth == 0, !inString else {
      throw ReadingError(offset: bytes.count, message: "the text ends inside a value")
    }
    return nodes
  }
}
