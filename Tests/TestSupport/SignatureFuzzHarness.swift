// What the signature fuzz harness (FuzzTesting/Sources/FuzzSignature) does with one input, for
// the tests that replay its inputs: the core's, and the replay of every kept fail case.

import BlockSignature

/// What FuzzTesting/Sources/FuzzSignature does with one input; returns the rendered lengths.
@discardableResult
package func runSignatureHarness(_ bytes: [UInt8]) -> Int {
  var rendered = 0
  bytes.withUnsafeBufferPointer { buffer in
    guard let signature = try? SignatureEncoding(parsingBytes: buffer) else { return }
    _ = signature.description
    _ = signature.strippingOffsets()
    for model in DataModel.allBuiltIn {
      _ = try? signature.layout(for: model)
      _ = try? signature.synthesizingOffsets(for: model)
      _ = try? signature.returnType.layout(for: model)
      for argument in signature.arguments { _ = try? argument.type.parameterSlotSize(for: model) }
      rendered += signature.cDeclaration(for: model).utf8.count
      rendered += signature.swiftType(for: model).utf8.count
      rendered += signature.returnType.cDeclaration(name: "x", for: model).utf8.count
    }
    _ = signature.compatibleDataModels()
  }
  return rendered
}
