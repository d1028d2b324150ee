import BlockSignatureFFI

#if canImport(Glibc)
  import Glibc
#endif

// The README's calling example; exits 1 if a result differs from the README's.
let scale: @convention(block) (Int32, Double) -> Double = { Double($0) * $1 }
do {
  let invocation = try BlockInvocation(block: unsafeBitCast(scale, to: UnsafeRawPointer.self))
  let result = try invocation.invoke([.signed(3), .double(0.5)])
  print("result: \(result)")
  guard result == .double(1.5) else {
    print("FAIL expected 1.5")
    exit(1)
  }
} catch {
  print("FAIL \(error)")
  exit(1)
}
