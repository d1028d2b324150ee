extension SignatureFrame {
  /// Scans one signature after another for one target, reusing the storage of the arguments:
  /// it keeps one buffer per argument count (made the first time a frame has that many
  /// arguments, at most 17), so once a frame is no longer held, the next signature the single
  /// pass takes with as many arguments costs no allocation.
  ///
  /// Use it where many signatures go through in a row — a bridge calling through block
  /// signatures, a scan over the blocks of a binary. The frames are ordinary values: keeping
  /// one is safe, and only makes the next scan with as many arguments allocate a fresh buffer.
  ///
  ///     var reader = SignatureFrame.Reader(model: .x86_64SysV)
  ///     var total = 0
  ///     for signature in ["v8@?0", "i20@?0i8r*12"] {
  ///       total += try reader.frame(parsing: signature).frameLength
  ///     }
  ///     total  // 28
  public struct Reader: Sendable {
    /// The target whose sizes and alignments apply.
    public let model: DataModel
    /// Limits such as the maximum nesting depth.
    public let options: ParseOptions
    private let rules: LayoutRules
    /// One array per argument count (the single pass holds at most 16): a buffer is overwritten
    /// in place, with no count to change.
    private var storage = [[Argument]](repeating: [], count: SignatureFrame.fastArgumentCapacity + 1)

    /// Creates a reader for `model`.
    public init(model: DataModel = .x86_64SysV, options: ParseOptions = ParseOptions()) {
      self.model = model
      self.options = options
      rules = LayoutRules(model)
    }

    /// Scans a signature given as UTF-8 bytes; the result and the errors are those of
    /// ``SignatureFrame/init(parsingBytes:for:options:)``.
    ///
    /// - Complexity: O(*n*) in the number of bytes; no allocation when the single pass takes
    ///   the signature and the reader's buffer for its argument count is made and not held by
    ///   an earlier frame.
    public mutating func frame(parsingBytes bytes: UnsafeBufferPointer<UInt8>) throws(SignatureError) -> SignatureFrame
    {
      switch SignatureFrame.scanFast(bytes, rules: rules, maximumDepth: options.maximumNestingDepth, reusing: &storage)
      {
      case .frame(let frame): return frame
      case .failed(let error): throw SignatureError(error)
      // Straight to the tree, not through the fast path again.
      case .handedOver: return try SignatureFrame.scanGeneral(bytes, model: model, options: options)
      }
    }

    /// Scans a signature given as a string; see ``frame(parsingBytes:)``.
    public mutating func frame(parsing input: String) throws(SignatureError) -> SignatureFrame {
      try withContiguousUTF8(input) { bytes throws(SignatureError) in try frame(parsingBytes: bytes) }
    }
  }
}
