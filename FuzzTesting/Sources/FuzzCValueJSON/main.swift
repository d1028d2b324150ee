// Fuzzes `blocksig call`'s value syntax: JSON text to `CValue` by a C type, and back. The input
// is split at its first NUL byte into a type encoding and a JSON text (without a NUL, the whole
// input is JSON text and only the parser runs). The parser's output written compactly must
// parse back to the same value (with the pretty form too); a value converted for the type (or
// refused with an error) must have a JSON form that parses back to itself.
//
// The JSON reader and writer are `blocksig`'s own files (CLI/ holds links to
// Sources/blocksig/Support): an executable target cannot be a dependency. Where the library
// comes to hold them, these links give way to an import.
import BlockSignature
import BlockSignatureFFI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCValueJSON(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = UnsafeRawBufferPointer(start: start, count: count)
  let split = bytes.firstIndex(of: 0)
  let jsonBytes = split.map { UnsafeRawBufferPointer(rebasing: bytes[($0 + 1)...]) } ?? bytes
  let text = String(decoding: jsonBytes, as: UTF8.self)
  let json: JSONValue
  do {
    json = try JSONParser.parse(text)
  } catch {
    precondition(
      error.offset >= 0 && error.offset <= text.utf8.count, "error offset \(error.offset) is outside the text")
    return 0
  }
  for written in [json.compact, json.pretty()] {
    guard let again = try? JSONParser.parse(written, maximumDepth: 1000) else {
      preconditionFailure("the written form of a parsed value does not parse: \(written)")
    }
    precondition(again == json, "the written form reads back differently: \(written)")
  }
  guard let split, let model = DataModel.host,
    let type = try? TypeEncoding(
      parsing: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<split]), as: UTF8.self))
  else { return 0 }
  guard let value = try? CValue(json: json, for: type, argument: 1, model: model) else { return 0 }
  guard let again = try? JSONParser.parse(value.json.compact, maximumDepth: 1000) else {
    preconditionFailure("the JSON form of \(value) does not parse: \(value.json.compact)")
  }
  precondition(again == value.json, "the JSON form of \(value) reads back differently")
  return 0
}
