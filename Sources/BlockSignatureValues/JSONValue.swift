// A JSON value with each number's text: what the JSON form of `CValue` is read into and
// written from, and what `blocksig call` builds its `--json` document with.

import BlockSignature

/// A JSON value as BlockSignatureFFI's `CValue` JSON form reads and writes it. A number keeps its exact text,
/// so integers of any width and floating-point values round-trip unchanged.
package indirect enum JSONValue: Hashable, Sendable {
  case null
  case bool(Bool)
  /// The number's text, as the JSON grammar allows it (`-12`, `0.5`, `1e-3`).
  case number(String)
  case string(String)
  case array([JSONValue])
  /// Members in the order written; keys are unique.
  case object([Member])

  /// One `"key": value` pair of an object.
  package struct Member: Hashable, Sendable {
    package var key: String
    package var value: JSONValue

    package init(key: String, value: JSONValue) {
      self.key = key
      self.value = value
    }
  }

  /// What kind of value it is, for messages: "null", "a number", "an array", ….
  package var kindName: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  /// The value on one line: `[1, 2.5, "a"]`, `{"member": 0, "value": 3}`.
  package var compact: String {
    var output = ""
    write(to: &output, indent: nil, level: 0)
    return output
  }

  /// The value over several lines, two spaces per level, objects and arrays of them broken
  /// up; arrays of scalars and values inside `keepCompact` keys stay on one line.
  package func pretty(keepingCompact keepCompact: Set<String> = []) -> String {
    var output = ""
    write(to: &output, indent: "  ", level: 0, keepCompact: keepCompact)
    return output
  }

  private func write(to output: inout String, indent: String?, level: Int, keepCompact: Set<String> = []) {
    switch self {
    case .null: output += "null"
    case .bool(let flag): output += flag ? "true" : "false"
    case .number(let text): output += text
    case .string(let text): output += Self.quoted(text)
    case .array(let elements):
      output += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { output += ", " }
        element.write(to: &output, indent: nil, level: 0)
      }
      output += "]"
    case .object(let members):
      guard let indent, !members.isEmpty else {
        output += "{" + members.map { Self.quoted($0.key) + ": " + $0.value.compact }.joined(separator: ", ") + "}"
        return
      }
      output += "{\n"
      for (index, member) in members.enumerated() {
        output += String(repeating: indent, count: level + 1) + Self.quoted(member.key) + " : "
        member.value.write(
          to: &output, indent: keepCompact.contains(member.key) ? nil : indent, level: level + 1,
          keepCompact: keepCompact)
        output += index == members.count - 1 ? "\n" : ",\n"
      }
      output += String(repeating: indent, count: level) + "}"
    }
  }

  /// `text` as a JSON string: quotes, backslashes and control characters escaped.
  package static func quoted(_ text: String) -> String {
    var output = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case "\u{08}": output += "\\b"
      case "\u{0C}": output += "\\f"
      case _ where scalar.value < 0x20:
        output += "\\u" + scalar.value.hexadecimal(digits: 4, prefixed: false)
      default: output.unicodeScalars.append(scalar)
      }
    }
    return output + "\""
  }
}
