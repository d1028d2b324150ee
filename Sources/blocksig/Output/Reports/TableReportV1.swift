// The `blocksig table --json` document (Schemas/blocksig-table-1.schema.json).

import BlockSignature
import BlockSignatureFFI
import BlockSignatureHeaders

/// `blocksig table --json`, version 1.
struct TableReportV1: Encodable {
  struct Member: Encodable {
    var name: String
    var kind: String
    /// A function's signature in function form, or a data member's encoding.
    var encoding: String
    var blockSignature: String?
    var variadic: Bool
    var offset: Int
    var size: Int
  }

  let serializationVersion = 1
  var record: String
  var header: String
  var target: String
  var size: Int
  var alignment: Int
  var members: [Member]
  /// The text form, as `CallbackTable(parsing:)` reads it.
  var text: String

  init(_ table: HeaderTable) {
    record = table.record
    header = table.header
    target = table.table.model.name
    size = table.size
    alignment = table.alignment
    members = table.members.map {
      Member(
        name: $0.name, kind: $0.isFunction ? "function" : "data", encoding: $0.encoding,
        blockSignature: $0.blockSignature, variadic: $0.isVariadic, offset: $0.offset, size: $0.size)
    }
    text = table.text
  }
}
