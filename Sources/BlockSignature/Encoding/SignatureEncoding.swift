/// A parsed signature: a return type and argument types, each optionally followed by an offset.
///
/// It covers block signatures (`i20@?0i8r*12`), method signatures (`v24@0:8@16`), and plain type
/// lists (`iq`), with or without offsets. Printing gives back the input byte for byte.
///
///     let signature = try SignatureEncoding(parsing: "i20@?0i8r*12")
///     signature.kind                    // .block
///     signature.returnType              // .primitive(.int)
///     signature.frameLength?.value      // 20
///     signature.arguments[2].offset     // 12
///
/// The corresponding clang ABI field is `Block_descriptor_3.signature`; clang writes it in
/// `ASTContext::getObjCEncodingForBlock`.
///
/// A tree allocates for most nodes that hold another type. To keep many parsed signatures, or
/// to parse and lay out without building one, use ``CompactSignature`` (one allocation, the
/// same layout) or ``SignatureFrame`` (sizes and offsets only).
public struct SignatureEncoding: Hashable, Sendable {
  /// The return type (or, for a plain type list, the first type). `.unencodable` when clang
  /// wrote nothing for it.
  public var returnType: TypeEncoding
  /// The number written after the return type: the frame length in bytes.
  public var frameLength: Offset?
  /// The arguments, with the block (`@?`) or `self`/`_cmd` included.
  public var arguments: [Argument]

  /// Creates a signature from its parts.
  public init(returnType: TypeEncoding, frameLength: Offset? = nil, arguments: [Argument]) {
    self.returnType = returnType
    self.frameLength = frameLength
    self.arguments = arguments
  }

  /// What a signature describes, decided from its first arguments.
  public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
    /// The first argument is `@?`.
    case block
    /// The first two arguments are `@` and `:`.
    case method
    /// Anything else: a list of types.
    case types

    /// The rule, for every form of a parsed signature: what its first two arguments are
    /// (qualifiers aside).
    init(firstIsBlock: Bool, firstIsObject: Bool, secondIsSelector: Bool) {
      self = firstIsBlock ? .block : firstIsObject && secondIsSelector ? .method : .types
    }
  }

  /// The kind, from the arguments: `@?` first means a block, `@` then `:` a method.
  public var kind: Kind {
    guard let first = arguments.first?.type.unqualified else { return .types }
    let isBlock = if case .block = first { true } else { false }
    let isObject = if case .object = first { true } else { false }
    // Read only when it can decide: after an object.
    let secondIsSelector =
      isObject && arguments.count >= 2
      && { if case .primitive(.selector) = arguments[1].type.unqualified { true } else { false } }()
    return Kind(firstIsBlock: isBlock, firstIsObject: isObject, secondIsSelector: secondIsSelector)
  }

  /// Whether any offset (or the frame length) is written.
  public var hasOffsets: Bool {
    frameLength != nil || arguments.contains { $0.offset != nil }
  }

  /// The arguments written by the caller: without the block, or without `self` and `_cmd`.
  public var explicitArguments: ArraySlice<Argument> {
    switch kind {
    case .block: arguments.dropFirst(1)
    case .method: arguments.dropFirst(2)
    case .types: arguments[...]
    }
  }

  /// The same signature with every offset and the frame length removed.
  ///
  ///     try SignatureEncoding(parsing: "i20@?0i8r*12").strippingOffsets()  // i@?ir*
  ///
  /// Unencodable arguments cannot be told apart without offsets, so they are kept only as long
  /// as offsets exist; stripping drops them.
  public func strippingOffsets() -> SignatureEncoding {
    SignatureEncoding(
      returnType: returnType, frameLength: nil,
      arguments: arguments.compactMap {
        $0.type == .unencodable ? nil : Argument(type: $0.type, offset: nil)
      })
  }
}

extension SignatureEncoding {
  /// One argument: a type and its offset, if written.
  public struct Argument: Hashable, Sendable {
    /// The argument's type; `.unencodable` when clang wrote an empty encoding.
    public var type: TypeEncoding
    /// The offset written after the type.
    public var offset: Offset?

    /// Creates an argument.
    public init(type: TypeEncoding, offset: Offset? = nil) {
      self.type = type
      self.offset = offset
    }
  }

  /// An offset as written in a signature: a signed number, optionally with GCC's `+` marker.
  ///
  ///     Offset(8)                     // "8"
  ///     Offset(8, isRegister: true)   // "+8"
  ///     Offset(-4)                    // "-4"
  public struct Offset: Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The value in bytes; negative for GCC-era negative offsets.
    public var value: Int
    /// Whether the offset is written with a leading `+` (GCC: passed in a register).
    public var isRegister: Bool

    /// Creates an offset.
    public init(_ value: Int, isRegister: Bool = false) {
      self.value = value
      self.isRegister = isRegister
    }

    /// Creates an offset from a literal.
    public init(integerLiteral value: Int) { self.init(value) }

    /// The offset as written: `8`, `+8` or `-8`.
    public var description: String { isRegister ? "+\(value)" : String(value) }
  }
}

extension SignatureEncoding: CustomStringConvertible, Codable {
  /// The signature as written, byte for byte.
  public var description: String {
    var output = ""
    output.reserveCapacity(16)
    returnType.write(to: &output)
    if let frameLength { output += frameLength.description }
    for argument in arguments {
      argument.type.write(to: &output)
      if let offset = argument.offset { output += offset.description }
    }
    return output
  }

  /// Decodes from the signature string.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    self = try SignatureEncoding(parsing: try container.decode(String.self))
  }

  /// Encodes as the signature string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}
