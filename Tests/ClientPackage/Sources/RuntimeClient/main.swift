import BlockSignature
import BlockSignatureRuntime

#if canImport(Glibc)
  import Glibc
#endif

// The README's library example; exits 1 if any result differs from the README's.
var failures: [String] = []
@MainActor func check(_ what: String, _ actual: String, _ expected: String) {
  print("\(what): \(actual)")
  if actual != expected { failures.append("\(what): expected \(expected), got \(actual)") }
}

let block: @convention(block) (Int32, Int) -> Int32 = { a, b in a &+ Int32(truncatingIfNeeded: b) }
let pointer = unsafeBitCast(block, to: UnsafeRawPointer.self)
do {
  let info = try withExtendedLifetime(block) { try BlockInfo(inspecting: pointer) }
  check("kind", "\(info.kind)", "heap")
  check("signature", info.signature ?? "nil", "i20@?0i8q12")
  check("declaration", info.cDeclaration ?? "nil", "int (^)(int, long)")
  check(
    "flags", info.flags.names.joined(separator: " "),
    "BLOCK_NEEDS_FREE BLOCK_HAS_COPY_DISPOSE BLOCK_HAS_SIGNATURE")
  check("reference count", info.referenceCount.map { "\($0)" } ?? "nil", "1")
  let runtime = BlocksRuntime.current?.path ?? "nil"
  check("runtime is the toolchain's", "\(runtime.hasSuffix("/usr/lib/swift/linux/libBlocksRuntime.so"))", "true")
} catch {
  failures.append("BlockInfo(inspecting:) threw \(error)")
}

for failure in failures { print("FAIL \(failure)") }
exit(failures.isEmpty ? 0 : 1)
