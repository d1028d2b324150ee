import BlockSignature
import BlockSignatureFFI
import BlockSignatureSystem
import CBlockSignatureObjC

/// A block implementing a delegate's method, with how it is called.
final class DelegateImplementation: Sendable {
  let invocation: BlockInvocation
  /// The block takes the delegate (`self`) before the method's arguments.
  let takesSelf: Bool
  let failure: DynamicBlock.FailurePolicy

  init(invocation: BlockInvocation, takesSelf: Bool, failure: DynamicBlock.FailurePolicy) {
    self.invocation = invocation
    self.takesSelf = takesSelf
    self.failure = failure
  }
}

/// One dynamic delegate's blocks and real delegate, reached from the Objective-C object through
/// its instance variable; the object holds one reference and lets go of it in `dealloc`.
final class DelegateState: @unchecked Sendable {
  let delegateClass: DelegateClass
  let realDelegate: ObjCObject?
  /// One entry per method of the class: its block, or nil.
  let implementations: Locked<[DelegateImplementation?]>

  init(delegateClass: DelegateClass, realDelegate: ObjCObject?) {
    self.delegateClass = delegateClass
    self.realDelegate = realDelegate
    implementations = Locked(Array(repeating: nil, count: delegateClass.methods.count))
  }

  /// The state of a delegate object (nil once it is being deallocated).
  static func of(_ object: UnsafeRawPointer) -> DelegateState? {
    let offset = ObjCClass(of: object).instanceVariableOffset(DelegateClass.stateVariable) ?? -1
    guard offset >= 0, let state = (object + offset).load(as: UnsafeRawPointer?.self) else { return nil }
    return Unmanaged<DelegateState>.fromOpaque(state).takeUnretainedValue()
  }

  /// Gives `object` a reference to this state.
  func attach(to object: UnsafeRawPointer) {
    let slot = UnsafeMutableRawPointer(mutating: object + delegateClass.stateOffset)
    slot.storeBytes(of: UnsafeRawPointer(Unmanaged.passRetained(self).toOpaque()), as: UnsafeRawPointer?.self)
  }

  /// Takes `object`'s reference away (its `dealloc`): the blocks and the real delegate go with
  /// the last reference.
  static func detach(from object: UnsafeRawPointer) {
    let offset = ObjCClass(of: object).instanceVariableOffset(DelegateClass.stateVariable) ?? -1
    guard offset >= 0 else { return }
    let slot = UnsafeMutableRawPointer(mutating: object + offset)
    guard let state = slot.load(as: UnsafeRawPointer?.self) else { return }
    slot.storeBytes(of: nil, as: UnsafeRawPointer?.self)
    Unmanaged<DelegateState>.fromOpaque(state).release()
  }

  /// Answers a call of method `methodIndex`: its block, else the real delegate's
  /// implementation, else zero.
  static func respond(
    methodIndex: Int, of delegateClass: DelegateClass, result: UnsafeMutableRawPointer,
    arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) {
    guard let object = arguments[0]?.load(as: UnsafeRawPointer?.self),
      let address = (object + delegateClass.stateOffset).load(as: UnsafeRawPointer?.self)
    else { return }
    let state = Unmanaged<DelegateState>.fromOpaque(address).takeUnretainedValue()
    let method = state.delegateClass.methods[methodIndex]
    let interface = method.interface
    let selector = method.description.selector
    if let implementation = state.implementations.withLock({ $0[methodIndex] }) {
      guard
        let raised = MethodCall.callBlock(
          implementation.invocation, method: interface, includingSelf: implementation.takesSelf, result: result,
          arguments: arguments)
      else { return }
      let error = ObjCExceptions.error(for: raised, while: "the block implementing \(selector)")
      implementation.failure.respond(to: error, result: result, interface: interface, what: "a delegate's block")
    } else if let real = state.realDelegate, state.realDelegateResponds(to: selector) {
      guard
        let raised = MethodCall.forward(
          to: real.pointer, selector: selector, method: interface, result: result, arguments: arguments)
      else { return }
      let error = ObjCExceptions.error(for: raised, while: "the real delegate's \(selector)")
      DynamicBlock.FailurePolicy.trap.respond(to: error, result: result, interface: interface, what: "a delegate")
    } else {
      result.initializeMemory(as: UInt8.self, repeating: 0, count: interface.returnShape.resultBytes)
      interface.returnShape.widenResult(at: result)
    }
  }
}
