// Parsing a type into a tree: `EncodingReader` reads the bytes (every failure is an
// `EncodingError` with a byte offset; nesting is bounded by `ParseOptions.maximumNestingDepth`;
// numbers are overflow-checked) and `TreeBuilder` builds the nodes.

extension TypeEncoding {
  /// Parses exactly one type encoding; the whole input must be consumed.
  ///
  ///     let type = try TypeEncoding(parsing: "{CGPoint=dd}")
  ///
  /// - Parameters:
  ///   - input: The encoding, for example `r^{S=i[4c]}`.
  ///   - options: Limits such as the maximum nesting depth.
  /// - Throws: ``EncodingError`` naming the kind and the byte offset of the problem.
  /// - Complexity: O(*n*) in the length of `input`.
  public init(parsing input: String, options: ParseOptions = ParseOptions()) throws(EncodingError) {
    self = try withContiguousUTF8(input) { bytes throws(EncodingError) in
      try TypeEncoding(parsingBytes: bytes, options: options)
    }
  }

  /// Parses exactly one type encoding from UTF-8 bytes, for example a C string from a binary.
  ///
  ///     let type = try TypeEncoding(parsingBytes: buffer)
  ///
  /// - Throws: ``EncodingError``.
  public init(
    parsingBytes bytes: UnsafeBufferPointer<UInt8>, options: ParseOptions = ParseOptions()
  ) throws(EncodingError) {
    var type = TypeEncoding.unencodable
    let failure = TreeBuilder.read(bytes, options: options) { reader, builder in
      guard reader.readWholeType(into: &builder) else { return false }
      type = builder.take()
      return true
    }
    if let failure { throw failure }
    self = type
  }
}
