// Fuzzes the type-encoding parser: any bytes either parse or throw `EncodingError`; a parsed
// type prints back to an encoding that parses to the same value (round trip).
import BlockSignature

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTypeEncoding(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
  let type: TypeEncoding
  do {
    type = try TypeEncoding(parsingBytes: bytes)
  } catch {
    // The error must point into the input (or just past its end).
    if error.offset < 0 || error.offset > count { fatalError("offset \(error.offset) outside 0...\(count)") }
    _ = error.description
    return 0
  }
  let printed = type.description
  guard let reparsed = try? TypeEncoding(parsing: printed) else {
    fatalError("printed encoding \(printed) does not parse")
  }
  if reparsed != type { fatalError("round trip changed \(printed)") }
  _ = type.debugDescription
  return 0
}
