import BlockSignatureFFI

/// Why a hook could not be put on a block, or taken off it.
///
///     do {
///       _ = try BlockCallHook(on: block, before: { _ in })
///     } catch {
///       print(error.kind, error.message)  // stackBlock "the block lives in its caller's frame …"
///     }
public struct BlockCallHookError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The kinds of refusal.
  public enum Kind: String, Hashable, Sendable {
    /// The pointer is not a readable block.
    case notABlock
    /// A stack or noescape block: its frame ends when its maker returns, and the hook with it.
    case stackBlock
    /// The block has no signature and none was declared.
    case missingSignature
    /// The signature, the block's own or the declared one, does not parse or does not fit.
    case invalidSignature
    /// A type no call can pass (the same refusals as `BlockInvocation`).
    case unsupportedType
    /// The caller declared the block variadic: its encoding lists only the fixed arguments, so
    /// a hook could not pass the others on.
    case variadic
    /// The descriptor is in a form this platform's runtimes do not use (small, self-relative).
    case unsupportedDescriptor
    /// The block's memory could not be written (its page could not be made writable).
    case memoryProtection
  }

  /// What went wrong.
  public var kind: Kind
  /// Why, in words.
  public var message: String

  /// Makes an error of `kind` that says `message`.
  public init(kind: Kind, message: String) {
    self.kind = kind
    self.message = message
  }

  /// The error for an ``InvocationError`` raised while preparing the hook's calls.
  init(_ error: InvocationError) {
    let kind: Kind =
      switch error.kind {
      case .missingSignature: .missingSignature
      case .invalidSignature, .incompatibleSignature: .invalidSignature
      case .notABlock: .notABlock
      default: .unsupportedType
      }
    self.init(kind: kind, message: error.description)
  }

  /// The kind and the message.
  public var description: String { "\(kind.rawValue): \(message)" }
}
