import BlockSignature
import BlockSignatureValues

/// A struct of callbacks as a C header declares it, described by clang: each member's
/// encoding (for a function pointer, the signature clang writes for a block of its type),
/// offset and size, and the `CallbackTable` text form whose layout
/// matches clang's. ``HeaderReader/table(header:struct:)`` reads one.
///
///     let table = try HeaderReader().table(header: "ops.h", struct: "ops")
///     for member in table.members {
///       print(member.name, member.encoding)  // add i16^v0i8i12
///     }
///     let delegate = table.table             // ready for DynamicDelegate
public struct HeaderTable: Hashable, Sendable {
  /// One member, in struct order.
  public struct Member: Hashable, Sendable {
    /// The member's name.
    public var name: String
    /// A pointer to a function (with a prototype), as opposed to data.
    public var isFunction: Bool
    /// A function's signature in function form, with clang's offsets (`v24^v0r*8^r*16`), or
    /// a data member's type encoding (`I`).
    public var encoding: String
    /// The block signature clang wrote for the function's type (`v32@?0^v8r*16^r*24`).
    public var blockSignature: String?
    /// A variadic function: ``encoding`` has the fixed part only.
    public var isVariadic: Bool
    /// `offsetof` the member, as clang computes it.
    public var offset: Int
    /// `sizeof` the member, as clang computes it.
    public var size: Int
  }

  /// The struct as the caller named it (a tag or a typedef name).
  public var record: String
  /// The header, as the caller gave its path.
  public var header: String
  /// `sizeof` the struct, as clang computes it.
  public var size: Int
  /// `_Alignof` the struct, as clang computes it.
  public var alignment: Int
  /// The members, in struct order.
  public var members: [Member]
  /// The text form (one member per line), as it was read back into ``table``.
  public var text: String
  /// The members read back as a table: its layout is the one clang gave.
  public var table: CallbackTable

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
