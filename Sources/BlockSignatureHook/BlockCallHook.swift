import BlockSignature
import BlockSignatureFFI
import BlockSignatureRuntime

/// A hook on a live block's calls: code that runs before the block, in its place or after it,
/// and when its heap copy is freed.
///
///     typealias Add = @convention(block) (Int32, Int32) -> Int32
///     let hook = try BlockCallHook(
///       on: block,
///       before: { call in try? call.setArgument(0, to: .signed(10)) },
///       after: { call in print(call.result) })          // .signed(14) for add(3, 4)
///     unsafeBitCast(block, to: Add.self)(3, 4)          // 14
///     try hook.remove()                                 // the block's invoke and descriptor as they were
///
/// The block's `invoke` is replaced by a libffi closure that runs the chain of hooks and then
/// the block's own invoke, so every caller (C, Swift, the runtime) goes through the hooks.
/// Several hooks on one block run in the order they were added: the first added is
/// outermost (its `before` first, its `after` last), and an `instead` hook's
/// ``HookedCall/callOriginal()`` runs the hooks added after it, then the block.
///
/// Blocks that can be hooked:
/// - heap blocks: the `invoke` is stored, and the descriptor is replaced by a copy whose
///   dispose helper runs `onDispose` (setting `BLOCK_HAS_COPY_DISPOSE` when the block had no
///   helpers);
/// - global literals, which ELF keeps in `.data.rel.ro`: the page is made writable for the
///   store and given its protection back at once. A global block is never freed, so its
///   `onDispose` never runs.
///
/// Stack and noescape blocks are refused: their frame ends when their maker returns. A block
/// without a signature is refused unless one is declared; its calls can still be watched
/// (``init(observing:onCall:onDispose:)``).
///
/// Removing the last hook stores the block's own `invoke` and descriptor back, byte for byte.
/// A hook stays on its block until ``remove()`` or until the block is freed, whether or not the
/// `BlockCallHook` is kept. Hooks may be added and removed while other threads call the block:
/// each call runs the chain as it was when the call read the block's `invoke`. Nothing a call
/// may be running in is ever freed, so each installation and removal keeps a small record (a
/// libffi trampoline and the chain) for the life of the process.
public final class BlockCallHook: @unchecked Sendable {
  /// A hook given one call: `before` may change the arguments, `instead` replaces the call
  /// (and may call the original), `after` may replace the result.
  public typealias Hook = @Sendable (HookedCall) -> Void
  /// A hook given the address of a heap block about to be freed.
  public typealias DisposeHook = @Sendable (UnsafeRawPointer) -> Void
  /// A hook given the address of the block a call is for, before the call.
  public typealias CallObserver = @Sendable (UnsafeRawPointer) -> Void

  /// The hooked block's address.
  public let block: UnsafeRawPointer
  /// The signature calls follow (the block's own, or the declared one); nil for a block
  /// without one that is only observed (``init(observing:onCall:onDispose:)``).
  public let signature: MethodSignature?
  let declaredSignature: String?
  let handlers: HookHandlers

  /// Hooks `block`'s calls.
  ///
  ///     let calls = Mutex(0)
  ///     let hook = try BlockCallHook(on: block, before: { _ in calls.withLock { $0 += 1 } })
  ///
  /// - Parameters:
  ///   - block: a heap block or a global block literal.
  ///   - signature: the signature to use (block, method or function form): required when the
  ///     block has none, checked against the block's own when it has one.
  ///   - isVariadic: whether the block's C type is variadic, which its encoding cannot say; a
  ///     variadic block is refused.
  ///   - before: runs before the rest of the chain; may change the arguments.
  ///   - instead: runs in place of the rest of the chain; may call it.
  ///   - after: runs after; may replace the result.
  ///   - onDispose: runs when the heap block is freed, before its own dispose helper.
  /// - Throws: ``BlockCallHookError``: not a block, a stack block, no signature, a type no
  ///   call can pass, a variadic block, a page that cannot be made writable.
  public init(
    on block: UnsafeRawPointer, signature: String? = nil, isVariadic: Bool = false, before: Hook? = nil,
    instead: Hook? = nil, after: Hook? = nil, onDispose: DisposeHook? = nil
  ) throws(BlockCallHookError) {
    guard !isVariadic else {
      throw BlockCallHookError(
        kind: .variadic,
        message: "a variadic block's encoding lists only its fixed arguments: a hook could not pass the others on")
    }
    self.block = block
    handlers = HookHandlers(before: before, instead: instead, after: after, onDispose: onDispose)
    let declared = try signature.map { (text) throws(BlockCallHookError) in try HookPreparation.blockForm(of: text) }
    declaredSignature = declared?.description
    let prepared = try HookPreparation.record(for: block, declared: declared)
    self.signature = prepared.interface?.signature
    try HookTable.install(self, prepared: prepared)
  }

  /// Watches `block`'s calls, whether or not it has a signature: `onCall` runs before each call
  /// with the block's address. A block without a signature is called through a pass-through
  /// entry (x86-64 Linux) that saves every argument register, runs the hooks and jumps to the
  /// block's own invoke, so its arguments and result are neither seen nor touched.
  ///
  ///     let calls = Mutex(0)
  ///     let hook = try BlockCallHook(observing: block) { _ in calls.withLock { $0 += 1 } }
  ///
  /// - Parameters:
  ///   - block: a heap block or a global block literal.
  ///   - onCall: runs before each call.
  ///   - onDispose: runs when the heap block is freed, before its own dispose helper.
  /// - Throws: ``BlockCallHookError``: not a block, a stack block, a page that cannot be made
  ///   writable; ``BlockCallHookError/Kind/missingSignature`` for a block without a signature
  ///   on a machine without the pass-through entry, or one that other hooks use already with
  ///   a signature of their own.
  public init(observing block: UnsafeRawPointer, onCall: @escaping CallObserver, onDispose: DisposeHook? = nil)
    throws(BlockCallHookError)
  {
    self.block = block
    handlers = HookHandlers(onCall: onCall, onDispose: onDispose)
    declaredSignature = nil
    let prepared = try HookPreparation.record(for: block, declared: nil, observing: true)
    signature = prepared.interface?.signature
    try HookTable.install(self, prepared: prepared)
  }

  /// Whether the hook is on its block: false once removed, or once the block is freed.
  public var isInstalled: Bool { HookTable.contains(self) }

  /// Takes the hook off its block; the other hooks stay, in their order. Removing the last
  /// one stores the block's own `invoke` and descriptor back. Removing a hook that is off
  /// already does nothing.
  ///
  ///     try hook.remove()
  ///     hook.isInstalled  // false
  ///
  /// - Throws: ``BlockCallHookError`` (``BlockCallHookError/Kind/memoryProtection``) when a
  ///   global block's page cannot be made writable again.
  public func remove() throws(BlockCallHookError) {
    try HookTable.remove(self)
  }
}
