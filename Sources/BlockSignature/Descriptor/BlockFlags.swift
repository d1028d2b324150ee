/// The flags word of a block literal.
///
/// Compiler-set bits describe the literal and its descriptor; runtime-set bits (the
/// reference count, `needsFree`, `deallocating`) change while a heap block lives.
///
///     let flags = BlockFlags(rawValue: 0x5000_0000)
///     flags.contains(.hasSignature)  // true
///     flags.contains(.isGlobal)      // true
///
/// The corresponding clang ABI field is `Block_layout.flags`.
public struct BlockFlags: OptionSet, Hashable, Sendable, Codable, CustomStringConvertible {
  /// The flags word as the block holds it.
  public var rawValue: Int32

  /// Creates a set of flags from the word.
  @inlinable public init(rawValue: Int32) { self.rawValue = rawValue }

  /// Set by the runtime while a heap block is being freed (low bit of the count word).
  public static let deallocating = BlockFlags(rawValue: 0x0001)
  /// Set by the compiler: small descriptors keep their layout string inline.
  public static let inlineLayoutString = BlockFlags(rawValue: 1 << 21)
  /// Set by the compiler: the descriptor uses 32-bit self-relative fields.
  public static let smallDescriptor = BlockFlags(rawValue: 1 << 22)
  /// Set by the compiler: a stack block passed to a `noescape` parameter.
  public static let isNoescape = BlockFlags(rawValue: 1 << 23)
  /// Set by the runtime: the block is a heap copy.
  public static let needsFree = BlockFlags(rawValue: 1 << 24)
  /// Set by the compiler: descriptor part 2 (copy and dispose helpers) is present.
  public static let hasCopyDispose = BlockFlags(rawValue: 1 << 25)
  /// Set by the compiler: the helpers run C++ code.
  public static let hasCtor = BlockFlags(rawValue: 1 << 26)
  /// Set by the runtime under garbage collection (obsolete).
  public static let isGC = BlockFlags(rawValue: 1 << 27)
  /// Set by the compiler: the literal is a global block.
  public static let isGlobal = BlockFlags(rawValue: 1 << 28)
  /// Set by the compiler: the block returns its value through a hidden pointer (only
  /// meaningful with ``hasSignature``).
  public static let useStret = BlockFlags(rawValue: 1 << 29)
  /// Set by the compiler: descriptor part 3 (signature and layout) is present.
  public static let hasSignature = BlockFlags(rawValue: 1 << 30)
  /// Set by the compiler: the layout field holds an extended layout.
  public static let hasExtendedLayout = BlockFlags(rawValue: Int32(bitPattern: 0x8000_0000))

  /// The bits that hold the reference count under libclosure's convention (units of 2).
  public static let referenceCountMask: Int32 = 0xfffe

  /// Every named flag with its ABI spelling, in bit order.
  public static let allNamed: [(flag: BlockFlags, name: String)] = [
    (.deallocating, "BLOCK_DEALLOCATING"),
    (.inlineLayoutString, "BLOCK_INLINE_LAYOUT_STRING"),
    (.smallDescriptor, "BLOCK_SMALL_DESCRIPTOR"),
    (.isNoescape, "BLOCK_IS_NOESCAPE"),
    (.needsFree, "BLOCK_NEEDS_FREE"),
    (.hasCopyDispose, "BLOCK_HAS_COPY_DISPOSE"),
    (.hasCtor, "BLOCK_HAS_CTOR"),
    (.isGC, "BLOCK_IS_GC"),
    (.isGlobal, "BLOCK_IS_GLOBAL"),
    (.useStret, "BLOCK_USE_STRET"),
    (.hasSignature, "BLOCK_HAS_SIGNATURE"),
    (.hasExtendedLayout, "BLOCK_HAS_EXTENDED_LAYOUT"),
  ]

  /// The ABI names of the flag bits that are set, refcount bits left out.
  ///
  ///     BlockFlags(rawValue: 0x5000_0000).names  // ["BLOCK_IS_GLOBAL", "BLOCK_HAS_SIGNATURE"]
  public var names: [String] {
    Self.allNamed.compactMap { contains($0.flag) ? $0.name : nil }
  }

  /// Bits 16–20, which no ABI revision defines.
  public var undefinedBits: Int32 { rawValue & 0x001f_0000 }

  /// The flags as hexadecimal followed by their names.
  public var description: String {
    let hex = UInt32(bitPattern: rawValue).hexadecimal()
    return names.isEmpty ? hex : "\(hex) [\(names.joined(separator: ", "))]"
  }

  @available(*, unavailable, renamed: "hasSignature")
  public static var BLOCK_HAS_SIGNATURE: BlockFlags { .hasSignature }
  @available(*, unavailable, renamed: "hasCopyDispose")
  public static var BLOCK_HAS_COPY_DISPOSE: BlockFlags { .hasCopyDispose }
  @available(*, unavailable, renamed: "isGlobal")
  public static var BLOCK_IS_GLOBAL: BlockFlags { .isGlobal }
  @available(*, unavailable, renamed: "useStret")
  public static var BLOCK_USE_STRET: BlockFlags { .useStret }
  @available(*, unavailable, renamed: "hasExtendedLayout")
  public static var BLOCK_HAS_EXTENDED_LAYOUT: BlockFlags { .hasExtendedLayout }
  @available(*, unavailable, renamed: "isNoescape")
  public static var BLOCK_IS_NOESCAPE: BlockFlags { .isNoescape }
  @available(*, unavailable, renamed: "needsFree")
  public static var BLOCK_NEEDS_FREE: BlockFlags { .needsFree }
}

/// Where a block lives, as its flags tell (never its `isa`, which Debian's runtime leaves
/// pointing at the stack class after a copy).
///
///     BlockKind(flags: BlockFlags(rawValue: 0x5000_0000))  // .global
public enum BlockKind: String, Hashable, Sendable, Codable, CaseIterable {
  /// A literal with no captures, emitted as a constant (`BLOCK_IS_GLOBAL`).
  case global
  /// A copy made by `_Block_copy` (`BLOCK_NEEDS_FREE`).
  case heap
  /// A literal on the stack.
  case stack
  /// A stack literal passed to a `noescape` parameter (`BLOCK_IS_NOESCAPE`).
  case noescape

  /// The kind the flags describe. clang sets `BLOCK_IS_GLOBAL` on noescape literals too
  /// (so that copying them is a no-op): `BLOCK_IS_NOESCAPE` is tested first.
  public init(flags: BlockFlags) {
    if flags.contains(.isNoescape) {
      self = .noescape
    } else if flags.contains(.isGlobal) {
      self = .global
    } else if flags.contains(.needsFree) {
      self = .heap
    } else {
      self = .stack
    }
  }
}
