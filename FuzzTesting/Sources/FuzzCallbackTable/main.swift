// Fuzzes the text form of a callback table (`CallbackTable(parsing:)`): one member per line,
// `NAME function SIGNATURE` or `NAME data ENCODING`. The input is read on every built-in data
// model; a table that parses must be laid out consistently (members in order, inside the
// table, each found by its name), and on this machine a delegate is made for it and every
// function member's place in the table filled.
import BlockSignature
import BlockSignatureFFI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCallbackTable(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
  for model in DataModel.allBuiltIn {
    let table: CallbackTable
    do {
      table = try CallbackTable(parsing: text, name: "fuzz", model: model)
    } catch {
      _ = error.description
      continue
    }
    var end = 0
    for member in table.members {
      precondition(member.offset >= end, "\(member.name) overlaps the member before it")
      precondition(member.offset + member.size <= table.size, "\(member.name) lies past the table's end")
      precondition(table.member(named: member.name) == member, "\(member.name) is not found by its name")
      end = member.offset + member.size
      _ = member.signature?.description
      _ = member.takesContext
    }
    precondition(table.size % max(1, table.alignment) == 0, "the size is not a multiple of the alignment")
    guard model == DataModel.host, table.members.count <= 64,
      let delegate = try? DynamicDelegate(table, unimplementedMembers: .returnZero)
    else { continue }
    for member in table.members where member.signature != nil {
      precondition((try? delegate.function(for: member.name)) != nil, "\(member.name) is NULL in the table")
    }
  }
  return 0
}
