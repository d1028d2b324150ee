import BlockSignature

extension CValue {
  /// Writes the value at `address` as a value of `type`, laid out as clang lays it out on
  /// `model` (the host's by default): the inverse of ``init(loading:from:model:)``. The type's
  /// bytes are written in full, padding as zero; nothing is written when the value does not fit.
  ///
  ///     var pair = (Int32(0), Float(0))
  ///     try withUnsafeMutableBytes(of: &pair) {
  ///       try CValue.aggregate([.signed(3), .float(0.5)]).store(as: TypeEncoding(parsing: "{?=if}"), to: $0.baseAddress!)
  ///     }  // pair == (3, 0.5)
  ///
  /// Values are checked as a call checks its arguments: an integer must fit its type, a
  /// structure needs one value per member, a union names the member it writes. A `char *` takes
  /// an address or `.string(nil)`, not a string: no memory would outlive the store to hold the
  /// text. As in a call, an array type stands for a pointer to its first element.
  ///
  /// - Throws: ``InvocationError``: ``InvocationError/Kind/unsupportedType`` for a type whose
  ///   layout the encoding does not decide, ``InvocationError/Kind/typeMismatch`` or
  ///   ``InvocationError/Kind/outOfRange`` with the path of the part that does not fit.
  public func store(as type: TypeEncoding, to address: UnsafeMutableRawPointer, model: DataModel? = .host)
    throws(InvocationError)
  {
    let shape = try ValueShape.ofValue(type, model: model)
    // Written to a zeroed buffer first, so that a value that does not fit leaves `address` as
    // it was.
    let size = max(shape.size, 1)
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    defer { buffer.deallocate() }
    buffer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
    var strings = CStringArena()
    do throws(ValueError) {
      try shape.store(self, at: buffer, strings: &strings)
    } catch {
      throw InvocationError(kind: error.kind, path: error.path, message: error.message)
    }
    guard strings.isEmpty else {
      throw InvocationError(
        kind: .typeMismatch,
        message: "a string has no memory that outlives the store: write its address as .pointer, or .string(nil)")
    }
    address.copyMemory(from: buffer, byteCount: shape.size)
  }
}
