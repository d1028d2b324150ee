import BlockSignature
import BlockSignatureRuntime
import CBlockABI
import CFFI

/// A live block made callable with arguments that arrive at run time, through its signature
/// (BlocksKit's `A2BlockInvocation`): the libffi call interface is prepared once, and every
/// call after that is thread-safe.
///
///     let block: @convention(block) (Int32, Double) -> Double = { Double($0) * $1 }
///     let invocation = try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self))
///     try invocation.invoke([.signed(3), .double(0.5)])  // .double(1.5)
///
/// With no declared signature the block's own is used (`BLOCK_HAS_SIGNATURE` required). A
/// declared one (block, method or function form) is checked against the block's own with
/// `CompatibilityChecker` at `level`, and the call then follows the declaration.
///
/// Two entry points: ``invoke(_:)`` converts ``CValue``s, checked against each argument's type;
/// ``invoke(result:arguments:)`` takes pointers to the argument bytes and allocates nothing.
/// Types the encoding does not decide (vectors, NeXT bitfields, unexpanded structures) are
/// refused when the invocation is made, never guessed. A block that crashes when called is the
/// block's fault: nothing here can catch it.
public final class BlockInvocation: @unchecked Sendable {
  /// The signature calls follow, in block form.
  public var signature: MethodSignature { prepared.signature }
  /// The block's own signature, when it carries one.
  public var blockSignature: MethodSignature? { prepared.own }
  /// The preparation, shared by the invocations of one signature text.
  private let prepared: Prepared
  /// The block, copied (`_Block_copy`) for the invocation's lifetime: valid only while the
  /// `BlockInvocation` lives, which in an optimized build may end right after this property
  /// is read. Keep the invocation alive while the pointer is used:
  ///
  ///     let pointer = invocation.unsafeBlock
  ///     withExtendedLifetime(invocation) { register(pointer) }  // only while `invocation` is alive
  public let unsafeBlock: UnsafeRawPointer
  package let interface: CallInterface
  /// The text the invocation was prepared from (the block's signature, the declared one, the
  /// level): equal keys, equal preparations. Nil for a block without a signature.
  package let preparationKey: PreparationKey?
  /// The block's invoke function, which libffi calls.
  package let invokeFunction: @convention(c) () -> Void

  /// Makes `block` callable. `declaredSignature` (any form) is the caller's view of it; when
  /// given it must fit the block's own at `level`.
  ///
  /// - Throws: ``InvocationError``: not a block, no signature, an incompatible declaration
  ///   (with the checker's diagnostics), a type that cannot be called.
  public init(
    block: UnsafeRawPointer, declaredSignature: String? = nil, level: CompatibilityLevel = .abi
  ) throws(InvocationError) {
    guard let model = DataModel.host else {
      throw InvocationError(kind: .preparationFailed, message: "no data model describes this machine")
    }
    let info: BlockInfo
    do {
      info = try BlockInfo(inspectingUnnamed: block)
    } catch {
      throw InvocationError(kind: .notABlock, message: error.description)
    }
    let prepared: Prepared
    // Blocks of one signature text, declared alike, share their preparation.
    preparationKey = info.signatureBytes.map {
      PreparationKey(signature: String(decoding: $0, as: UTF8.self), declared: declaredSignature, level: level)
    }
    if let key = preparationKey {
      prepared = try Self.cache.value(for: key) { () throws(InvocationError) in
        try Self.prepare(info, declared: declaredSignature, level: level, model: model)
      }
    } else {
      prepared = try Self.prepare(info, declared: declaredSignature, level: level, model: model)
    }
    (self.prepared, interface) = (prepared, prepared.interface)
    guard let invokeAddress = UnsafeRawPointer(bitPattern: info.invokeAddress) else {
      throw InvocationError(kind: .notABlock, message: "the block's invoke pointer is NULL")
    }
    invokeFunction = unsafeBitCast(invokeAddress, to: (@convention(c) () -> Void).self)
    guard let copy = _Block_copy(block) else {
      throw InvocationError(kind: .notABlock, message: "_Block_copy returned NULL")
    }
    self.unsafeBlock = UnsafeRawPointer(copy)
  }

  deinit {
    _Block_release(unsafeBlock)
  }

  /// What blocks of one signature text share: the signature calls follow, the block's own,
  /// and the prepared interface. A class, so that a use takes a reference, not a copy of each
  /// signature.
  final class Prepared {
    let signature: MethodSignature
    let own: MethodSignature?
    let interface: CallInterface

    init(signature: MethodSignature, own: MethodSignature?, interface: CallInterface) {
      self.signature = signature
      self.own = own
      self.interface = interface
    }
  }

  /// What a preparation is made from: the signature text, the declared text and the level.
  package struct PreparationKey: Hashable, Sendable {
    var signature: String
    var declared: String?
    var level: CompatibilityLevel
  }

  private static let cache = PreparationCache<PreparationKey, Prepared>(limit: 64)

  private static func prepare(
    _ info: BlockInfo, declared: String?, level: CompatibilityLevel, model: DataModel
  ) throws(InvocationError) -> Prepared {
    let own: MethodSignature?
    do {
      own = info.signatureBytes == nil ? nil : try MethodSignature(block: info, model: model)
    } catch {
      throw InvocationError(kind: .invalidSignature, message: "the block's signature: \(error)")
    }
    return try prepare(
      own: own, declared: declared, level: level, model: model, flagSet: info.flags.contains(.hasSignature))
  }

  private static func prepare(
    own: MethodSignature?, declared: String?, level: CompatibilityLevel, model: DataModel, flagSet: Bool
  ) throws(InvocationError) -> Prepared {
    let signature = try resolve(own: own, declared: declared, level: level, model: model, flagSet: flagSet)
    return Prepared(signature: signature, own: own, interface: try CallInterface(signature: signature, model: model))
  }

  /// Makes a block made here callable: its signature and invoke are known, so nothing is read
  /// from its memory (no system call).
  package init(
    made: DynamicBlock, declaredSignature: String? = nil, level: CompatibilityLevel = .abi
  ) throws(InvocationError) {
    let key = PreparationKey(signature: made.signatureText, declared: declaredSignature, level: level)
    let prepared = try Self.cache.value(for: key) { () throws(InvocationError) in
      let own = made.signature
      return try Self.prepare(own: own, declared: declaredSignature, level: level, model: own.model, flagSet: true)
    }
    (self.prepared, interface, preparationKey) = (prepared, prepared.interface, key)
    let invoke = made.withBlock { block in MadeBlockCaptures.of(block).pointee.prototype.invoke }
    invokeFunction = unsafeBitCast(invoke, to: (@convention(c) () -> Void).self)
    guard let copy = made.withBlock({ _Block_copy($0) }) else {
      throw InvocationError(kind: .notABlock, message: "_Block_copy returned NULL")
    }
    unsafeBlock = UnsafeRawPointer(copy)
  }

  /// The number of arguments a call takes: the block's parameters, the block itself not counted.
  public var argumentCount: Int { signature.numberOfArguments - 1 }

  /// The bytes the result buffer of ``invoke(result:arguments:)`` must have (16-byte aligned):
  /// libffi writes a whole machine word for integers narrower than one.
  public var resultBufferSize: Int { interface.resultBufferSize }

  /// The signature calls follow: the declared one checked against the block's own, or the own.
  /// `flagSet` says whether the block has `BLOCK_HAS_SIGNATURE`, to say why a missing own
  /// signature is missing.
  private static func resolve(
    own: MethodSignature?, declared: String?, level: CompatibilityLevel, model: DataModel, flagSet: Bool
  ) throws(InvocationError) -> MethodSignature {
    guard let declared else {
      guard let own else {
        throw InvocationError(
          kind: .missingSignature,
          message: flagSet
            ? "the block has no signature (BLOCK_HAS_SIGNATURE is set, but the signature pointer is NULL); declare one"
            : "the block has no signature (BLOCK_HAS_SIGNATURE is clear); declare one")
      }
      return own
    }
    let parsed: MethodSignature
    do {
      parsed = try MethodSignature(parsing: declared, model: model).converted(to: .block)
    } catch {
      throw InvocationError(kind: .invalidSignature, message: "the declared signature: \(error)")
    }
    guard let own else { return parsed }
    try requireFit(own, to: parsed, named: "the declared \(parsed)", level: level)
    return parsed
  }

  /// Throws ``InvocationError/Kind/incompatibleSignature``, with the checker's diagnostics,
  /// unless the block's signature `own` fits `expected` at `level`.
  static func requireFit(
    _ own: MethodSignature, to expected: MethodSignature, named name: String, level: CompatibilityLevel
  ) throws(InvocationError) {
    guard
      let misfit = CompatibilityChecker.misfit(
        of: own.encoding, to: expected.encoding, level: level, model: own.model)
    else { return }
    throw InvocationError(
      kind: .incompatibleSignature,
      message: "the block's signature \(own) does not fit \(name) at level \(level): \(misfit.firstError)",
      diagnostics: misfit.diagnostics)
  }
}
