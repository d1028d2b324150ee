// Every hooked block of the process, under one lock: what the block held before its first hook,
// and the hooks now on it. Installing or removing a hook makes a new `HookSite` and stores its
// code in the block's `invoke` (one atomic store); the last removal stores the block's own
// invoke and descriptor back.
//
// Nothing a call may be running in is ever freed: sites (their libffi closures and the hooks
// they hold) and descriptor copies are kept for the life of the process. A thread may read a
// block's invoke, be preempted, and enter the code long after the hook is gone; it then runs
// the chain as it was when it read the invoke, which is one of the behaviours the block had.
// Each installation or removal thus keeps a site (a libffi trampoline and a small object).

import BlockSignature
import BlockSignatureFFI
import CBlockABI
import CBlockSignatureHook
import Synchronization

/// A hooked block: what it held before its first hook, and its hooks (changed under the table's
/// lock only).
final class HookedBlock: @unchecked Sendable {
  let block: UnsafeMutableRawPointer
  let kind: BlockKind
  let flags: BlockFlags
  /// The prepared signature; nil for a block without one that is only observed.
  let interface: CallInterface?
  /// The invoke the block has while hooked, shared by its signature.
  let invoke: HookInvoke.Shared
  let originalInvoke: UnsafeRawPointer
  let originalDescriptor: UnsafeRawPointer
  /// Whether hooking set `BLOCK_HAS_COPY_DISPOSE` (a heap block without helpers).
  let addedHelpers: Bool
  /// The hooks, first added first.
  var hooks: [BlockCallHook] = []

  init(
    block: UnsafeMutableRawPointer, kind: BlockKind, flags: BlockFlags, interface: CallInterface?,
    invoke: HookInvoke.Shared, originalInvoke: UnsafeRawPointer, originalDescriptor: UnsafeRawPointer
  ) {
    self.block = block
    self.kind = kind
    self.flags = flags
    self.interface = interface
    self.invoke = invoke
    self.originalInvoke = originalInvoke
    self.originalDescriptor = originalDescriptor
    addedHelpers = kind == .heap && !flags.contains(.hasCopyDispose)
  }

  var invokeSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    (block + 16).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
  }
  var descriptorSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    (block + 24).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
  }
  var flagsWord: UnsafeMutablePointer<Int32> { (block + 8).assumingMemoryBound(to: Int32.self) }
}

/// The process's hooked blocks.
enum HookTable {
  private static let blocks = Mutex<[UInt: HookedBlock]>([:])

  /// Adds `hook` last on its block: `prepared` describes the block when it has no hook yet.
  static func install(_ hook: BlockCallHook, prepared: HookedBlock) throws(BlockCallHookError) {
    try blocks.withLock { (blocks) throws(BlockCallHookError) in
      let key = UInt(bitPattern: hook.block)
      let record = blocks[key] ?? prepared
      if !record.hooks.isEmpty {
        guard let interface = record.interface else {
          guard hook.handlers.observesOnly else {
            throw BlockCallHookError(
              kind: .missingSignature, message: "the block has no signature and is observed already; declare one first")
          }
          return try add(hook, to: record, in: &blocks)
        }
        if let declared = hook.declaredSignature, declared != interface.signature.description {
          throw BlockCallHookError(
            kind: .invalidSignature,
            message: "the block is hooked already with the signature \(interface.signature), not \(declared)")
        }
      }
      try add(hook, to: record, in: &blocks)
    }
  }

  /// Adds `hook` last on `record`'s block and keeps the record.
  private static func add(_ hook: BlockCallHook, to record: HookedBlock, in blocks: inout [UInt: HookedBlock])
    throws(BlockCallHookError)
  {
    let key = UInt(bitPattern: hook.block)
    let site = try HookSite.make(record, layers: (record.hooks + [hook]).map(\.handlers))
    // The descriptor first: a call that finds the shared invoke finds the site through it.
    try store(site.descriptor, in: record.descriptorSlot, of: record)
    if record.hooks.isEmpty {
      if record.addedHelpers { _ = cbh_flags_set(record.flagsWord, BlockFlags.hasCopyDispose.rawValue) }
      try store(UnsafeMutableRawPointer(mutating: record.invoke.code), in: record.invokeSlot, of: record)
    }
    record.hooks.append(hook)
    blocks[key] = record
  }

  /// Takes `hook` off its block; false when it is not on it (removed, or the block is gone).
  @discardableResult
  static func remove(_ hook: BlockCallHook) throws(BlockCallHookError) -> Bool {
    try blocks.withLock { (blocks) throws(BlockCallHookError) -> Bool in
      let key = UInt(bitPattern: hook.block)
      guard let record = blocks[key], let index = record.hooks.firstIndex(where: { $0 === hook }) else {
        return false
      }
      let remaining = record.hooks.enumerated().filter { $0.offset != index }.map(\.element)
      guard remaining.isEmpty else {
        let site = try HookSite.make(record, layers: remaining.map(\.handlers))
        try store(site.descriptor, in: record.descriptorSlot, of: record)
        record.hooks = remaining
        return true
      }
      // The invoke first: a call that finds the block's own descriptor then finds its invoke.
      try store(UnsafeMutableRawPointer(mutating: record.originalInvoke), in: record.invokeSlot, of: record)
      if record.addedHelpers { _ = cbh_flags_clear(record.flagsWord, BlockFlags.hasCopyDispose.rawValue) }
      try store(UnsafeMutableRawPointer(mutating: record.originalDescriptor), in: record.descriptorSlot, of: record)
      blocks[key] = nil
      return true
    }
  }

  /// The block's own invoke when it is hooked (its `invoke` field then holds the hooks').
  static func ownInvoke(of block: UnsafeRawPointer) -> UnsafeRawPointer? {
    blocks.withLock { $0[UInt(bitPattern: block)]?.originalInvoke }
  }

  /// Whether `hook` is on its block.
  static func contains(_ hook: BlockCallHook) -> Bool {
    blocks.withLock { $0[UInt(bitPattern: hook.block)]?.hooks.contains { $0 === hook } ?? false }
  }

  /// The dispose helper's work: the heap block is being freed. Its hooks are forgotten, their
  /// `onDispose` run in the order they were added, then the block's own dispose helper.
  static func disposing(_ block: UnsafeRawPointer) {
    let record = blocks.withLock { $0.removeValue(forKey: UInt(bitPattern: block)) }
    guard let record else { return }
    for hook in record.hooks { hook.handlers.onDispose?(block) }
    guard let own = HookedDescriptor.ownDispose(of: record.originalDescriptor, flags: record.flags) else { return }
    unsafeBitCast(own, to: (@convention(c) (UnsafeRawPointer) -> Void).self)(block)
  }

  /// Stores `value` in a field of `record`'s block: a heap block's memory is `malloc`'s, always
  /// writable; a global literal's page may be read-only, which `cbh_store_pointer` handles.
  private static func store(
    _ value: UnsafeMutableRawPointer?, in slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>, of record: HookedBlock
  ) throws(BlockCallHookError) {
    guard record.kind != .heap else {
      cbh_store_release(slot, value)
      return
    }
    let status = cbh_store_pointer(slot, value)
    guard status == 0 else {
      throw BlockCallHookError(
        kind: .memoryProtection,
        message: "could not write the block at 0x\(String(UInt(bitPattern: slot), radix: 16)): errno \(status)")
    }
  }
}
