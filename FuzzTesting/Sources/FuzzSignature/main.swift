// Fuzzes the signature parser, the layout engine on every built-in data model, offset synthesis,
// data-model inference and both renderers. Nothing may trap; layout errors must be typed.
import BlockSignature

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignature(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
  guard let signature = try? SignatureEncoding(parsingBytes: bytes) else { return 0 }
  _ = signature.description
  _ = signature.kind
  _ = signature.strippingOffsets()
  for model in DataModel.allBuiltIn {
    _ = try? signature.layout(for: model)
    _ = try? signature.synthesizingOffsets(for: model)
    _ = try? signature.returnType.layout(for: model)
    for argument in signature.arguments { _ = try? argument.type.parameterSlotSize(for: model) }
    _ = signature.cDeclaration(for: model)
    _ = signature.swiftType(for: model)
    _ = signature.returnType.cDeclaration(name: "x", for: model)
  }
  _ = signature.compatibleDataModels()
  return 0
}
