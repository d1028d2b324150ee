// The lines a tracer writes, made fast: what is fixed for a block (its address, invoke, symbol,
// signature, C type) is written once when the block is traced, and each call appends only its
// thread, arguments and result, scalars without building a JSON tree.

import BlockSignatureFFI

/// How a ``BlockTracer`` writes each call: `blocksig trace`'s text line or its JSON line
/// (``BlockCallRecord/text`` and ``BlockCallRecord/jsonLine`` make the same lines).
public enum TraceLineFormat: String, Hashable, Sendable {
  /// `[thread N] symbol  C type  (arguments) -> result`.
  case text
  /// One JSON object per call.
  case json
}

/// The parts of a block's lines that no call changes.
struct TraceLineTemplate: Sendable {
  let format: TraceLineFormat
  /// Text: `symbol  C type  (`. JSON: the object up to `"arguments":[`.
  let head: String

  init(_ record: BlockCallRecord, format: TraceLineFormat) {
    self.format = format
    switch format {
    case .text:
      head =
        "\(record.invokeSymbol ?? "0x" + String(record.invoke, radix: 16))  \(record.declaration ?? record.signature ?? "")  ("
    case .json:
      // The record's own line with no arguments ends in `"arguments":[],"result":null,…`.
      var empty = record
      empty.arguments = []
      let line = empty.jsonLine
      let tail = #"],"result":null,"thread":\#(record.thread)}"#
      head = line.hasSuffix(tail) ? String(line.dropLast(tail.count)) : line
    }
  }

  /// The line of one call.
  func line(thread: Int, arguments: [CValue], result: CValue?) -> String {
    var line = ""
    line.reserveCapacity(head.utf8.count + 64)
    switch format {
    case .text:
      line += "[thread "
      line += String(thread)
      line += "] "
      line += head
      for (index, argument) in arguments.enumerated() {
        if index > 0 { line += ", " }
        line += argument.description
      }
      line += ")"
      if let result {
        line += " -> "
        line += result.description
      }
    case .json:
      line += head
      for (index, argument) in arguments.enumerated() {
        if index > 0 { line += "," }
        Self.appendJSON(argument, to: &line)
      }
      line += #"],"result":"#
      if let result { Self.appendJSON(result, to: &line) } else { line += "null" }
      line += #","thread":"#
      line += String(thread)
      line += "}"
    }
    return line
  }

  /// `value` in `blocksig call --json`'s form (``CValue/jsonText``), scalars written directly.
  static func appendJSON(_ value: CValue, to line: inout String) {
    switch value {
    case .signed(let number) where number >= Int128(Int64.min) && number <= Int128(Int64.max):
      line += String(Int64(number))
    case .unsigned(let number) where number <= UInt128(UInt64.max): line += String(UInt64(number))
    case .pointer(let address): line += String(address)
    case .bool(let flag): line += flag ? "true" : "false"
    case .double(let number) where number.isFinite: line += number.description
    case .float(let number) where number.isFinite: line += number.description
    default: line += value.jsonText
    }
  }
}
