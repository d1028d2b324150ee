// Reading the signature of a live block into the core's signature and checker types.

import BlockSignature
import BlockSignatureBinary

extension MethodSignature {
  /// Reads the signature of a live block, laid out on `model` (this machine's by default, as
  /// for every live block).
  ///
  ///     let info = try BlockInfo(inspecting: block)
  ///     try MethodSignature(block: info).isBlock  // true
  ///
  /// - Throws: `SignatureError` with `SignatureError/Kind/missingSignature` when the block
  ///   has no signature (no `BLOCK_HAS_SIGNATURE`, or a NULL pointer), or a malformed one;
  ///   `SignatureError/Kind/unknownDataModel` when `model` is nil.
  public init(block: BlockInfo, model: DataModel? = .host) throws(SignatureError) {
    guard let model else {
      throw SignatureError(
        kind: .unknownDataModel, signature: block.signature ?? "",
        message: "no data model describes this machine: pass one")
    }
    guard let bytes = block.signatureBytes else {
      let address = block.address.hexadecimal()
      throw SignatureError(
        kind: .missingSignature, signature: "",
        message: block.flags.contains(.hasSignature)
          ? "block at \(address) has a NULL signature pointer"
          : "block at \(address) has no signature (BLOCK_HAS_SIGNATURE is clear)")
    }
    let encoding: SignatureEncoding
    do {
      encoding = try bytes.withUnsafeBufferPointer { buffer throws(EncodingError) in
        try SignatureEncoding(parsingBytes: buffer)
      }
    } catch {
      throw SignatureError(error)
    }
    try self.init(encoding, model: model)
  }
}
