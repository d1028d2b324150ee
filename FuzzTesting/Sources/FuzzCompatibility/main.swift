// Fuzzes the compatibility checker and the signature conversions. The input is split at its
// first NUL byte into a candidate and an expected signature (a missing NUL compares the input
// with itself); both are checked at every level on every built-in data model.
import BlockSignature

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCompatibility(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
  let split = bytes.firstIndex(of: 0) ?? count
  let first = UnsafeBufferPointer(rebasing: bytes[0..<split])
  let second = split < count ? UnsafeBufferPointer(rebasing: bytes[(split + 1)...]) : first
  guard let candidate = try? SignatureEncoding(parsingBytes: first),
    let expected = try? SignatureEncoding(parsingBytes: second)
  else { return 0 }
  for model in DataModel.allBuiltIn {
    for level in CompatibilityLevel.allCases {
      let report = CompatibilityChecker(level: level, model: model).check(candidate, against: expected)
      for diagnostic in report.diagnostics { _ = diagnostic.message }
      _ = report.isCompatible
    }
    _ = try? candidate.methodEncoding(for: model)
    _ = try? candidate.blockEncoding(for: model)
    _ = try? candidate.functionEncoding(for: model)
    if let method = try? MethodSignature(candidate, model: model) {
      for index in 0..<8 { _ = method.argumentType(at: index) }
    }
  }
  return 0
}
