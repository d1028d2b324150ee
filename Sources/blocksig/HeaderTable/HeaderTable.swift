import BlockSignature
import BlockSignatureFFI

/// A struct of callbacks as a C header declares it, described by clang: each member's
/// encoding (for a function pointer, the signature clang writes for a block of its type),
/// offset and size, and the ``CallbackTable`` text form whose layout matches clang's.
struct HeaderTable {
  /// One member, in struct order.
  struct Member {
    var name: String
    /// A pointer to a function (with a prototype), as opposed to data.
    var isFunction: Bool
    /// A function's signature in function form, with clang's offsets (`v24^v0r*8^r*16`), or
    /// a data member's type encoding (`I`).
    var encoding: String
    /// The block signature clang wrote for the function's type (`v32@?0^v8r*16^r*24`).
    var blockSignature: String?
    /// A variadic function: ``encoding`` has the fixed part only.
    var isVariadic: Bool
    var offset: Int
    var size: Int
  }

  /// The struct as the command line named it (a tag or a typedef name).
  var record: String
  var header: String
  var size: Int
  var alignment: Int
  var members: [Member]
  /// The text form (``text(record:header:size:members:)``), as it was read back into ``table``.
  var text: String
  /// The members read back as a table: its layout is the one clang gave.
  var table: CallbackTable

  /// The text form `CallbackTable(parsing:)` reads: one member per line, aligned, a variadic
  /// one marked by a comment.
  static func text(record: String, header: String, size: Int, members: [Member]) -> String {
    let width = (members.map(\.name.utf8.count).max() ?? 0) + 2
    var lines = ["# \(record), from \(header) by clang: \(size) bytes, \(counted(members.count, "member"))"]
    for member in members {
      let name = member.name + String(repeating: " ", count: width - member.name.utf8.count)
      let kind = member.isFunction ? "function  " : "data      "
      let note = member.isVariadic ? "  # variadic: the fixed part" : ""
      lines.append(name + kind + member.encoding + note)
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
