// The one place where the binary scanner meets the type-encoding parser.

import BlockSignature

/// Validates candidate block signatures for the scanner, with the library's own parser. A scan
/// keeps every signature it parsed, so it keeps them compact (`CompactSignature`: one
/// allocation each); the tree is made only for a block's C declaration.
enum SignatureDecoding {
  /// `bytes` parsed as a signature, or nil when they do not parse.
  static func parse(_ bytes: UnsafeRawBufferPointer) -> CompactSignature? {
    try? CompactSignature(parsingBytes: bytes.assumingMemoryBound(to: UInt8.self))
  }

  /// Whether `signature` is a well-formed block signature as clang writes it: a return type, a
  /// frame length, the block itself as `@?0`, then `<type><offset>` pairs (a type may be
  /// empty, as for vectors), offsets non-decreasing and not past the frame.
  static func isBlockSignature(_ signature: CompactSignature) -> Bool {
    guard signature.kind == .block, let frame = signature.frameLength?.value,
      signature.offset(ofArgument: 0)?.value == 0
    else { return false }
    var last = 0
    for index in 0..<signature.argumentCount {
      guard let offset = signature.offset(ofArgument: index)?.value, offset >= last else { return false }
      last = offset
    }
    return last <= frame
  }
}

/// The signatures one scan has parsed, by the file offset of their string: a string reached
/// from a candidate, then from its descriptor, then for its declaration is parsed once.
final class SignatureMemo {
  private var parsed: [Int: CompactSignature?] = [:]

  /// The signature in `bytes`, which start at file offset `offset`, parsed on first use.
  func signature(at offset: Int, bytes: UnsafeRawBufferPointer) -> CompactSignature? {
    if let known = parsed[offset] { return known }
    let signature = SignatureDecoding.parse(bytes)
    parsed[offset] = signature
    return signature
  }
}
