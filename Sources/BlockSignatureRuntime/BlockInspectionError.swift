/// Why a live block could not be read.
///
///     do { _ = try BlockInfo(inspecting: nil) }
///     catch { print(error) }  // "block at 0x0: null block pointer"
///
/// What cannot be detected: a pointer into readable memory that merely is not a block
/// (the checks catch what is unmapped, misaligned or inconsistent, not every lie).

import BlockSignature
import BlockSignatureBinary

public struct BlockInspectionError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The kind of failure. Extensible: new kinds may be added.
  public struct Kind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The kind's name, as `description` and JSON print it.
    public var rawValue: String
    /// Creates a kind from its name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The kind's name.
    public var description: String { rawValue }

    /// The block pointer is NULL.
    public static let nullPointer = Kind(rawValue: "nullPointer")
    /// The block pointer is not aligned to a pointer.
    public static let misaligned = Kind(rawValue: "misaligned")
    /// Memory the block or its descriptor claims is not mapped.
    public static let unreadableMemory = Kind(rawValue: "unreadableMemory")
    /// The block's descriptor pointer is NULL.
    public static let nullDescriptor = Kind(rawValue: "nullDescriptor")
    /// The descriptor records a size no block can have.
    public static let implausibleSize = Kind(rawValue: "implausibleSize")
    /// The signature string has no NUL within the limit.
    public static let unterminatedSignature = Kind(rawValue: "unterminatedSignature")
    /// The extended layout bytes are malformed.
    public static let malformedLayout = Kind(rawValue: "malformedLayout")
    /// The object does not look like a block (its `isa` is no blocks runtime class).
    public static let notABlock = Kind(rawValue: "notABlock")
    /// The process to read from does not exist or may not be read (another user, Yama's
    /// `ptrace_scope`).
    public static let processNotReadable = Kind(rawValue: "processNotReadable")
    /// The process's pointers are not this process's size (a 32-bit program read from a
    /// 64-bit one): its blocks cannot be read with this process's mirror of the ABI.
    public static let unsupportedProcess = Kind(rawValue: "unsupportedProcess")
  }

  /// The kind of failure.
  public var kind: Kind
  /// The address where reading failed (the block, its descriptor or a string).
  public var address: UInt
  /// The block the failing address was read from, when that address is not the block's own
  /// (a descriptor, a signature or a layout string it points to); nil when it is the block.
  public var blockAddress: UInt?
  /// What went wrong, in words.
  public var reason: String

  /// Creates an error; `blockAddress` is nil when `address` is the block's own.
  public init(kind: Kind, address: UInt, blockAddress: UInt? = nil, reason: String) {
    self.kind = kind
    self.address = address
    self.blockAddress = blockAddress == address ? nil : blockAddress
    self.reason = reason
  }

  /// The block's address, then the reason, which names the failing address when it is not the
  /// block's: `block at 0x5000: descriptor at 0x4 (16 bytes for flags 0x2) is not readable memory`.
  public var description: String { "block at \((blockAddress ?? address).hexadecimal()): \(reason)" }
}
