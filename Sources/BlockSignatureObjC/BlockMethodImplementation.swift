import BlockSignature
import BlockSignatureFFI
import CFFI

/// A method implementation (`IMP`) that calls a block with `self` followed by the method's
/// arguments: `imp_implementationWithBlock` for GCC's runtime, which has none.
///
///     let shout: @convention(block) (UnsafeRawPointer, UnsafeRawPointer?) -> UnsafeRawPointer? = { _, text in … }
///     let method = try BlockMethodImplementation(
///       block: unsafeBitCast(shout, to: UnsafeRawPointer.self), types: "@24@0:8@16")
///     try ObjCClass(named: "NSString").addMethod("shout:", implementation: method)
///
/// The block (a clang block, a Swift `@convention(block)` closure or a `DynamicBlock`) must
/// fit the method's types at `level`: its signature is checked against the method's in block
/// form with `self` as the first parameter (`v24@0:8i16` asks for `v20@?0@8i16`). On x86-64
/// Linux a method whose arguments all sit in registers is a few instructions that shift `self`
/// and the block into place and call the block's invoke, as libobjc2's trampoline does
/// (``callsTheBlockDirectly``); other methods are a libffi closure. The implementation holds a
/// copy of the block and frees both when it is released, so it must outlive every class it is
/// installed in (``ObjCClass/addMethod(_:implementation:)`` and
/// ``ObjCRuntime/implementation(withBlock:types:level:failure:)`` keep it for you).
///
/// An Objective-C exception raised inside the block cannot unwind through Swift: it is caught
/// and handled by `failure`, as a `DynamicBlock`'s handler failure is (by default the process
/// stops with the exception's name and reason).
public final class BlockMethodImplementation: @unchecked Sendable {
  /// The method's types, in method form.
  public let methodSignature: MethodSignature
  /// The call through the block.
  public let invocation: BlockInvocation
  /// What a call does when the block raises.
  public let failure: DynamicBlock.FailurePolicy
  let interface: CallInterface
  /// The code the runtime calls: a register shift into the block's invoke where the arguments
  /// allow it, else a libffi closure that forwards each call through the invocation.
  private var entry: Entry!

  private enum Entry {
    case trampoline(BlockMethodTrampoline)
    case closure(FFIClosure)
  }

  /// Makes an implementation of a method of `types` (method form) that calls `block`.
  ///
  /// - Throws: ``ObjCError``: types that are not a method's, a block that does not fit them
  ///   (with the checker's diagnostics), a type that cannot be called, a fallback value that
  ///   does not fit the return type.
  public init(
    block: UnsafeRawPointer, types: String, level: CompatibilityLevel = .abi,
    failure: DynamicBlock.FailurePolicy = .trap
  ) throws(ObjCError) {
    let method = try ObjCTypes.methodSignature(types, what: "the method's types")
    methodSignature = method
    self.failure = failure
    let blockForm = try Self.blockForm(of: method, withSelf: true)
    do {
      invocation = try BlockInvocation(block: block, declaredSignature: blockForm.description, level: level)
      interface = try CallInterface(signature: method, model: method.model)
      try failure.check(against: interface)
    } catch {
      throw ObjCError(invocationError: error, what: "a block implementing \(types)")
    }
    let owner = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
    if let hiddenReturn = BlockMethodTrampoline.applies(method: method, blockForm: invocation.signature),
      let trampoline = BlockMethodTrampoline(
        block: invocation.unsafeBlock, invoke: unsafeBitCast(invocation.invokeFunction, to: UnsafeRawPointer.self),
        owner: owner, afterHiddenReturn: hiddenReturn)
    {
      entry = .trampoline(trampoline)
    } else {
      entry = .closure(try Self.closure(for: self))
    }
  }

  /// Makes an implementation that calls a made block.
  public convenience init(
    _ block: DynamicBlock, types: String, level: CompatibilityLevel = .abi, failure: DynamicBlock.FailurePolicy = .trap
  ) throws(ObjCError) {
    // The block stays alive until the implementation has its own copy.
    defer { withExtendedLifetime(block) {} }
    try self.init(block: block.unsafeBlock, types: types, level: level, failure: failure)
  }

  /// The `IMP` to install; valid while this object lives.
  public var implementation: UnsafeRawPointer {
    switch entry! {
    case .trampoline(let trampoline): trampoline.code
    case .closure(let closure): closure.code
    }
  }

  /// Whether calls go straight into the block: on x86-64 Linux, when every argument of the
  /// method sits in a register and the result comes back in registers or memory (not a
  /// `long double`), the implementation is a few instructions that move `self` into `_cmd`'s
  /// register and the block into `self`'s, then call the block's invoke from a frame that
  /// catches an Objective-C exception for the failure policy. Otherwise each call goes through
  /// a libffi closure and a second call into the block.
  ///
  ///     try BlockMethodImplementation(block: add, types: "i24@0:8i16i20").callsTheBlockDirectly  // true
  public var callsTheBlockDirectly: Bool {
    if case .trampoline = entry { return true }
    return false
  }

  /// The block (the implementation's copy).
  public var block: UnsafeRawPointer { invocation.unsafeBlock }

  /// `method`'s types as a block's: the return type, then `self` when `withSelf`, then the
  /// explicit arguments.
  static func blockForm(of method: MethodSignature, withSelf: Bool) throws(ObjCError) -> MethodSignature {
    let explicit = method.encoding.arguments.dropFirst(2).map(\.type)
    let parameters = (withSelf ? [method.encoding.arguments[0].type] : []) + explicit
    do {
      return try MethodSignature(
        returnType: method.encoding.returnType, argumentTypes: parameters, form: .block, model: method.model)
    } catch {
      throw ObjCError(kind: .invalidSignature, message: "\(method) in block form: \(error)")
    }
  }

  private static func closure(for implementation: BlockMethodImplementation) throws(ObjCError) -> FFIClosure {
    do {
      return try FFIClosure(
        cif: implementation.interface.cif, userData: Unmanaged.passUnretained(implementation).toOpaque()
      ) { _, result, arguments, userData in
        guard let userData, let result, let arguments else { return }
        let implementation = Unmanaged<BlockMethodImplementation>.fromOpaque(userData).takeUnretainedValue()
        implementation.respond(result: result, arguments: arguments)
      }
    } catch {
      throw ObjCError(invocationError: error, what: "the method's closure")
    }
  }

  /// Answers one call: the block with `self` and the explicit arguments (`_cmd` left out).
  private func respond(result: UnsafeMutableRawPointer, arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
    let raised = MethodCall.callBlock(
      invocation, method: interface, includingSelf: true, result: result, arguments: arguments)
    if let raised {
      let error = ObjCExceptions.error(for: raised, while: "the block implementing \(methodSignature)")
      failure.respond(to: error, result: result, interface: interface, what: "a block implementing a method")
    }
  }
}

/// Calls that arrive as a method's (libffi closure arguments: `self`, `_cmd`, then the
/// explicit ones) and go on to a block or to another object's implementation.
enum MethodCall {
  /// Calls `invocation`'s block with `self` (when `includingSelf`) and the explicit arguments of
  /// a call of `method`, inside `@try`; returns the exception raised, or nil.
  static func callBlock(
    _ invocation: BlockInvocation, method: CallInterface, includingSelf: Bool, result: UnsafeMutableRawPointer,
    arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> UnsafeRawPointer? {
    let blockInterface = invocation.interface
    var blockPointer = invocation.unsafeBlock
    return withUnsafeMutableBytes(of: &blockPointer) { blockSlot in
      withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(1, blockInterface.passedCount)) {
        values in
        for position in blockInterface.argumentShapes.indices {
          guard let index = blockInterface.passedIndex[position] else { continue }
          if position == 0 {
            values[index] = blockSlot.baseAddress
            continue
          }
          // Block parameter 1 is self (method argument 0) or the first explicit argument (2).
          let methodPosition = includingSelf ? (position == 1 ? 0 : position) : position + 1
          values[index] = method.passedIndex[methodPosition].flatMap { arguments[$0] } ?? ZeroSizeArgument.address
        }
        return ObjCExceptions.call(
          UnsafeMutableRawPointer(blockInterface.cif),
          unsafeBitCast(invocation.invokeFunction, to: UnsafeRawPointer.self),
          result, values.baseAddress)
      }
    }
  }

  /// Sends the call on to `receiver`'s own implementation of `selector`, the arguments as they
  /// came, `self` replaced; returns the exception raised, or nil.
  static func forward(
    to receiver: UnsafeRawPointer, selector: Selector, method: CallInterface, result: UnsafeMutableRawPointer,
    arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> UnsafeRawPointer? {
    var receiver = receiver
    let implementation = ObjCRuntimeCalls.lookup(receiver, selector)
    return withUnsafeMutableBytes(of: &receiver) { receiverSlot in
      withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(1, method.passedCount)) {
        values in
        for index in 0..<method.passedCount { values[index] = arguments[index] }
        if let selfIndex = method.passedIndex[0] { values[selfIndex] = receiverSlot.baseAddress }
        return ObjCExceptions.call(UnsafeMutableRawPointer(method.cif), implementation, result, values.baseAddress)
      }
    }
  }
}

extension ObjCError {
  /// An invocation error met while preparing `what`, as an Objective-C error.
  init(invocationError error: InvocationError, what: String) {
    let kind: Kind =
      switch error.kind {
      case .incompatibleSignature: .incompatibleSignature
      case .invalidSignature, .missingSignature: .invalidSignature
      default: .invalidCall
      }
    self.init(kind: kind, message: "\(what): \(error)", diagnostics: error.diagnostics)
  }
}
