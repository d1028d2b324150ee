// One state of a hooked block's chain: the hooks in the order they were added, the block's own
// invoke, and the descriptor the block carries while this state is current. A site never
// changes: adding or removing a hook makes a new one and stores its descriptor in the block.
// The block's invoke is code shared by every hooked block of its signature (`HookInvoke`),
// which finds the site just before the descriptor. Sites and their descriptors are never freed
// (see `HookTable`).

import BlockSignature
import BlockSignatureFFI
import CBlockSignatureHook
import CFFI

/// The four hooks one `BlockCallHook` adds.
struct HookHandlers: Sendable {
  var onCall: BlockCallHook.CallObserver?
  var before: BlockCallHook.Hook?
  var instead: BlockCallHook.Hook?
  var after: BlockCallHook.Hook?
  var onDispose: BlockCallHook.DisposeHook?

  /// Whether these hooks only watch calls (no `before`, `instead` or `after`).
  var observesOnly: Bool { before == nil && instead == nil && after == nil }
}

/// Where a call's registers are, when `cbh_hook_entry` took it: the block's own invoke is then
/// called with them as they are (changed by hooks or not), without libffi.
struct SavedCall {
  let frame: UnsafeMutableRawPointer
  let stack: UnsafeMutableRawPointer
  /// The plan's bytes of stack arguments and kind of result.
  let stackBytes: Int
  let resultKind: Int32
}

/// An immutable state of one block's chain of hooks.
final class HookSite: @unchecked Sendable {
  /// The prepared signature; nil for an observed block without one, whose calls only run the
  /// `onCall` hooks (no ``HookedCall`` is made for them).
  let interface: CallInterface?
  /// The block's own invoke, which the chain ends in.
  let originalInvoke: UnsafeRawPointer
  /// The hooks, first added first: `layerCount` of them in a buffer never freed, read on each
  /// call in place.
  let layers: UnsafeMutablePointer<HookHandlers>
  let layerCount: Int
  /// The descriptor the block carries while this site is current, in the hook region: the
  /// dispatch and this site are the two words before it.
  let descriptor: UnsafeMutableRawPointer
  /// Where the entry saved each argument, when the block's invoke is `cbh_hook_entry`.
  let entryPlan: HookEntryPlan?

  private init(
    interface: CallInterface?, originalInvoke: UnsafeRawPointer, layers: [HookHandlers],
    descriptor: UnsafeMutableRawPointer, entryPlan: HookEntryPlan?
  ) {
    self.interface = interface
    self.entryPlan = entryPlan
    self.originalInvoke = originalInvoke
    self.layers = .allocate(capacity: max(1, layers.count))
    self.layers.initialize(from: layers, count: layers.count)
    layerCount = layers.count
    self.descriptor = descriptor
  }

  /// A site for `layers` on the block `record` describes, with its descriptor. The site holds a
  /// reference to itself that is never given back: a call may reach it at any later time.
  static func make(_ record: HookedBlock, layers: [HookHandlers]) throws(BlockCallHookError) -> HookSite {
    let descriptor = try HookedDescriptor.make(for: record)
    let site = HookSite(
      interface: record.interface, originalInvoke: record.originalInvoke, layers: layers, descriptor: descriptor,
      entryPlan: record.invoke.plan)
    let dispatch =
      record.interface == nil
      ? unsafeBitCast(HookInvoke.observeDispatch, to: UnsafeRawPointer.self)
      : unsafeBitCast(HookInvoke.entryDispatch, to: UnsafeRawPointer.self)
    descriptor.storeBytes(of: dispatch, toByteOffset: -16, as: UnsafeRawPointer.self)
    // Published with release ordering: a call that loads it (acquire) sees the site whole.
    cbh_store_release(descriptor - 8, Unmanaged.passRetained(site).toOpaque())
    return site
  }

  /// The prepared signature of a site whose calls have one (every site a ``HookedCall`` is made
  /// for).
  var callInterface: CallInterface { interface.unsafelyUnwrapped }

  /// Runs the `onCall` hooks of an observed block's call, first added first.
  func observe(_ block: UnsafeRawPointer) {
    for layer in 0..<layerCount { layers[layer].onCall?(block) }
  }

  /// Runs `body` with the site of a hooked block's descriptor (one in the hook region),
  /// borrowed: the site is never freed, so no reference is counted.
  @inline(__always)
  static func withSite(of descriptor: UnsafeRawPointer, _ body: (HookSite) -> Void) {
    Unmanaged<HookSite>.fromOpaque(cbh_load_acquire(descriptor - 8).unsafelyUnwrapped)
      ._withUnsafeGuaranteedRef(body)
  }

  /// Runs the chain from `layer` on: that layer's `before`, its `instead` (or the next layer),
  /// its `after`; past the last layer, the block's own invoke.
  func proceed(
    from layer: Int, block: UnsafeRawPointer, result: UnsafeMutableRawPointer,
    passed: UnsafeMutablePointer<UnsafeMutableRawPointer?>, saved: SavedCall?
  ) {
    guard layer < layerCount else {
      callOriginal(result: result, passed: passed, saved: saved)
      return
    }
    let handlers = layers + layer
    handlers.pointee.onCall?(block)
    let call = HookedCall(
      site: self, layer: layer, passed: passed, saved: saved, block: block, resultAddress: result)
    handlers.pointee.before?(call)
    if let instead = handlers.pointee.instead {
      instead(call)
    } else {
      proceed(from: layer + 1, block: block, result: result, passed: passed, saved: saved)
    }
    handlers.pointee.after?(call)
  }

  /// Calls the block's own invoke: with the saved registers when the entry took the call, else
  /// through libffi with `passed`, copied first (libffi may replace an entry of the list it is
  /// given, a structure passed in memory, and a hook may call again).
  private func callOriginal(
    result: UnsafeMutableRawPointer, passed: UnsafeMutablePointer<UnsafeMutableRawPointer?>, saved: SavedCall?
  ) {
    if let saved {
      cbh_call_saved(saved.frame, saved.stack, UInt(saved.stackBytes), originalInvoke, saved.resultKind)
      return
    }
    HookInvoke.call(callInterface, originalInvoke, result: result, passed: passed)
  }
}
