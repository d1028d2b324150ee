// From what clang printed to a checked table: each signature turned into the form a table
// takes, the text form read back, and its layout compared with clang's member by member.

import BlockSignature
import BlockSignatureValues

extension HeaderReader {
  /// The table of `fields`, from the probe's signatures, checked against its offsets and sizes.
  static func table(
    record: String, header: String, fields: [HeaderField], functions: [Int: HeaderFunctionType], probed: HeaderProbe
  ) throws(HeaderReaderError) -> HeaderTable {
    guard let model = DataModel.host else {
      throw HeaderReaderError(.unsupported, "this machine has no built-in data model")
    }
    var members: [HeaderTable.Member] = []
    for (index, field) in fields.enumerated() {
      let probe = probed.members[index]
      let function = functions[index]
      members.append(
        HeaderTable.Member(
          name: field.name, isFunction: function != nil,
          encoding: try encoding(of: field, signature: probe.signature, isFunction: function != nil, model: model),
          blockSignature: function != nil ? probe.signature : nil, isVariadic: function?.isVariadic ?? false,
          offset: probe.offset, size: probe.size))
    }
    let text = HeaderTable.text(record: record, header: header, size: probed.size, members: members)
    let table: CallbackTable
    do {
      table = try CallbackTable(parsing: text, name: record, model: model)
    } catch {
      throw HeaderReaderError(.mismatch, "clang's members do not make a table: \(error)")
    }
    for (member, laid) in zip(members, table.members) where (member.offset, member.size) != (laid.offset, laid.size) {
      throw HeaderReaderError(
        .mismatch,
        "member '\(member.name)' (\(member.encoding)): clang puts \(member.size) bytes at "
          + "\(member.offset), its encoding \(laid.size) at \(laid.offset)")
    }
    guard table.size == probed.size, table.alignment == probed.alignment else {
      throw HeaderReaderError(
        .mismatch,
        "'\(record)': clang makes it \(probed.size) bytes aligned to \(probed.alignment), "
          + "its encodings \(table.size) aligned to \(table.alignment)")
    }
    return HeaderTable(
      record: record, header: header, size: probed.size, alignment: probed.alignment, members: members, text: text,
      table: table)
  }

  /// A function member's signature in function form, or a data member's encoding: the type of
  /// the block's one parameter (for an array, what the pointer to it points to).
  static func encoding(of field: HeaderField, signature: String, isFunction: Bool, model: DataModel)
    throws(HeaderReaderError)
    -> String
  {
    let parsed: SignatureEncoding
    do {
      parsed = try SignatureEncoding(parsing: signature)
    } catch {
      throw HeaderReaderError(.probeFailed, "member '\(field.name)': clang wrote '\(signature)': \(error)")
    }
    let types = [parsed.returnType] + parsed.arguments.map(\.type)
    guard !types.contains(.unencodable) else {
      throw HeaderReaderError(
        .unsupported,
        "member '\(field.name)' (\(field.type)): clang writes no encoding for "
          + (isFunction ? "a type of its function" : "its type") + " ('\(signature)': a vector or _BitInt)")
    }
    if isFunction {
      do {
        return try parsed.converted(from: .block, to: .types, model: model).description
      } catch {
        throw HeaderReaderError(.mismatch, "member '\(field.name)': \(error)")
      }
    }
    guard parsed.arguments.count == 2 else {
      throw HeaderReaderError(.probeFailed, "member '\(field.name)': clang wrote '\(signature)' for its block")
    }
    let type = parsed.arguments[1].type.unqualified
    // A function pointer not recognized as one would be listed as data: never a wrong table.
    if type == .pointer(.primitive(.unknown)) {
      throw HeaderReaderError(
        .unsupported,
        "member '\(field.name)' is a function pointer whose type clang prints as '\(field.type)', "
          + "which this reader does not take apart")
    }
    if field.isArray {
      guard case .pointer(let pointee) = type else {
        throw HeaderReaderError(
          .mismatch, "member '\(field.name)' (\(field.type)): clang encodes it as \(type)"
        )
      }
      return pointee.description
    }
    return type.description
  }
}
