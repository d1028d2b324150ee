// The descriptor a hooked block carries: the original's parts, in the hook region so that the
// shared invoke knows the block is hooked, preceded by the dispatch and the site. A heap
// block's has a dispose helper that runs the hooks' `onDispose` before the block's own dispose
// (and `BLOCK_HAS_COPY_DISPOSE` is set on a block that had no helpers). Never freed: the
// runtime or a call may be reading it when a hook is removed.

import BlockSignature
import CBlockSignatureHook

enum HookedDescriptor {
  private static let word = MemoryLayout<UInt>.size

  /// A descriptor for `record`'s block, in the hook region (the two words before it left for
  /// the dispatch and the site). Called under the hook table's lock.
  static func make(for record: HookedBlock) throws(BlockCallHookError) -> UnsafeMutableRawPointer {
    let prefix = Int(CBH_DESCRIPTOR_PREFIX)
    guard let region = cbh_descriptor_allocate(UInt(prefix + 6 * word)) else {
      throw BlockCallHookError(kind: .memoryProtection, message: "the region of hooked descriptors is full")
    }
    let copy = region + prefix
    let original = record.originalDescriptor
    let flags = record.flags
    let hadHelpers = flags.contains(.hasCopyDispose)
    var words = [original.load(as: UInt.self), original.load(fromByteOffset: word, as: UInt.self)]
    if hadHelpers || record.kind == .heap {
      let ownCopy = hadHelpers ? original.load(fromByteOffset: 2 * word, as: UInt.self) : 0
      let ownDispose = hadHelpers ? original.load(fromByteOffset: 3 * word, as: UInt.self) : 0
      words.append(ownCopy == 0 ? unsafeBitCast(copyNothing, to: UInt.self) : ownCopy)
      words.append(record.kind == .heap ? unsafeBitCast(dispose, to: UInt.self) : ownDispose)
    }
    if flags.contains(.hasSignature) {
      let partThree = original + (hadHelpers ? 4 : 2) * word
      words.append(partThree.load(as: UInt.self))
      words.append(partThree.load(fromByteOffset: word, as: UInt.self))
    }
    for (index, value) in words.enumerated() { copy.storeBytes(of: value, toByteOffset: index * word, as: UInt.self) }
    return copy
  }

  /// The dispose helper of the block's own descriptor, or nil.
  static func ownDispose(of original: UnsafeRawPointer, flags: BlockFlags) -> UnsafeRawPointer? {
    guard flags.contains(.hasCopyDispose) else { return nil }
    return original.load(fromByteOffset: 3 * word, as: UnsafeRawPointer?.self)
  }

  /// The copy helper of a block that had none: a hooked heap block is never copied from the
  /// stack again, but the field must hold a function.
  private static let copyNothing: @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?) -> Void = { _, _ in }

  /// The dispose helper of every hooked heap block.
  private static let dispose: @convention(c) (UnsafeRawPointer?) -> Void = { block in
    guard let block else { return }
    HookTable.disposing(block)
  }
}
