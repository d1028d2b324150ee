// One state of a hooked block's chain: the hooks in the order they were added, the block's own
// invoke, and the libffi closure that is the block's invoke while this state is current. A
// site never changes: adding or removing a hook makes a new one and stores its code in the
// block. A site is never freed either (see `HookTable`): a call that read the block's invoke
// just before the store may still enter it, and finds everything it needs.

import BlockSignatureFFI
import CFFI

/// The four hooks one `BlockCallHook` adds.
struct HookHandlers: Sendable {
  var before: BlockCallHook.Hook?
  var instead: BlockCallHook.Hook?
  var after: BlockCallHook.Hook?
  var onDispose: BlockCallHook.DisposeHook?
}

/// An immutable state of one block's chain of hooks, with the code that runs it.
final class HookSite: @unchecked Sendable {
  let interface: CallInterface
  /// The block's own invoke, which the chain ends in.
  let originalInvoke: @convention(c) () -> Void
  /// The hooks, first added first.
  let layers: [HookHandlers]
  /// The closure whose code is the block's invoke while this site is current. Set once, before
  /// the site is published; kept with the site, forever.
  private(set) var closure: FFIClosure?

  private init(interface: CallInterface, originalInvoke: UnsafeRawPointer, layers: [HookHandlers]) {
    self.interface = interface
    self.originalInvoke = unsafeBitCast(originalInvoke, to: (@convention(c) () -> Void).self)
    self.layers = layers
  }

  /// A site for `layers` on a block whose own invoke is `originalInvoke`, with its code. The
  /// site holds a reference to itself that is never given back: its code may be entered at any
  /// later time.
  static func make(interface: CallInterface, originalInvoke: UnsafeRawPointer, layers: [HookHandlers])
    throws(InvocationError) -> HookSite
  {
    let site = HookSite(interface: interface, originalInvoke: originalInvoke, layers: layers)
    let userData = Unmanaged.passRetained(site).toOpaque()
    site.closure = try FFIClosure(cif: interface.cif, userData: userData, function: respond)
    return site
  }

  /// The address stored in the block's `invoke`.
  var code: UnsafeRawPointer { closure.unsafelyUnwrapped.code }

  /// What libffi calls for each call of the hooked block.
  private static let respond: FFIClosureFunction = { _, result, arguments, userData in
    guard let result, let arguments, let userData, let blockSlot = arguments[0] else { return }
    let site = Unmanaged<HookSite>.fromOpaque(userData).takeUnretainedValue()
    // A hook that replaces the call and writes nothing returns zero.
    result.initializeMemory(as: UInt8.self, repeating: 0, count: site.interface.returnShape.resultBytes)
    site.proceed(
      from: 0, block: blockSlot.load(as: UnsafeRawPointer.self), result: result, passed: arguments)
  }

  /// Runs the chain from `layer` on: that layer's `before`, its `instead` (or the next layer),
  /// its `after`; past the last layer, the block's own invoke.
  func proceed(
    from layer: Int, block: UnsafeRawPointer, result: UnsafeMutableRawPointer,
    passed: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) {
    guard layer < layers.count else {
      callOriginal(result: result, passed: passed)
      return
    }
    let handlers = layers[layer]
    let call = HookedCall(site: self, layer: layer, passed: passed, block: block, resultAddress: result)
    handlers.before?(call)
    if let instead = handlers.instead {
      instead(call)
    } else {
      proceed(from: layer + 1, block: block, result: result, passed: passed)
    }
    handlers.after?(call)
  }

  /// Calls the block's own invoke with `passed`, copied first: libffi may replace an entry of
  /// the list it is given (a structure passed in memory), and a hook may call again.
  private func callOriginal(result: UnsafeMutableRawPointer, passed: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
    let count = interface.passedCount
    withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(1, count)) { copy in
      for index in 0..<count { copy[index] = passed[index] }
      ffi_call(interface.cif, originalInvoke, result, copy.baseAddress)
    }
  }
}
