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
    self = try ValueShape.ofValue(type, model: model).load(from: address)
  }

  /// Reads a value of `type` from its bytes at `address`, each union inside it read as the
  /// member `unionMember` picks: the chooser gets the union's path inside the value, `[]` for
  /// the value itself and, for example, `["member 1"]` for a union that is member 1 of a
  /// structure (the path words of ``InvocationError/path``).
  ///
  ///     var number: Float = 1.5
  ///     try CValue(loading: TypeEncoding(parsing: "(?=if)"), from: &number) { _ in 1 }  // .union(member: 1, value: .float(1.5))
  ///
  /// - Throws: ``InvocationError``: ``InvocationError/Kind/unsupportedType`` as
  ///   ``init(loading:from:model:)`` throws it, ``InvocationError/Kind/outOfRange`` when the
  ///   chooser picks a member the union does not have.
  public init(
    loading type: TypeEncoding, from address: UnsafeRawPointer, model: DataModel? = .host,
    unionMember: (_ path: [String]) -> Int
  ) throws(InvocationError) {
    let shape = try ValueShape.ofValue(type, model: model)
    do throws(ValueError) {
      self = try withoutActuallyEscaping(unionMember) { chooser throws(ValueError) in
        try shape.load(from: address, path: [], unionMember: chooser)
      }
    } catch {
      throw InvocationError(kind: error.kind, path: error.path, message: error.message)
    }
  }
}
