// One function member of a delegate's table: its libffi closure, which C calls through the
// table, and what the closure forwards to — the member's block, or the real delegate's function.

import BlockSignature
import BlockSignatureSystem
import CFFI

/// A block implementing a member, with how it is called.
final class MemberImplementation: Sendable {
  let invocation: BlockInvocation
  /// The block leaves out the member's context parameter.
  let dropsContext: Bool

  init(invocation: BlockInvocation, dropsContext: Bool) {
    self.invocation = invocation
    self.dropsContext = dropsContext
  }
}

/// A function member's closure and its current implementation.
final class MemberSlot: @unchecked Sendable {
  let member: CallbackTable.Member
  /// The member's own call interface (function form): what C passes, and what the real
  /// delegate's function takes.
  let interface: CallInterface
  let realDelegate: DynamicDelegate.RealDelegate?
  let current = Locked<MemberImplementation?>(nil)
  private(set) var closure: FFIClosure!

  init(member: CallbackTable.Member, signature: MethodSignature, realDelegate: DynamicDelegate.RealDelegate?)
    throws(DelegateError)
  {
    self.member = member
    self.realDelegate = realDelegate
    do {
      interface = try CallInterface(signature: signature, model: signature.model)
    } catch {
      throw DelegateError(kind: .uncallableMember, member: member.name, message: error.description)
    }
    do {
      closure = try FFIClosure(cif: interface.cif, userData: Unmanaged.passUnretained(self).toOpaque()) {
        _, result, arguments, userData in
        guard let userData, let arguments else { return }
        // The call holds the slot (its closure, interface and block) until it returns, so a
        // delegate released meanwhile frees them after it, on this thread.
        let slot = Unmanaged<MemberSlot>.fromOpaque(userData).takeUnretainedValue()
        withExtendedLifetime(slot) { slot.respond(result: result, arguments: arguments) }
      }
    } catch {
      throw DelegateError(kind: .uncallableMember, member: member.name, message: error.description)
    }
  }

  /// The real delegate's function for this member, if it has one.
  var realFunction: UnsafeRawPointer? {
    guard let realDelegate else { return nil }
    let slot = UnsafeRawPointer(realDelegate.table + member.offset).assumingMemoryBound(
      to: UnsafeMutableRawPointer?.self)
    return cffi_read_pointer(slot)
  }

  /// Answers a call from C: the block if there is one, else the real delegate's function (with
  /// its own context), else a zero result.
  private func respond(result: UnsafeMutableRawPointer?, arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
    if let implementation = current.withLock({ $0 }) {
      callBlock(implementation, result: result, arguments: arguments)
    } else if let function = realFunction {
      forward(to: function, result: result, arguments: arguments)
    } else if let result {
      result.initializeMemory(as: UInt8.self, repeating: 0, count: interface.returnShape.resultBytes)
    }
  }

  /// Calls the block with C's arguments (the context left out when the block does not take it).
  private func callBlock(
    _ implementation: MemberImplementation, result: UnsafeMutableRawPointer?,
    arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) {
    implementation.invocation.forward(
      result: result, passed: arguments, skipping: implementation.dropsContext ? 1 : 0)
  }

  /// Calls the real delegate's function with C's arguments, its own context in place of ours.
  private func forward(
    to function: UnsafeRawPointer, result: UnsafeMutableRawPointer?,
    arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) {
    let target = unsafeBitCast(function, to: (@convention(c) () -> Void).self)
    guard member.takesContext else {
      interface.forward(to: target, result: result, leading: nil, passed: arguments, skipping: 0)
      return
    }
    var context = realDelegate?.context
    withUnsafeMutablePointer(to: &context) { contextSlot in
      interface.forward(
        to: target, result: result, leading: UnsafeMutableRawPointer(contextSlot), passed: arguments, skipping: 1)
    }
  }
}
