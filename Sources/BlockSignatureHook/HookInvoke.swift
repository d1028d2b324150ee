// The invoke of hooked blocks, shared by every block of a signature: `cbh_hook_entry` for
// scalars on x86-64, else one libffi closure per signature. Both find the call's site through
// the block's descriptor; a descriptor outside the hook region means the hook was removed after
// the caller read the invoke, and the call goes to what the block holds now. Neither is ever
// freed.

import BlockSignature
import BlockSignatureFFI
import CBlockABI
import CBlockSignatureHook
import CFFI
import Synchronization

enum HookInvoke {
  /// The code and plan shared by hooked blocks of one signature text.
  struct Shared: @unchecked Sendable {
    let code: UnsafeRawPointer
    let plan: HookEntryPlan?
    let closure: FFIClosure?
  }

  private static let shared = Mutex<[String: Shared]>([:])

  /// The invoke of hooked blocks of `interface`'s signature.
  static func code(for interface: CallInterface?) throws(BlockCallHookError) -> Shared {
    guard let interface else {
      guard let entry = cbh_observe_entry_address() else {
        throw BlockCallHookError(
          kind: .missingSignature, message: "a block without a signature can be observed only on x86-64 Linux")
      }
      return Shared(code: entry, plan: nil, closure: nil)
    }
    let key = interface.signature.description
    if let known = shared.withLock({ $0[key] }) { return known }
    let made: Shared
    if let plan = HookEntryPlan(interface), let entry = cbh_hook_entry_address() {
      made = Shared(code: entry, plan: plan, closure: nil)
    } else {
      do {
        let closure = try FFIClosure(
          cif: interface.cif, userData: Unmanaged.passRetained(interface).toOpaque(), function: respond)
        made = Shared(code: closure.code, plan: nil, closure: closure)
      } catch {
        throw BlockCallHookError(error)
      }
    }
    return shared.withLock { shared in
      if let other = shared[key] { return other }
      shared[key] = made
      return made
    }
  }

  /// Whether `descriptor` is a hooked block's (in the hook region).
  @inline(__always)
  static func isHooked(_ descriptor: UnsafeRawPointer) -> Bool {
    cbh_is_hooked_descriptor(descriptor)
  }

  /// What `cbh_hook_entry` calls: the frame of saved registers, the stack arguments, the
  /// block's descriptor as the entry read it.
  static let entryDispatch:
    @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer, UnsafeRawPointer) -> Void = {
      frame, stack, descriptor in
      HookSite.withSite(of: descriptor) { site in
        let plan = site.entryPlan.unsafelyUnwrapped
        let pointers = (frame + Int(CBA_ENTRY_FRAME_POINTERS)).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        for index in 0..<plan.count {
          let slot = plan.slots[index]
          pointers[index] = slot >= 0 ? frame + slot : stack + ~slot
        }
        let result = frame + Int(CBA_ENTRY_FRAME_RESULT)
        result.storeBytes(of: (0, 0) as (UInt64, UInt64), as: (UInt64, UInt64).self)
        site.proceed(
          from: 0, block: frame.load(as: UnsafeRawPointer.self), result: result, passed: pointers,
          saved: SavedCall(frame: frame, stack: stack, stackBytes: plan.stackBytes, resultKind: plan.resultKind))
      }
    }

  /// What `cbh_observe_entry` calls: the block and its descriptor; returns the block's own
  /// invoke, which the entry jumps to.
  static let observeDispatch: @convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UnsafeRawPointer = {
    block, descriptor in
    var invoke: UnsafeRawPointer?
    HookSite.withSite(of: descriptor) { site in
      site.observe(block)
      invoke = site.originalInvoke
    }
    return invoke.unsafelyUnwrapped
  }

  /// What the libffi closure of a signature calls.
  private static let respond: FFIClosureFunction = { _, result, arguments, userData in
    guard let result, let arguments, let userData, let blockSlot = arguments[0] else { return }
    let block = blockSlot.load(as: UnsafeRawPointer.self)
    let descriptor = cbh_load_acquire(block + 24).unsafelyUnwrapped
    guard isHooked(descriptor) else {
      // The hook is gone: what the block holds now.
      let interface = Unmanaged<CallInterface>.fromOpaque(userData).takeUnretainedValue()
      call(interface, cbh_load_acquire(block + 16).unsafelyUnwrapped, result: result, passed: arguments)
      return
    }
    HookSite.withSite(of: descriptor) { site in
      // A hook that replaces the call and writes nothing returns zero.
      result.initializeMemory(as: UInt8.self, repeating: 0, count: site.callInterface.returnShape.resultBytes)
      site.proceed(from: 0, block: block, result: result, passed: arguments, saved: nil)
    }
  }

  /// Calls `function` through libffi with `passed`, copied first.
  static func call(
    _ interface: CallInterface, _ function: UnsafeRawPointer, result: UnsafeMutableRawPointer,
    passed: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) {
    let count = interface.passedCount
    withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(1, count)) { copy in
      for index in 0..<count { copy[index] = passed[index] }
      ffi_call(
        interface.cif, unsafeBitCast(function, to: (@convention(c) () -> Void).self), result, copy.baseAddress)
    }
  }
}
