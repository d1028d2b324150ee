import BlockSignature

extension MethodSignature {
  /// The signature in `form` with the offsets clang writes, whatever offsets (or none) it was
  /// written with: what a made block's descriptor holds and what a trampoline reports.
  func withClangOffsets(form: SignatureEncoding.Kind) throws(SignatureError) -> MethodSignature {
    let block = try converted(to: .block)
    return try MethodSignature(
      returnType: block.encoding.returnType, argumentTypes: block.encoding.arguments.dropFirst().map(\.type),
      form: form, model: model)
  }
}
