import BlockSignatureFFI
import Foundation

/// The one JSON writer of the command line. Every document has its keys sorted at every
/// level and `serializationVersion` at its root; it is written either as a document (two
/// spaces per level, `"key" : value`) or as one compact line (JSON Lines). Reports are
/// `Encodable`; a document that must keep numbers exactly as written (`call`'s 128-bit
/// integers and `long double`s) is a `JSONValue`, written with the same layout.
enum JSONOutput {
  /// How a document is laid out.
  enum Style {
    /// Over several lines: what `--json` prints for one result.
    case document
    /// On one line: one document of a JSON Lines stream.
    case line
  }

  /// `value` as JSON text in `style`, without a final line break.
  static func text(_ value: some Encodable, style: Style = .document) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting =
      style == .line ? [.sortedKeys, .withoutEscapingSlashes] : [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
  }

  /// `value` as JSON text in `style`, keys sorted as ``text(_:style:)-(Encodable,_)`` sorts
  /// them; in a document, the members named in `keepingCompact` stay on one line.
  static func text(_ value: JSONValue, style: Style = .document, keepingCompact: Set<String> = []) -> String {
    let sorted = value.sortingKeys()
    return style == .line ? sorted.compact : sorted.pretty(keepingCompact: keepingCompact)
  }

  /// Prints `value` as one document on standard output.
  static func print(_ value: some Encodable) throws {
    FileHandle.standardOutput.write(Data((try text(value) + "\n").utf8))
  }
}

extension JSONValue {
  /// The value with every object's members in key order, as JSONEncoder's `.sortedKeys` orders them.
  fileprivate func sortingKeys() -> JSONValue {
    switch self {
    case .array(let elements): .array(elements.map { $0.sortingKeys() })
    case .object(let members):
      .object(
        members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map {
          .init(key: $0.key, value: $0.value.sortingKeys())
        })
    default: self
    }
  }
}
