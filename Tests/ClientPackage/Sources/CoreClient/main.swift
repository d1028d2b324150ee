import BlockSignature

#if canImport(Glibc)
  import Glibc
#endif

// Parses, lays out and renders an encoding with the core product only; exits 1 on a wrong
// result.
var failures: [String] = []
@MainActor func check(_ what: String, _ actual: String, _ expected: String) {
  print("\(what): \(actual)")
  if actual != expected { failures.append("\(what): expected \(expected), got \(actual)") }
}

do {
  let block = try SignatureEncoding(parsing: "i20@?0i8r*12")
  check("declaration", block.cDeclaration(), "int (^)(int, const char *)")
  check("frame length", "\(try block.layout(for: .x86_64SysV).frameLength)", "20")
  check("method", try SignatureEncoding(parsing: "v16@?0@8").methodEncoding().description, "v24@0:8@16")
  let report = try CompatibilityChecker(level: .abi).check("v20@?0q8i16", against: "v16@?0i8i12")
  check(
    "diagnostic", report.diagnostics.first?.message ?? "nil",
    "argument 1: size 8 does not match size 4 (q vs i)")
} catch {
  failures.append("threw \(error)")
}
do {
  _ = try SignatureEncoding(parsing: "i20@?0i8{")
  failures.append("a truncated encoding was accepted")
} catch {
  print("truncated encoding: \(error)")
}

for failure in failures { print("FAIL \(failure)") }
exit(failures.isEmpty ? 0 : 1)
