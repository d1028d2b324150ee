// Fuzzes the binary scanner (ELF, Mach-O, `ar` archives) on in-memory bytes: any input either
// produces reports (possibly with warnings) or a `BinaryScanError`.
import BlockSignature
import BlockSignatureBinary

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBinaryScanner(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let bytes = UnsafeRawBufferPointer(start: count == 0 ? nil : start, count: count)
  guard let reports = try? BinaryScanner.scan(bytes: bytes, name: "fuzz") else { return 0 }
  for report in reports {
    for block in report.blocks {
      _ = block.signature
      _ = block.declaration
    }
    _ = report.warnings.map(\.description)
  }
  return 0
}
