// Fuzzes the extended-layout decoder, both forms: the byte string, and the inline word taken
// from the input's first eight bytes.
import BlockSignature

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExtendedLayout(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
  do {
    let layout = try ExtendedLayout(decoding: bytes)
    _ = layout.description
    _ = layout.strongCount + layout.byrefCount + layout.weakCount + layout.unretainedCount
  } catch {
    if error.offset < 0 || error.offset > count { fatalError("offset \(error.offset) outside 0...\(count)") }
    _ = error.description
  }
  var word: UInt = 0
  for (index, byte) in bytes.prefix(MemoryLayout<UInt>.size).enumerated() {
    word |= UInt(byte) << (8 * UInt(index))
  }
  let inline = ExtendedLayout(inlineValue: word)
  _ = inline.description
  return 0
}
