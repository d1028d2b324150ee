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
  /// The kind of failure.
  public enum Kind: String, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// The block pointer is NULL.
    case nullPointer
    /// The block pointer is not aligned to a pointer.
    case misaligned
    /// Memory the block or its descriptor claims is not mapped.
    case unreadableMemory
    /// The block's descriptor pointer is NULL.
    case nullDescriptor
    /// The descriptor records a size no block can have.
    case implausibleSize
    /// The signature string has no NUL within the limit.
    case unterminatedSignature
    /// The extended layout bytes are malformed.
    case malformedLayout
    /// The object does not look like a block (its `isa` is no blocks runtime class).
    case notABlock
    /// The process to read from does not exist or may not be read (another user, Yama's
    /// `ptrace_scope`).
    case processNotReadable
    /// The process's pointers are not this process's size (a 32-bit program read from a
    /// 64-bit one): its blocks cannot be read with this process's mirror of the ABI.
    case unsupportedProcess

    /// What the kind means, in a few words.
    public var description: String {
      switch self {
      case .nullPointer: "null block pointer"
      case .misaligned: "misaligned block pointer"
      case .unreadableMemory: "unreadable memory"
      case .nullDescriptor: "null descriptor"
      case .implausibleSize: "implausible size"
      case .unterminatedSignature: "unterminated signature"
      case .malformedLayout: "malformed layout"
      case .notABlock: "not a block"
      case .processNotReadable: "process not readable"
      case .unsupportedProcess: "unsupported process"
      }
    }
  }

  /// The kind of failure.
  public var kind: Kind
  /// The address where reading failed (the block, its descriptor or a string).
  public var address: UInt
  /// The block the failing address was read from, when that address is not the block's own
  /// (a descriptor, a signature or a layout string it points to); nil when it is the block.
  public var blockAddress: UInt?
  /// What went wrong, in words.
  public var message: String

  /// Creates an error; `blockAddress` is nil when `address` is the block's own.
  public init(kind: Kind, address: UInt, blockAddress: UInt? = nil, message: String) {
    self.kind = kind
    self.address = address
    self.blockAddress = blockAddress == address ? nil : blockAddress
    self.message = message
  }

  /// The block's address, then the message, which names the failing address when it is not the
  /// block's: `block at 0x5000: descriptor at 0x4 (16 bytes for flags 0x2) is not readable memory`.
  public var description: String { "block at \((blockAddress ?? address).hexadecimal()): \(message)" }
}
