import BlockSignature

extension CValue {
  /// Reads a value of `type` from its bytes at `address`, laid out as clang lays it out on
  /// `model` (the host's by default): the typed view of a raw argument or result.
  ///
  ///     var pair = (Int32(3), Float(0.5))
  ///     try withUnsafeBytes(of: &pair) {
  ///       try CValue(loading: TypeEncoding(parsing: "{?=if}"), from: $0.baseAddress!)
  ///     }  // .aggregate([.signed(3), .float(0.5)])
  ///
  /// A union reads as its first member; a `char *` that is not NULL is read as a C string.
  ///
  /// - Throws: ``InvocationError`` with ``InvocationError/Kind/unsupportedType`` for a type
  ///   whose layout the encoding does not decide, or larger than a call passes (16 MiB).
  public init(loading type: TypeEncoding, from address: UnsafeRawPointer, model: DataModel? = .host)
    throws(InvocationError)
  {
    guard let model else {
      throw InvocationError(kind: .unsupportedType, reason: "no data model describes this machine")
    }
    do {
      let shape = try ValueShape(type, model: model)
      try CallInterface.checkSize(of: shape)
      self = shape.load(from: address)
    } catch {
      throw InvocationError(kind: .unsupportedType, path: error.path, reason: error.reason)
    }
  }
}
