// Fuzzes the signature parser, the layout engine on every built-in data model, offset synthesis,
// data-model inference and both renderers. Nothing may trap; layout errors must be typed.
// Differential: the single-pass `SignatureFrame` must give the tree path's numbers, or the same
// error, on every input and model; a disagreement traps, so libFuzzer keeps the input. A
// `SignatureFrame.Reader` kept across inputs (its storage reused) must give the same frames.
// `CompactSignature` must make the tree's tree, or fail with its error, and lay out as it does.
import BlockSignature

/// One reader per model, kept across inputs as a program keeps one (libFuzzer runs inputs one
/// at a time on one thread).
nonisolated(unsafe) var readers = DataModel.allBuiltIn.map { SignatureFrame.Reader(model: $0) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignature(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
  let parsed = Result { () throws(EncodingError) in try SignatureEncoding(parsingBytes: bytes) }
  for (index, model) in DataModel.allBuiltIn.enumerated() {
    compareFastPath(bytes, parsed, model, reader: &readers[index])
  }
  compareCompact(bytes, parsed)
  guard case .success(let signature) = parsed else { return 0 }
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

/// Traps when `SignatureFrame` and the tree path (parse, then `layout(for:)`) disagree.
func compareFastPath(
  _ bytes: UnsafeBufferPointer<UInt8>, _ parsed: Result<SignatureEncoding, EncodingError>, _ model: DataModel,
  reader: inout SignatureFrame.Reader
) {
  let frame = Result { () throws(SignatureError) in try SignatureFrame(parsingBytes: bytes, for: model) }
  let read = Result { () throws(SignatureError) in try reader.frame(parsingBytes: bytes) }
  precondition(read == frame, "the reader differs: \(read) vs \(frame)")
  switch (parsed, frame) {
  case (.failure(let treeError), .failure(let frameError)):
    precondition(frameError.encodingError == treeError, "errors differ: \(treeError) vs \(frameError)")
  case (.success(let signature), .success(let frame)):
    guard let layout = try? signature.layout(for: model) else {
      preconditionFailure("tree layout failed where SignatureFrame succeeded")
    }
    precondition(frame.frameLength == layout.frameLength, "frame \(frame.frameLength) vs \(layout.frameLength)")
    precondition(frame.returnValue.size == layout.returnLayout.size, "return size differs")
    precondition(frame.returnValue.alignment == layout.returnLayout.alignment, "return alignment differs")
    precondition(frame.arguments.count == layout.arguments.count, "argument counts differ")
    for (fast, tree) in zip(frame.arguments, layout.arguments) {
      precondition(fast.size == tree.layout.size && fast.alignment == tree.layout.alignment, "argument size differs")
      precondition(fast.slotSize == tree.slotSize && fast.offset == tree.offset, "argument slot/offset differs")
    }
  case (.success(let signature), .failure(let frameError)):
    // Only a layout overflow may make the frame fail where parsing succeeded.
    precondition(frameError.encodingError == nil, "frame failed to parse what the tree parsed: \(frameError)")
    precondition((try? signature.layout(for: model)) == nil, "frame overflowed where the tree did not")
  case (.failure(let treeError), .success):
    preconditionFailure("frame accepted what the tree rejected: \(treeError)")
  }
}

/// Traps when `CompactSignature` and the tree disagree: parsing, the tree it makes, and the
/// layout on every model.
func compareCompact(_ bytes: UnsafeBufferPointer<UInt8>, _ parsed: Result<SignatureEncoding, EncodingError>) {
  let compact = Result { () throws(EncodingError) in try CompactSignature(parsingBytes: bytes) }
  switch (parsed, compact) {
  case (.failure(let treeError), .failure(let compactError)):
    precondition(treeError == compactError, "errors differ: \(treeError) vs \(compactError)")
  case (.success(let signature), .success(let compact)):
    precondition(compact.tree == signature, "trees differ: \(compact.tree) vs \(signature)")
    for model in DataModel.allBuiltIn {
      let tree = Result { () throws(LayoutError) in try signature.layout(for: model) }
      let nodes = Result { () throws(LayoutError) in try compact.layout(for: model) }
      precondition(tree == nodes, "layouts differ on \(model)")
    }
  case (.success, .failure(let error)):
    preconditionFailure("the compact form rejected what the tree parsed: \(error)")
  case (.failure(let error), .success):
    preconditionFailure("the compact form accepted what the tree rejected: \(error)")
  }
}
