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
  // The same call with its arguments as `blocksig call` takes them, read as each parameter's
  // C type by the library, and the result written back in that syntax.
  let types = invocation.signature.encoding.arguments.dropFirst().map(\.type)
  let texts = ["3", "0.5"]
  var values: [CValue] = []
  for (text, type) in zip(texts, types) { values.append(try CValue(json: text, as: type)) }
  let json = try invocation.invoke(values).jsonText
  print("json: \(json)")
  guard json == "1.5" else {
    print("FAIL expected 1.5 as JSON")
    exit(1)
  }
} catch {
  print("FAIL \(error)")
  exit(1)
}
