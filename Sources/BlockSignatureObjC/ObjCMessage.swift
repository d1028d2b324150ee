import BlockSignature
import BlockSignatureFFI
import BlockSignatureSystem
import CBlockSignatureObjC
import CFFI
import Synchronization

/// A message prepared for sending through its type encoding (what `NSInvocation` does, with no
/// Foundation needed): the selector and the method's types, resolved to a libffi call
/// interface once; every send after that is thread-safe.
///
///     let length = try ObjCMessage("length", class: ObjCClass(named: "NSString"))
///     try length.send(to: text.pointer, [])  // .unsigned(5)
///
/// The types come from the runtime (`method_getTypeEncoding` of the class's method) or are
/// declared; declared types are checked against the runtime's with `CompatibilityChecker` at
/// `level`, and sends follow the declaration. Each send looks the implementation up for its
/// receiver (`objc_msg_lookup`), so a subclass's override answers. A nil receiver answers zero
/// (0, nil, 0.0, a zeroed structure). An Objective-C exception raised by the method comes back
/// as ``ObjCError/Kind/exception`` with its name and reason; it never unwinds through Swift.
///
/// Variadic methods (`stringWithFormat:`) cannot be sent: their encoding lists the fixed
/// arguments only, so more arguments than it lists are refused.
public final class ObjCMessage: @unchecked Sendable {
  /// The selector sent.
  public let selector: Selector
  /// The types sends follow, in method form (`self` and `_cmd` first).
  public let signature: MethodSignature
  /// The runtime's types for the class's method, when it has one.
  public let runtimeSignature: MethodSignature?
  let interface: CallInterface
  /// Typed sends in registers, without libffi, where every argument and the result allow it.
  private let registerPlan: RegisterSendPlan?
  /// ``argumentCount``, kept: every typed send checks it.
  private let explicitCount: Int
  /// The class of the last receiver found to have a method for the selector (0: none yet).
  let answeringClass = Atomic<UInt>(0)

  /// Prepares `selector` for instances of `objcClass` (for class methods, pass its
  /// ``ObjCClass/metaclass``). `declaredTypes` is the caller's view of the method; when the
  /// runtime has types too, the declaration must fit them at `level`.
  ///
  /// - Throws: ``ObjCError``: no method and no declared types, types that do not parse or do
  ///   not fit, a type that cannot be passed.
  public convenience init(
    _ selector: Selector, class objcClass: ObjCClass, declaredTypes: String? = nil, level: CompatibilityLevel = .abi
  ) throws(ObjCError) {
    let method = objcClass.instanceMethod(selector)
    let runtime = try method.map { method throws(ObjCError) in try method.signature() }
    let declared = try declaredTypes.map { text throws(ObjCError) in
      try ObjCTypes.methodSignature(text, what: "the declared types of \(selector)")
    }
    if let runtime, let declared {
      try ObjCTypes.requireFit(declared, to: runtime, level: level, what: "the declared types of \(selector)")
    }
    guard let signature = declared ?? runtime else {
      throw ObjCError(
        kind: .unknownSelector,
        message: "\(objcClass) has no method \(selector) (and no types were declared)")
    }
    try self.init(selector: selector, signature: signature, runtimeSignature: runtime)
  }

  /// Prepares `selector` with declared types only (`types`, method form), for any receiver.
  ///
  /// - Throws: ``ObjCError``: types that do not parse, a type that cannot be passed.
  public convenience init(_ selector: Selector, types: String) throws(ObjCError) {
    let signature = try ObjCTypes.methodSignature(types, what: "the types of \(selector)")
    try self.init(selector: selector, signature: signature, runtimeSignature: nil)
  }

  private init(selector: Selector, signature: MethodSignature, runtimeSignature: MethodSignature?)
    throws(ObjCError)
  {
    self.selector = selector
    self.signature = signature
    self.runtimeSignature = runtimeSignature
    do {
      interface = try CallInterface(signature: signature, model: signature.model)
    } catch {
      throw ObjCError(kind: .invalidCall, message: "\(selector) \(signature): \(error)")
    }
    registerPlan = RegisterSendPlan(interface)
    explicitCount = signature.numberOfArguments - 2
  }

  /// Whether typed sends skip libffi: on x86-64 Linux, when every argument is a scalar (an
  /// integer, `BOOL`, `float`, `double`, a pointer, object, class or selector) in a register
  /// and the result a scalar or `void`, each value is written straight into its register's
  /// slot and the method called with them, inside `@try`. A value of another kind than its
  /// argument's (an `.unsigned` for an `int`) still takes the checked path, with its
  /// conversions and errors.
  ///
  ///     try ObjCMessage("add:to:", class: target).sendsInRegisters  // true
  public var sendsInRegisters: Bool { registerPlan != nil }

  /// The number of explicit arguments (`self` and `_cmd` not counted).
  public var argumentCount: Int { explicitCount }

  /// The bytes the result buffer of ``send(to:result:arguments:)`` must have (16-byte aligned).
  public var resultBufferSize: Int { interface.resultBufferSize }

  /// Sends the message to `receiver` (an object or a class; nil answers zero) with one
  /// `CValue` per explicit argument, and returns the result.
  ///
  /// - Throws: ``ObjCError``: a wrong count or a value that does not fit
  ///   (``ObjCError/Kind/invalidCall``), an exception (``ObjCError/Kind/exception``).
  @discardableResult
  public func send(to receiver: UnsafeRawPointer?, _ arguments: [CValue]) throws(ObjCError) -> CValue {
    try checkArgumentCount(arguments.count)
    guard let original = receiver else { return interface.zeroResult() }
    cbo_autorelease_pool_ensure()
    let receiver = try answeringReceiver(original)
    return try call(cbo_msg_lookup(receiver, selector.pointer), receiver: receiver, arguments)
  }

  /// Calls `implementation` — an `IMP` of this method, such as the one a
  /// ``MethodReplacement`` replaced — with `receiver` as `self`: what a replacement that wraps
  /// the original does (Aspects' "instead" with a call through).
  ///
  ///     let replacement = try target.objectClass.replaceMethod("add:to:", block: doubled)
  ///     // inside the block:
  ///     try ObjCMessage("add:to:", class: targetClass)
  ///       .send(to: this, implementation: replacement.previousImplementation, [.signed(a), .signed(b)])
  ///
  /// - Throws: ``ObjCError``: a wrong count or a value that does not fit, an exception.
  @discardableResult
  public func send(
    to receiver: UnsafeRawPointer, implementation: UnsafeRawPointer, _ arguments: [CValue]
  ) throws(ObjCError) -> CValue {
    try checkArgumentCount(arguments.count)
    cbo_autorelease_pool_ensure()
    return try call(implementation, receiver: receiver, arguments)
  }

  /// Calls `implementation` with `receiver`, the selector and `arguments`, inside `@try`.
  private func call(
    _ implementation: UnsafeRawPointer, receiver: UnsafeRawPointer, _ arguments: [CValue]
  ) throws(ObjCError) -> CValue {
    if let registerPlan,
      let outcome = registerPlan.send(implementation, receiver: receiver, selector: selector.pointer, values: arguments)
    {
      switch outcome {
      case .returned(let result): return result
      case .raised(let exception): throw ObjCExceptions.error(for: exception, while: "-\(selector)")
      }
    }
    let function = unsafeBitCast(implementation, to: (@convention(c) () -> Void).self)
    var raised: UnsafeRawPointer? = nil
    var hidden = (receiver, selector.pointer)
    let result: CValue
    do {
      result = try withUnsafeMutableBytes(of: &hidden) { slots throws(ArgumentValueError) in
        try interface.call(
          function, leading: slots.baseAddress!, second: slots.baseAddress! + MemoryLayout<UnsafeRawPointer>.stride,
          values: arguments
        ) { cif, function, result, passed in
          raised = ObjCExceptions.call(
            UnsafeMutableRawPointer(cif), unsafeBitCast(function, to: UnsafeRawPointer.self), result, passed)
        }
      }
    } catch {
      throw ObjCError(
        kind: .invalidCall, message: "\(selector) argument \(error.position - 1): \(error.error.message)")
    }
    if let raised { throw ObjCExceptions.error(for: raised, while: "-\(selector)") }
    return result
  }

  /// Sends the message with the bytes of each argument: `arguments[i]` points at explicit
  /// argument `i` (``argumentCount`` pointers), `result` at ``resultBufferSize`` bytes aligned
  /// to 16 (nil for `void`). Where ``sendsInRegisters``, the bytes go straight into their
  /// registers, as a typed send's values do. Allocates nothing, and so puts no autorelease pool
  /// in place on a thread that has none, as the other sends do: send it inside
  /// ``ObjCRuntime/withAutoreleasePool(_:)``, or after another send on the thread.
  ///
  /// - Throws: ``ObjCError/Kind/exception`` when the method raises (the result is then
  ///   unwritten).
  public func send(
    to receiver: UnsafeRawPointer?, result: UnsafeMutableRawPointer?, arguments: UnsafePointer<UnsafeRawPointer?>
  ) throws(ObjCError) {
    guard let original = receiver else {
      result?.initializeMemory(as: UInt8.self, repeating: 0, count: interface.returnShape.resultBytes)
      return
    }
    var receiver = try answeringReceiver(original)
    var selectorPointer = selector.pointer
    let implementation = cbo_msg_lookup(receiver, selectorPointer)
    if let registerPlan {
      let raised = registerPlan.sendRaw(
        implementation, receiver: receiver, selector: selectorPointer, arguments: arguments, result: result)
      if let raised { throw ObjCExceptions.error(for: raised, while: "-\(selector)") }
      return
    }
    let interface = interface
    let raised = withUnsafeTemporaryAllocation(
      of: UnsafeMutableRawPointer?.self, capacity: max(1, interface.passedCount)
    ) { passed in
      withUnsafeMutableBytes(of: &receiver) { receiverBytes in
        withUnsafeMutableBytes(of: &selectorPointer) { selectorBytes in
          for position in interface.argumentShapes.indices {
            guard let index = interface.passedIndex[position] else { continue }
            switch position {
            case 0: passed[index] = receiverBytes.baseAddress
            case 1: passed[index] = selectorBytes.baseAddress
            default: passed[index] = UnsafeMutableRawPointer(mutating: arguments[position - 2])
            }
          }
          return ObjCExceptions.call(UnsafeMutableRawPointer(interface.cif), implementation, result, passed.baseAddress)
        }
      }
    }
    if let raised { throw ObjCExceptions.error(for: raised, while: "-\(selector)") }
  }

  private func checkArgumentCount(_ count: Int) throws(ObjCError) {
    guard count != explicitCount else { return }
    let variadic =
      count > argumentCount ? " (a variadic method's extra arguments cannot be sent: its types list none)" : ""
    throw ObjCError(
      kind: .invalidCall,
      message: "\(selector) takes \(argumentCount) argument\(argumentCount == 1 ? "" : "s"), got \(count)\(variadic)")
  }

  private static let cache = Locked<[CacheKey: ObjCMessage]>([:])

  private struct CacheKey: Hashable {
    var objcClass: UInt
    var selector: String
  }

  /// The message for `selector` prepared on `receiver`'s class, kept for reuse.
  static func prepared(_ selector: Selector, receiver: UnsafeRawPointer) throws(ObjCError) -> ObjCMessage {
    let objcClass = ObjCClass(of: receiver)
    let key = CacheKey(objcClass: UInt(bitPattern: objcClass.pointer), selector: selector.name)
    if let known = cache.withLock({ $0[key] }) { return known }
    let made = try ObjCMessage(selector, class: objcClass)
    return cache.withLock { messages in
      if let known = messages[key] { return known }
      messages[key] = made
      return made
    }
  }
}

extension CallInterface {
  /// The value a `nil` receiver answers: the return type's zero.
  func zeroResult() -> CValue {
    withUnsafeTemporaryAllocation(byteCount: resultBufferSize, alignment: 16) { buffer in
      buffer.initializeMemory(as: UInt8.self, repeating: 0)
      return returnShape.load(from: buffer.baseAddress!)
    }
  }
}
