// Parsing signatures: types and offset runs, with empty (unencodable) parameters recovered
// from offset runs such as the `08` in `v24@?08`.

extension SignatureEncoding {
  /// Parses a block signature, a method signature or a list of types, with or without offsets.
  ///
  ///     let block = try SignatureEncoding(parsing: "v24@?08")
  ///     block.arguments[1].type  // .unencodable (a vector parameter), at offset 8
  ///
  /// - Throws: ``EncodingError`` with the kind and byte offset of the problem.
  /// - Complexity: O(*n*) in the length of `input`.
  public init(parsing input: String, options: ParseOptions = ParseOptions()) throws(EncodingError) {
    self = try withContiguousUTF8(input) { bytes throws(EncodingError) in
      try SignatureEncoding(parsingBytes: bytes, options: options)
    }
  }

  /// Parses a signature from UTF-8 bytes, for example a C string read from a block descriptor.
  ///
  ///     let signature = try SignatureEncoding(parsingBytes: UnsafeBufferPointer(start: p, count: strlen(p)))
  ///
  /// - Throws: ``EncodingError``.
  public init(
    parsingBytes bytes: UnsafeBufferPointer<UInt8>, options: ParseOptions = ParseOptions()
  ) throws(EncodingError) {
    var parts: (returnType: TypeEncoding, frameLength: Offset?, arguments: [Argument]) = (.unencodable, nil, [])
    let failure = TreeBuilder.read(bytes, options: options) { reader, builder in
      // A visitor of its own for each try (a type can outgrow the first try's stacks).
      var visitor = TreeVisitor()
      guard
        reader.readSignatureHead(&visitor, sink: &builder) && reader.readSignatureArguments(&visitor, sink: &builder)
      else { return false }
      parts = (visitor.returnType, visitor.frameLength, visitor.arguments)
      return true
    }
    if let failure { throw failure }
    returnType = parts.returnType
    frameLength = parts.frameLength
    arguments = parts.arguments
  }

  /// The parts of a signature, as the tree keeps them.
  private struct TreeVisitor: SignatureVisitor {
    var returnType = TypeEncoding.unencodable
    var frameLength: Offset? = nil
    var arguments: [Argument] = []
    /// The last offset written so far.
    var previous: Int? = nil
    var pieces = OffsetPieces()

    @inline(__always) func willRead(into sink: inout TreeBuilder) {}

    @inline(__always)
    mutating func returnType(_ sink: inout TreeBuilder, end: Int) -> Bool {
      returnType = sink.take()
      return true
    }

    @inline(__always)
    mutating func frameLength(_ offset: WrittenOffset, reader: inout EncodingReader) -> Bool {
      guard let frame = reader.singleOffset(offset) else { return false }
      frameLength = frame
      arguments.reserveCapacity(SignatureEncoding.expectedArgumentCount(byteCount: reader.count))
      return true
    }

    @_transparent
    mutating func argument(
      _ sink: inout TreeBuilder, typeStart: Int, offset: WrittenOffset, reader: inout EncodingReader
    ) -> SignatureStep {
      arguments.append(Argument(type: sink.take()))
      let last = arguments.count - 1
      guard
        let run = reader.offsetRun(
          offset, previous: previous, frame: frameLength?.value, pieces: &pieces,
          firstHasZeroSize: { arguments[last].type.hasKnownZeroSize })
      else { return .fail }
      switch run {
      case .single(let offset):
        arguments[last].offset = offset
      case .split:
        arguments[last].offset = Offset(pieces[0])
        for index in 1..<pieces.count { arguments.append(Argument(type: .unencodable, offset: Offset(pieces[index]))) }
      }
      previous = run.last ?? previous
      return .next
    }
  }

  @inline(__always)
  static func expectedArgumentCount(byteCount: Int) -> Int { min(byteCount / 3 + 2, 16) }
}
