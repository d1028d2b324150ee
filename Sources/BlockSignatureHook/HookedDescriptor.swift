// The descriptor a hooked heap block carries while hooked: the original's parts, with a
// dispose helper that runs the hooks' `onDispose` before the block's own dispose. One copy per
// original descriptor, made on first use and never freed (the runtime may be reading it when a
// hook is removed); its content depends only on the original's.

import BlockSignature
import Synchronization

/// Descriptor copies for hooked heap blocks.
enum HookedDescriptor {
  private static let word = MemoryLayout<UInt>.size
  private static let copies = Mutex<[UInt: UnsafeMutableRawPointer]>([:])

  /// The copy of the descriptor at `original`, for a block with `flags`: part 1 as it is,
  /// part 2 with this module's dispose helper (and the block's own copy helper, or one that
  /// does nothing), part 3 as it is when the flags announce it.
  static func copy(of original: UnsafeRawPointer, flags: BlockFlags) -> UnsafeMutableRawPointer {
    let key = UInt(bitPattern: original)
    return copies.withLock { copies in
      if let copy = copies[key] { return copy }
      let hasHelpers = flags.contains(.hasCopyDispose)
      let partThree = original + (hasHelpers ? 4 : 2) * word
      let copy = UnsafeMutableRawPointer.allocate(byteCount: 6 * word, alignment: word)
      copy.storeBytes(of: original.load(as: UInt.self), as: UInt.self)
      copy.storeBytes(of: original.load(fromByteOffset: word, as: UInt.self), toByteOffset: word, as: UInt.self)
      let ownCopy = hasHelpers ? original.load(fromByteOffset: 2 * word, as: UInt.self) : 0
      let noCopy = unsafeBitCast(copyNothing, to: UInt.self)
      copy.storeBytes(of: ownCopy == 0 ? noCopy : ownCopy, toByteOffset: 2 * word, as: UInt.self)
      copy.storeBytes(of: unsafeBitCast(dispose, to: UInt.self), toByteOffset: 3 * word, as: UInt.self)
      let hasPartThree = flags.contains(.hasSignature)
      copy.storeBytes(of: hasPartThree ? partThree.load(as: UInt.self) : 0, toByteOffset: 4 * word, as: UInt.self)
      copy.storeBytes(
        of: hasPartThree ? partThree.load(fromByteOffset: word, as: UInt.self) : 0, toByteOffset: 5 * word,
        as: UInt.self)
      copies[key] = copy
      return copy
    }
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
