import BlockSignature

/// Why an Objective-C operation failed: what kind of failure, a sentence saying where and why,
/// and, for an exception the runtime raised, its name and reason.
///
///     do { _ = try array.send("objectAtIndex:", .unsigned(5)) } catch {
///       print(error.exceptionName ?? "")  // NSRangeException
///     }
public struct ObjCError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public var kind: Kind
  /// Where and why, in a sentence.
  public var message: String
  /// The name of the `NSException` raised (``Kind/exception`` only).
  public var exceptionName: String?
  /// The reason of the `NSException` raised (``Kind/exception`` only).
  public var exceptionReason: String?
  /// The checker's findings, for ``Kind/incompatibleSignature``.
  public var diagnostics: [Diagnostic]

  /// Creates an error.
  public init(
    kind: Kind, message: String, exceptionName: String? = nil, exceptionReason: String? = nil,
    diagnostics: [Diagnostic] = []
  ) {
    self.kind = kind
    self.message = message
    self.exceptionName = exceptionName
    self.exceptionReason = exceptionReason
    self.diagnostics = diagnostics
  }

  /// The message.
  public var description: String { message }

  /// The kinds of Objective-C errors.
  public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// GNUstep Base (the Foundation classes: `NSObject`, `NSString`, …) is not loaded and
    /// cannot be.
    case foundationUnavailable
    /// No class has that name.
    case unknownClass
    /// No protocol has that name, or the runtime records none of its methods.
    case unknownProtocol
    /// The receiver's class has no method for the selector (and nothing it forwards to answers
    /// it: ``ObjCError/exceptionName`` then holds what `doesNotRecognizeSelector:` raised), or
    /// the protocol does not list it.
    case unknownSelector
    /// Types that do not parse, or a method signature that is not one.
    case invalidSignature
    /// A block, or declared types, that do not fit the method's types at the chosen level.
    case incompatibleSignature
    /// A type the call cannot pass, a value of the wrong kind, a wrong argument count.
    case invalidCall
    /// The code called raised an Objective-C exception.
    case exception
    /// The runtime refused a change: a class name taken, a method already defined, a class
    /// already registered.
    case refused

    /// What the kind means, in a few words.
    public var description: String {
      switch self {
      case .foundationUnavailable: "Foundation unavailable"
      case .unknownClass: "unknown class"
      case .unknownProtocol: "unknown protocol"
      case .unknownSelector: "unknown selector"
      case .invalidSignature: "invalid signature"
      case .incompatibleSignature: "incompatible signature"
      case .invalidCall: "invalid call"
      case .exception: "Objective-C exception"
      case .refused: "refused by the runtime"
      }
    }
  }
}
