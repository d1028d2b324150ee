// Fuzzes the Swift function-type reader (`SwiftFunctionType`): any text either maps to
// encodings or throws `SwiftTypeError` with an offset inside it, on every built-in model, and
// the block encoding it gives parses as a signature. A timeout here is a parse that is not
// linear (nested parentheses once cost 2^depth).
import BlockSignature

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSwiftType(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
  let length = text.utf8.count
  for model in DataModel.allBuiltIn {
    let type: SwiftFunctionType
    do {
      type = try SwiftFunctionType(parsing: text, model: model)
    } catch {
      if error.offset < 0 || error.offset > length { fatalError("offset \(error.offset) outside 0...\(length)") }
      _ = error.description
      continue
    }
    let block = type.blockEncoding.description
    guard (try? SignatureEncoding(parsing: block)) != nil else {
      fatalError("block encoding \(block) of \(text) does not parse")
    }
  }
  return 0
}
