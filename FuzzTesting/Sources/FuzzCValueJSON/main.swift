// Fuzzes the JSON form of values (`blocksig call`'s syntax): JSON text to `CValue` by a C type,
// and back. The input is split at its first NUL byte into a type encoding and a JSON text
// (without a NUL, the whole input is JSON text and only the type-free reading runs). A text
// refused is refused with an `InvocationError` (malformed JSON with a byte offset inside the
// text); a value read, typed or type-free, must have a JSON text that reads back to the same
// text.
import BlockSignature
import BlockSignatureFFI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCValueJSON(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = UnsafeRawBufferPointer(start: start, count: count)
  let split = bytes.firstIndex(of: 0)
  let jsonBytes = split.map { UnsafeRawBufferPointer(rebasing: bytes[($0 + 1)...]) } ?? bytes
  let text = String(decoding: jsonBytes, as: UTF8.self)
  do {
    let value = try CValue(json: text)
    guard let again = try? CValue(json: value.jsonText) else {
      preconditionFailure("the JSON text of \(value) does not read back: \(value.jsonText)")
    }
    precondition(again.jsonText == value.jsonText, "the JSON text of \(value) reads back as \(again)")
  } catch {
    checkOffset(error, in: text)
  }
  guard let split, let model = DataModel.host,
    let type = try? TypeEncoding(
      parsing: String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<split]), as: UTF8.self))
  else { return 0 }
  let value: CValue
  do {
    value = try CValue(json: jsonBytes, as: type, model: model)
  } catch {
    checkOffset(error, in: text)
    return 0
  }
  let again: CValue
  do {
    again = try CValue(json: value.jsonText, as: type, model: model)
  } catch {
    preconditionFailure("the JSON text of \(value) is refused for \(type): \(error)")
  }
  precondition(again.jsonText == value.jsonText, "the JSON text of \(value) reads back as \(again)")
  return 0
}

/// A malformed text's error names a byte inside it (or just past its end).
func checkOffset(_ error: InvocationError, in text: String) {
  let prefix = "malformed JSON at byte "
  guard error.message.hasPrefix(prefix) else { return }
  let digits = error.message.dropFirst(prefix.count).prefix { $0.isNumber }
  guard let offset = Int(digits) else { preconditionFailure("no offset in \(error.message)") }
  precondition(offset >= 0 && offset <= text.utf8.count, "error offset \(offset) is outside the text")
}
