import Foundation
import TestSupport
import Testing

/// The signature clang writes for a block literal: `literal` (a C block expression, after the
/// declarations in `prelude`) compiled to IR, its descriptor's signature read back.
func clangBlockSignature(_ literal: String, prelude: String = "") throws -> String {
  let source = "\(prelude)\nconst void *made_by_clang(void) { return \(literal); }\n"
  let (directory, product) = try Toolchain.compileC(
    source, fileName: "signature.c", arguments: ["-fblocks", "-S", "-emit-llvm", "-w"], output: "signature.ll")
  defer { try? FileManager.default.removeItem(at: directory) }
  let ir = ClangIR(try String(contentsOf: product, encoding: .utf8))
  let signatures = ir.descriptors.values.compactMap(\.signature)
  try #require(signatures.count == 1, "\(signatures)")
  return signatures[0]
}
