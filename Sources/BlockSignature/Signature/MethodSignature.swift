/// A signature with its sizes, alignments and offsets: the role of Foundation's
/// `NSMethodSignature`, for blocks, methods and plain functions, on any data model.
///
///     let signature = try MethodSignature(parsing: "i20@?0i8r*12")
///     signature.isBlock                      // true
///     signature.numberOfArguments            // 3 (the block itself included)
///     signature.argumentType(at: 2)          // r*
///     signature.arguments[2].offset          // 12
///     signature.methodReturnLength           // 4
///     signature.frameLength                  // 20
///     try signature.converted(to: .method)   // i28@0:8i16r*20
///
/// Sizes and offsets come from the layout engine for ``model`` (see ``SignatureLayout``), so
/// they are clang's, whether or not the text carried offsets; ``Argument/writtenOffset`` keeps
/// what the text said. The corresponding clang ABI field is `Block_descriptor_3.signature`;
/// clang writes method strings in `ASTContext::getObjCEncodingForMethodDecl`.
public struct MethodSignature: Hashable, Sendable, CustomStringConvertible {
  /// The signature as parsed (or built), offsets as written.
  public let encoding: SignatureEncoding
  /// The data model sizes and offsets are computed for.
  public let model: DataModel
  /// The full layout: slots, clang's offsets and any disagreement with the written ones.
  public let layout: SignatureLayout

  /// One argument, with what `NSMethodSignature`'s `getArgumentTypeAtIndex:` and
  /// `-[NSMethodSignature _argInfo:]` report.
  public struct Argument: Hashable, Sendable {
    /// The type, qualifiers, class names and nested signatures included.
    public var type: TypeEncoding
    /// `sizeof` of the type (0 when the encoding has no size).
    public var size: Int
    /// `_Alignof` of the type.
    public var alignment: Int
    /// The bytes clang reserves for it in the frame (integers are rounded up to `int`,
    /// arrays count as a pointer).
    public var slotSize: Int
    /// The offset clang writes for it.
    public var offset: Int
    /// The offset written in the text, if any.
    public var writtenOffset: Int?
  }

  /// Every argument, the hidden ones (the block, or `self` and `_cmd`) included.
  public let arguments: [Argument]

  /// Wraps a parsed signature and lays it out for `model`.
  ///
  ///     let encoding = try SignatureEncoding(parsing: "v24@0:8@16")
  ///     try MethodSignature(encoding).numberOfArguments  // 3
  ///
  /// - Throws: ``SignatureError`` when a size overflows.
  public init(_ encoding: SignatureEncoding, model: DataModel? = .host) throws(SignatureError) {
    let model = try DataModel.required(model, for: encoding.description)
    let layout: SignatureLayout
    do {
      layout = try encoding.layout(for: model)
    } catch {
      throw SignatureError(error, signature: encoding.description)
    }
    self.encoding = encoding
    self.model = model
    self.layout = layout
    var arguments: [Argument] = []
    arguments.reserveCapacity(encoding.arguments.count)
    for (argument, argumentLayout) in zip(encoding.arguments, layout.arguments) {
      arguments.append(
        Argument(
          type: argument.type, size: argumentLayout.layout.size, alignment: argumentLayout.layout.alignment,
          slotSize: argumentLayout.slotSize, offset: argumentLayout.offset,
          writtenOffset: argument.offset?.value))
    }
    self.arguments = arguments
  }

  /// Parses and lays out a signature, like `+[NSMethodSignature signatureWithObjCTypes:]`.
  ///
  ///     try MethodSignature(parsing: "v16@?0@8").numberOfArguments  // 2
  ///
  /// - Throws: ``SignatureError``; malformed text gives ``SignatureError/Kind/malformedEncoding``
  ///   with the parser's byte offset in ``SignatureError/encodingError``.
  public init(
    parsing text: String, model: DataModel? = .host, options: ParseOptions = ParseOptions()
  ) throws(SignatureError) {
    let encoding: SignatureEncoding
    do {
      encoding = try SignatureEncoding(parsing: text, options: options)
    } catch {
      throw SignatureError(error)
    }
    try self.init(encoding, model: model)
  }

  /// Builds a signature from a return type and the explicit argument types, adding the hidden
  /// arguments of `form` and the offsets clang would write.
  ///
  ///     let types = [try TypeEncoding(parsing: "i"), try TypeEncoding(parsing: "r*")]
  ///     try MethodSignature(returnType: .primitive(.int), argumentTypes: types, form: .block)
  ///     // i20@?0i8r*12
  ///
  /// - Parameters:
  ///   - returnType: The type the block, method or function returns.
  ///   - argumentTypes: The explicit arguments, without the hidden ones `form` adds.
  ///   - form: ``SignatureEncoding/Kind/block`` adds `@?`, ``SignatureEncoding/Kind/method``
  ///     adds `@:`, ``SignatureEncoding/Kind/types`` adds nothing (a C function, offsets from 0).
  ///   - model: The target whose sizes and alignments give the offsets: this machine's
  ///     (``DataModel/host``) unless named.
  /// - Throws: ``SignatureError`` when a size overflows.
  public init(
    returnType: TypeEncoding, argumentTypes: [TypeEncoding], form: SignatureEncoding.Kind,
    model: DataModel? = .host
  ) throws(SignatureError) {
    let model = try DataModel.required(model, for: returnType.description)
    var hidden: [SignatureEncoding.Argument] = []
    switch form {
    case .block: hidden = [.init(type: .block(signature: nil))]
    case .method: hidden = [.init(type: .object(className: nil)), .init(type: .primitive(.selector))]
    case .types: break
    }
    let plain = SignatureEncoding(
      returnType: returnType, arguments: hidden + argumentTypes.map { .init(type: $0) })
    let synthesized: SignatureEncoding
    do {
      synthesized = try plain.synthesizingOffsets(for: model)
    } catch {
      throw SignatureError(error, signature: plain.description)
    }
    try self.init(synthesized, model: model)
  }

  /// The number of arguments, the hidden ones included (`NSMethodSignature.numberOfArguments`).
  public var numberOfArguments: Int { arguments.count }

  /// The type of argument `index`, or `nil` when there is no such argument
  /// (`getArgumentTypeAtIndex:`).
  ///
  ///     try MethodSignature(parsing: "v24@0:8@16").argumentType(at: 1)  // :
  public func argumentType(at index: Int) -> TypeEncoding? {
    arguments.indices.contains(index) ? arguments[index].type : nil
  }

  /// The return type (`methodReturnType`).
  public var methodReturnType: TypeEncoding { encoding.returnType }

  /// `sizeof` of the return type; 0 for `void` (`methodReturnLength`).
  public var methodReturnLength: Int { layout.returnLayout.size }

  /// The frame length clang writes: the sum of all argument slots (`frameLength`).
  public var frameLength: Int { layout.frameLength }

  /// Whether the return type carries the `oneway` qualifier `V` (`isOneway`).
  ///
  ///     try MethodSignature(parsing: "Vv16@0:8").isOneway  // true
  public var isOneway: Bool {
    var type = encoding.returnType
    while case .qualified(let qualifier, let inner) = type {
      if qualifier == .oneway { return true }
      type = inner
    }
    return false
  }

  /// Whether this is a block signature (argument 0 is `@?`).
  public var isBlock: Bool { encoding.kind == .block }

  /// The form: block, method or plain types.
  public var kind: SignatureEncoding.Kind { encoding.kind }

  /// Whether the written offsets (if any) agree with clang's for ``model``.
  public var offsetsMatchClang: Bool { layout.offsetsMatch }

  /// The same signature in another form, with clang's offsets (see
  /// ``SignatureEncoding/converted(from:to:model:)``).
  ///
  ///     try MethodSignature(parsing: "v16@?0@8").converted(to: .method).description  // v24@0:8@16
  ///
  /// - Throws: ``SignatureError`` when the signature lacks the hidden arguments of its form.
  public func converted(
    from source: SignatureEncoding.Kind? = nil, to target: SignatureEncoding.Kind
  ) throws(SignatureError) -> MethodSignature {
    try MethodSignature(encoding.converted(from: source, to: target, model: model), model: model)
  }

  /// The encoding as written.
  public var description: String { encoding.description }
}
