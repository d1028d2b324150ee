// Converting between the three forms of a signature: a block (`@?` first), an Objective-C
// method (`@` and `:` first) and a plain C function (no hidden arguments, offsets from 0).

extension SignatureEncoding {
  /// The number of hidden leading arguments of a form: 1 for a block (the block itself), 2 for a
  /// method (`self` and `_cmd`), 0 for a plain function.
  ///
  ///     SignatureEncoding.hiddenArgumentCount(of: .method)  // 2
  public static func hiddenArgumentCount(of form: Kind) -> Int {
    switch form {
    case .block: 1
    case .method: 2
    case .types: 0
    }
  }

  /// The signature rewritten in another form, with offsets exactly as clang would write them.
  ///
  /// Forms are the ``Kind`` values: ``Kind/block`` (`i20@?0i8r*12`), ``Kind/method``
  /// (`i28@0:8i16r*20`) and ``Kind/types``, read here as a plain C function whose offsets start
  /// at 0 (`i12i0r*4`). The hidden leading arguments are replaced, and every written offset and
  /// the frame length move by the difference in hidden bytes (one pointer per hidden argument).
  /// Types are kept as written: class names, nested block signatures, qualifiers, register
  /// markers and unencodable (empty) parameters. A signature without offsets gives one
  /// without offsets.
  ///
  ///     let block = try SignatureEncoding(parsing: "i20@?0i8r*12")
  ///     try block.converted(to: .method)   // i28@0:8i16r*20
  ///     try block.converted(to: .types)    // i12i0r*4
  ///     try SignatureEncoding(parsing: "v24@0:8@16").converted(to: .block)  // v16@?0@8
  ///
  /// - Parameters:
  ///   - source: the form the signature is in; by default its ``kind`` (a C function whose
  ///     first parameter is a block must say `.types` here).
  ///   - target: the form wanted.
  ///   - model: the data model whose pointer size the hidden arguments take: this machine's
  ///     (``DataModel/host``) unless named.
  /// - Throws: ``SignatureError`` with ``SignatureError/Kind/notConvertible`` when the
  ///   signature lacks the hidden arguments of `source`, or an offset overflows.
  /// - Complexity: O(*n*) in the number of arguments.
  public func converted(
    from source: Kind? = nil, to target: Kind, model: DataModel? = .host
  ) throws(SignatureError) -> SignatureEncoding {
    let model = try DataModel.required(model, for: description)
    let source = source ?? kind
    try checkHiddenArguments(of: source)
    if source == target { return self }
    let hiddenCount = Self.hiddenArgumentCount(of: source)
    let pointer = model.pointerSize
    let shift = (Self.hiddenArgumentCount(of: target) - hiddenCount) * pointer
    // Where the hidden arguments start: the first one's written offset, or 0 for a function.
    let base: Offset? =
      hiddenCount > 0 ? arguments[0].offset : (hasOffsets ? Offset(0) : nil)

    var result = SignatureEncoding(returnType: returnType, frameLength: nil, arguments: [])
    result.arguments.reserveCapacity(arguments.count - hiddenCount + Self.hiddenArgumentCount(of: target))
    switch target {
    case .block:
      result.arguments.append(Argument(type: .block(signature: nil), offset: base))
    case .method:
      result.arguments.append(Argument(type: .object(className: nil), offset: base))
      result.arguments.append(
        Argument(
          type: .primitive(.selector),
          offset: try base.map { offset throws(SignatureError) in
            try shifted(offset, by: pointer)
          }))
    case .types:
      break
    }
    result.frameLength = try frameLength.map { offset throws(SignatureError) in try shifted(offset, by: shift)
    }
    for argument in arguments.dropFirst(hiddenCount) {
      result.arguments.append(
        Argument(
          type: argument.type,
          offset: try argument.offset.map { offset throws(SignatureError) in try shifted(offset, by: shift) })
      )
    }
    return result
  }

  /// The method form of a block or function signature: `v16@?0@8` → `v24@0:8@16`.
  ///
  ///     try SignatureEncoding(parsing: "i20@?0i8r*12").methodEncoding()  // i28@0:8i16r*20
  ///
  /// - Throws: ``SignatureError``; see ``converted(from:to:model:)``.
  public func methodEncoding(for model: DataModel? = .host) throws(SignatureError) -> SignatureEncoding {
    try converted(to: .method, model: model)
  }

  /// The block form of a method or function signature: `v24@0:8@16` → `v16@?0@8`.
  ///
  ///     try SignatureEncoding(parsing: "i28@0:8i16r*20").blockEncoding()  // i20@?0i8r*12
  ///
  /// A ``Kind/types`` signature is read as a C function; one whose first parameter is a
  /// block is already a block signature and comes back unchanged: use
  /// ``converted(from:to:model:)`` with `from: .types` for it.
  /// - Throws: ``SignatureError``; see ``converted(from:to:model:)``.
  public func blockEncoding(for model: DataModel? = .host) throws(SignatureError) -> SignatureEncoding {
    try converted(to: .block, model: model)
  }

  /// The plain C function form (no hidden arguments, offsets from 0): `i20@?0i8r*12` → `i12i0r*4`.
  ///
  ///     try SignatureEncoding(parsing: "v24@0:8@16").functionEncoding()  // v8@0
  ///
  /// - Throws: ``SignatureError``; see ``converted(from:to:model:)``.
  public func functionEncoding(for model: DataModel = .x86_64SysV) throws(SignatureError) -> SignatureEncoding {
    try converted(to: .types, model: model)
  }

  /// Throws unless the signature starts with the hidden arguments of `form`.
  func checkHiddenArguments(of form: Kind) throws(SignatureError) {
    switch form {
    case .block:
      guard let first = arguments.first else {
        throw notConvertible("from block form: it has no arguments, so no block (@?) argument 0")
      }
      guard first.type.isBlock else {
        throw notConvertible("from block form: argument 0 is \(first.type), not a block (@?)")
      }
    case .method:
      guard arguments.count >= 2 else {
        throw notConvertible(
          "from method form: it has \(counted(arguments.count, "argument")); a method has at least 2 (self and _cmd)")
      }
      switch arguments[0].type.unqualified {
      case .object, .primitive(.class): break
      default: throw notConvertible("from method form: argument 0 is \(arguments[0].type), not an object (@)")
      }
      guard case .primitive(.selector) = arguments[1].type.unqualified else {
        throw notConvertible("from method form: argument 1 is \(arguments[1].type), not a selector (:)")
      }
    case .types:
      break
    }
  }

  private func notConvertible(_ message: String) -> SignatureError {
    SignatureError(kind: .notConvertible, signature: description, message: message)
  }

  private func shifted(_ offset: Offset, by shift: Int) throws(SignatureError) -> Offset {
    let (value, overflow) = offset.value.addingReportingOverflow(shift)
    if overflow {
      throw SignatureError(
        kind: .layoutOverflow, signature: description,
        message: "offset \(offset.value) overflows when moved by \(shift)")
    }
    return Offset(value, isRegister: offset.isRegister)
  }
}
