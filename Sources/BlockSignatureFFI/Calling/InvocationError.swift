import BlockSignature

/// Why a block cannot be called as asked: a signature that cannot be called, a declaration the
/// block does not fit, or arguments that do not fit the signature. Says where: the argument
/// (numbered as in the signature, the block itself being argument 0) and the path inside it.
///
///     do { _ = try invocation.invoke([.signed(300)]) } catch {
///       print(error)  // argument 1: 300 does not fit unsigned char (0...255)
///     }
public struct InvocationError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public var kind: Kind
  /// The argument concerned (0 is the block, `nil` for the return value or the whole call).
  public var argument: Int?
  /// The path inside the argument: `member 1`, `element 0`, `real part`.
  public var path: [String]
  /// Why, in a sentence.
  public var message: String
  /// The checker's findings, for ``Kind/incompatibleSignature``.
  public var diagnostics: [Diagnostic]

  /// Creates an error.
  public init(kind: Kind, argument: Int? = nil, path: [String] = [], message: String, diagnostics: [Diagnostic] = []) {
    self.kind = kind
    self.argument = argument
    self.path = path
    self.message = message
    self.diagnostics = diagnostics
  }

  /// Where, then why: `argument 2 → member 1 → element 0: 300 does not fit unsigned char`.
  public var description: String {
    var place: [String] = []
    if let argument {
      place.append("argument \(argument)")
    } else if kind.concernsReturn {
      place.append("return value")
    }
    place += path
    return place.isEmpty ? message : place.joined(separator: " → ") + ": " + message
  }

  /// The kinds of invocation errors.
  public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The block has no signature and none was declared.
    case missingSignature
    /// The signature (the block's or the declared one) does not parse or is not a block's.
    case invalidSignature
    /// The declared signature does not fit the block's own at the chosen level.
    case incompatibleSignature
    /// A type whose calling convention the encoding does not decide (a vector, a NeXT
    /// bitfield, an unexpanded structure) or that libffi cannot be told.
    case unsupportedType
    /// A type of the return value that cannot be called; ``InvocationError/argument`` is nil.
    case unsupportedReturnType
    /// The number of arguments differs from the signature's.
    case argumentCount
    /// A value of the wrong kind for its type (a string for an `int`, 3 members for 2).
    case typeMismatch
    /// A value that does not fit its type (300 for an `unsigned char`).
    case outOfRange
    /// libffi refused the call interface.
    case preparationFailed
    /// The pointer is not a readable block.
    case notABlock

    /// What the kind means, in a few words.
    public var description: String {
      switch self {
      case .missingSignature: "missing signature"
      case .invalidSignature: "invalid signature"
      case .incompatibleSignature: "incompatible signature"
      case .unsupportedType: "unsupported type"
      case .unsupportedReturnType: "unsupported return type"
      case .argumentCount: "wrong argument count"
      case .typeMismatch: "type mismatch"
      case .outOfRange: "value out of range"
      case .preparationFailed: "call interface refused"
      case .notABlock: "not a block"
      }
    }

    var concernsReturn: Bool { self == .unsupportedReturnType }
  }
}
