import BlockSignature
import BlockSignatureRuntime
import CBlockABI

/// A real block made at run time from a signature and a Swift handler (MABlockClosure's job):
/// C code can call it, `_Block_copy` it, keep it and release it like any block clang made.
///
///     let add = try DynamicBlock(signature: "i16@?0i8i12") { arguments in
///       guard case .signed(let a) = arguments[0], case .signed(let b) = arguments[1] else { return .signed(0) }
///       return .signed(a + b)
///     }
///     typealias Add = @convention(block) (Int32, Int32) -> Int32
///     add.withBlock { unsafeBitCast($0, to: Add.self)(2, 3) }  // 5
///
/// The block is a heap block with the signature in its descriptor (`BLOCK_HAS_SIGNATURE`),
/// copy and dispose helpers that keep the handler alive, and `BLOCK_USE_STRET` where clang sets
/// it. Its invoke is shared by every block made for the same signature text (an entry of its
/// own for scalars on x86-64, else a libffi closure: ``usesLibffiClosure``); the handler is
/// found through the block pointer each call receives.
///
/// Ownership: the `DynamicBlock` holds one reference to the block; every copy C makes holds
/// another. The handler is released once, when the last of them is released — which may be
/// after the `DynamicBlock` is gone. See the article "Making blocks at run time".
///
/// Reach the block through ``withBlock(_:)`` (valid while the closure runs) or
/// ``retainedBlock()`` (a reference C owns): ``unsafeBlock`` is valid only while the
/// `DynamicBlock` lives, and an optimized build may release the object right after the
/// property is read. From Swift, cast the pointer to the block type with `unsafeBitCast` where
/// the type is concrete: Swift 6.3 on Linux crashes on a block-typed value inside unspecialized
/// generic code.
public final class DynamicBlock: @unchecked Sendable {
  /// A handler given typed values, one per parameter (the block itself left out), that returns
  /// the block's result (``CValue/void`` for a `void` block). A union reads as its first
  /// member; a raw handler reads it as another with ``Call/argument(_:unionMember:)``.
  ///
  /// Handlers are `@Sendable`: C may call the block from any thread, several at once. State a
  /// handler changes lives in a `Mutex` (Synchronization) or an atomic, not in a captured `var`:
  ///
  ///     let calls = Mutex(0)
  ///     let tick = try DynamicBlock(signature: "v@?") { _ in
  ///       calls.withLock { $0 += 1 }
  ///       return .void
  ///     }
  public typealias Handler = @Sendable ([CValue]) throws -> CValue
  /// A handler given the raw view of a call: argument addresses and the result buffer.
  public typealias RawHandler = @Sendable (Call) throws -> Void

  enum Body: Sendable {
    case typed(Handler)
    case raw(RawHandler)
  }

  /// The block's signature, in block form.
  public let signature: MethodSignature
  /// The signature text in the block's descriptor.
  public let signatureText: String
  /// The block: a heap block the `DynamicBlock` holds one reference to, valid only while the
  /// `DynamicBlock` lives. Swift may release the object right after this property is read;
  /// prefer ``withBlock(_:)`` or ``retainedBlock()``.
  ///
  ///     let pointer = add.unsafeBlock
  ///     withExtendedLifetime(add) { register(pointer) }  // only while `add` is alive
  public let unsafeBlock: UnsafeRawPointer
  /// Whether the block's invoke is a libffi closure. On x86-64 System V a block whose
  /// parameters and result are scalars (integers, `bool`, floating point but `long double`,
  /// pointers) has an entry of its own instead, which saves the argument registers and hands
  /// the handler their addresses without libffi classifying them on each call.
  ///
  ///     try DynamicBlock(signature: "d@?id") { _ in .double(0) }.usesLibffiClosure  // false on x86-64
  public let usesLibffiClosure: Bool

  /// Makes a block of `signature` (block, method or function form) whose calls run `handler`.
  ///
  /// A block-form signature with offsets goes into the descriptor as written; any other is
  /// converted to block form with clang's offsets.
  ///
  /// - Throws: ``InvocationError``: a signature that does not parse, a type that cannot be
  ///   called (the same refusals as ``BlockInvocation``), a fallback value of the wrong type.
  public convenience init(
    signature: String, failure: FailurePolicy = .trap, handler: @escaping Handler
  ) throws(InvocationError) {
    let (parsed, text) = try Self.blockForm(of: signature)
    try self.init(signature: parsed, text: text, body: .typed(handler), failure: failure)
  }

  /// Makes a block of `signature` whose calls run `handler` on the call's raw view: no value
  /// is converted unless the handler asks (``Call/argument(_:)``, ``Call/setResult(_:)``).
  ///
  ///     let twice = try DynamicBlock(signature: "d@?d", rawHandler: { call in
  ///       call.result.storeBytes(of: call.argumentAddress(0).load(as: Double.self) * 2, as: Double.self)
  ///     })
  ///
  /// A trailing closure that fits both forms (one that only throws) makes a typed handler; a
  /// closure that reads a ``Call`` makes a raw one, as does the `rawHandler:` label.
  @_disfavoredOverload
  public convenience init(
    signature: String, failure: FailurePolicy = .trap, rawHandler: @escaping RawHandler
  ) throws(InvocationError) {
    let (parsed, text) = try Self.blockForm(of: signature)
    try self.init(signature: parsed, text: text, body: .raw(rawHandler), failure: failure)
  }

  /// Makes a block of a parsed `signature` (block, method or function form, laid out for this
  /// machine) whose calls run `handler`. A block-form signature keeps its offsets; any other
  /// is converted to block form with clang's offsets.
  ///
  ///     let signature = try MethodSignature(parsing: "i@?ii", model: DataModel.host!)
  ///     let add = try DynamicBlock(signature: signature) { arguments in
  ///       guard case .signed(let a) = arguments[0], case .signed(let b) = arguments[1] else { return .signed(0) }
  ///       return .signed(a + b)
  ///     }
  ///
  /// - Throws: ``InvocationError``: a signature laid out for another machine, a type that
  ///   cannot be called, a fallback value of the wrong type.
  public convenience init(
    signature: MethodSignature, failure: FailurePolicy = .trap, handler: @escaping Handler
  ) throws(InvocationError) {
    let (parsed, text) = try Self.blockForm(of: signature)
    try self.init(signature: parsed, text: text, body: .typed(handler), failure: failure)
  }

  /// Makes a block of a parsed `signature` (block, method or function form, laid out for this
  /// machine) whose calls run `rawHandler` on the call's raw view.
  ///
  ///     let twice = try DynamicBlock(signature: try MethodSignature(parsing: "d@?d", model: DataModel.host!)) { call in
  ///       call.result.storeBytes(of: call.argumentAddress(0).load(as: Double.self) * 2, as: Double.self)
  ///     }
  ///
  /// - Throws: ``InvocationError``, as the typed form does.
  @_disfavoredOverload
  public convenience init(
    signature: MethodSignature, failure: FailurePolicy = .trap, rawHandler: @escaping RawHandler
  ) throws(InvocationError) {
    let (parsed, text) = try Self.blockForm(of: signature)
    try self.init(signature: parsed, text: text, body: .raw(rawHandler), failure: failure)
  }

  /// Makes a block of a parsed `signature` (any form) whose calls run `body`, each call given
  /// `context` (a delegate's).
  convenience init(
    signature: MethodSignature, body: Body, failure: FailurePolicy, context: UnsafeMutableRawPointer?
  ) throws(InvocationError) {
    let (parsed, text) = try Self.blockForm(of: signature)
    try self.init(signature: parsed, text: text, body: body, failure: failure, context: context)
  }

  private init(
    signature: MethodSignature, text: String, body: Body, failure: FailurePolicy,
    context: UnsafeMutableRawPointer? = nil
  ) throws(InvocationError) {
    // A stack literal, as clang builds one, moved to the heap by the runtime, whose call of the
    // copy helper gives the heap block its own references to the captures.
    let copy = try Self.withLiteral(signature: signature, text: text, body: body, failure: failure, context: context) {
      literal throws(InvocationError) in
      guard let copy = _Block_copy(literal) else {
        throw InvocationError(kind: .preparationFailed, message: "_Block_copy returned NULL")
      }
      return copy
    }
    self.signature = signature
    self.signatureText = text
    self.unsafeBlock = UnsafeRawPointer(copy)
    usesLibffiClosure = MadeBlockCaptures.of(unsafeBlock).pointee.prototype.invoke != cba_made_block_entry_address()
  }

  /// Runs `use` with a stack literal of a block made for `signature`: the literal holds its
  /// captures until `use` returns.
  static func withLiteral<Result>(
    signature: MethodSignature, text: String, body: Body, failure: FailurePolicy,
    context: UnsafeMutableRawPointer? = nil, _ use: (UnsafeRawPointer) throws(InvocationError) -> Result
  ) throws(InvocationError) -> Result {
    let prototype = try BlockPrototype.shared(for: signature, text: text)
    try failure.validate(for: prototype.interface)
    let captures = MadeBlockCaptures(prototype: prototype, body: body, failure: failure, context: context)
    return try withUnsafeTemporaryAllocation(
      byteCount: MadeBlockCaptures.literalSize, alignment: max(16, MemoryLayout<MadeBlockCaptures>.alignment)
    ) { literal throws(InvocationError) in
      let header = literal.baseAddress!.assumingMemoryBound(to: CBA_Block_layout.self)
      cba_made_block_initialize(
        header, cba_stack_block_isa(), prototype.flags.rawValue, prototype.invoke, prototype.descriptor)
      let inline = MadeBlockCaptures.of(UnsafeRawPointer(header))
      inline.initialize(to: captures)
      defer { inline.deinitialize(count: 1) }
      return try use(UnsafeRawPointer(header))
    }
  }

  deinit {
    _Block_release(unsafeBlock)
  }

  /// The number of signature texts whose prepared call (one libffi closure, call interface and
  /// descriptor, shared by every block made for the text) is kept for blocks still to be made:
  /// at most ``preparedSignatureLimit``.
  ///
  ///     _ = try DynamicBlock(signature: "v@?") { _ in .void }
  ///     DynamicBlock.preparedSignatureCount  // 1 or more
  public static var preparedSignatureCount: Int { BlockPrototype.count }

  /// The most signature texts whose prepared call is kept (64). Beyond it the least recently
  /// used is dropped; blocks made from it keep it until the last of them is released, and a
  /// block made later for that text prepares it again.
  ///
  ///     DynamicBlock.preparedSignatureCount <= DynamicBlock.preparedSignatureLimit  // true
  public static var preparedSignatureLimit: Int { BlockPrototype.limit }

  /// Block forms by the text they were read from: a block made again for a text parses
  /// nothing.
  private static let blockForms = PreparationCache<String, (MethodSignature, String)>(limit: 64)

  /// `signature` in block form with the text its descriptor will hold.
  static func blockForm(of signature: String) throws(InvocationError) -> (MethodSignature, String) {
    try blockForms.value(for: signature) { () throws(InvocationError) in try readBlockForm(of: signature) }
  }

  private static func readBlockForm(of signature: String) throws(InvocationError) -> (MethodSignature, String) {
    guard let model = DataModel.host else {
      throw InvocationError(kind: .preparationFailed, message: "no data model describes this machine")
    }
    let parsed: MethodSignature
    do {
      parsed = try MethodSignature(parsing: signature, model: model)
    } catch {
      throw InvocationError(kind: .invalidSignature, message: "the signature: \(error)")
    }
    let writtenInFull = parsed.isBlock && parsed.arguments.allSatisfy { $0.writtenOffset != nil }
    return writtenInFull ? (parsed, signature) : try blockForm(of: parsed)
  }

  /// `signature` converted to block form with clang's offsets, and its text.
  static func blockForm(of signature: MethodSignature) throws(InvocationError) -> (MethodSignature, String) {
    guard signature.model == DataModel.host else {
      throw InvocationError(
        kind: .preparationFailed, message: "the signature is laid out for \(signature.model), not this machine")
    }
    do {
      let converted = try signature.withClangOffsets(form: .block)
      return (converted, converted.description)
    } catch {
      throw InvocationError(kind: .invalidSignature, message: "the signature: \(error)")
    }
  }
}
