// The one place where the binary scanner meets the type-encoding parser.

import BlockSignature

/// Validates candidate block signatures and renders their C declarations for the scanner,
/// with the library's own parser (`SignatureEncoding`).
enum SignatureDecoding {
  /// Whether `bytes` is a well-formed block signature as clang writes it: a return type, a
  /// frame length, the block itself as `@?0`, then `<type><offset>` pairs (a type may be
  /// empty, as for vectors), offsets non-decreasing and not past the frame.
  static func isBlockSignature(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let signature = parse(bytes), signature.kind == .block, let frame = signature.frameLength?.value,
      signature.arguments.first?.offset?.value == 0
    else { return false }
    var last = 0
    for argument in signature.arguments {
      guard let offset = argument.offset?.value, offset >= last else { return false }
      last = offset
    }
    return last <= frame
  }

  /// The C declaration of the block type with `signature` on `model`, or nil when it does not
  /// parse.
  static func declaration(forSignature signature: String, model: DataModel) -> String? {
    var text = signature
    return text.withUTF8 { parse(UnsafeRawBufferPointer($0)) }?.cDeclaration(for: model)
  }

  private static func parse(_ bytes: UnsafeRawBufferPointer) -> SignatureEncoding? {
    try? SignatureEncoding(parsingBytes: bytes.assumingMemoryBound(to: UInt8.self))
  }
}
