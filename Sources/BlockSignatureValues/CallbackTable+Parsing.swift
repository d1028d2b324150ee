// The text form of a callback table: one member per line, `NAME function SIGNATURE` or
// `NAME data ENCODING`, in struct order; `#` starts a comment.

import BlockSignature

extension CallbackTable {
  /// Reads a table from its text form, one member per line in struct order:
  ///
  ///     # struct ops
  ///     add      function  i^vii
  ///     version  data      I
  ///
  /// - Throws: ``DelegateError`` with the line of a malformed member, or what
  ///   ``init(name:members:model:)`` throws.
  public init(parsing text: String, name: String = "?", model: DataModel? = .host) throws(DelegateError) {
    var declarations: [Declaration] = []
    var lines: [Int] = []  // the line of each declaration
    var lineNumber = 0
    for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      lineNumber += 1
      let content = line.prefix { $0 != UInt8(ascii: "#") }
      let words = content.split { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
      if words.isEmpty { continue }
      guard words.count == 3 else {
        throw DelegateError(
          kind: .invalidDescription, line: lineNumber,
          message: "expected `NAME function SIGNATURE` or `NAME data ENCODING`, got \(words.count) words")
      }
      let memberName = String(decoding: words[0], as: UTF8.self)
      if declarations.contains(where: { $0.name == memberName }) {
        throw DelegateError(
          kind: .invalidDescription, member: memberName, line: lineNumber, message: "the name is used twice")
      }
      let encoding = String(decoding: words[2], as: UTF8.self)
      lines.append(lineNumber)
      switch String(decoding: words[1], as: UTF8.self) {
      case "function": declarations.append(.function(memberName, signature: encoding))
      case "data": declarations.append(.data(memberName, encoding: encoding))
      case let other:
        throw DelegateError(
          kind: .invalidDescription, line: lineNumber, message: "the kind is `function` or `data`, not `\(other)`")
      }
    }
    do {
      try self.init(name: name, members: declarations, model: model)
    } catch {
      var located = error
      if let member = error.member, let index = declarations.firstIndex(where: { $0.name == member }) {
        located.line = lines[index]
      }
      throw located
    }
  }
}
