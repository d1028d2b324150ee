// Why a Swift function type given as text has no block encoding.

/// A Swift type that cannot be read or has no C encoding, with the byte offset.
///
///     do {
///       _ = try SwiftFunctionType(parsing: "(String) -> Void")
///     } catch {
///       print(error)  // type String has no C encoding at offset 1
///     }
public struct SwiftTypeError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public var kind: Kind
  /// The byte offset into ``input``.
  public var offset: Int
  /// The text being parsed.
  public var input: String
  /// The reason, lower case.
  public var message: String

  /// Creates an error.
  public init(kind: Kind, offset: Int, input: String, message: String) {
    self.kind = kind
    self.offset = offset
    self.input = input
    self.message = message
  }

  /// "type String has no C encoding at offset 1".
  public var description: String { "\(message) at offset \(offset)" }

  /// Where the problem is: ``range`` in ``input``, a Swift type.
  public var location: InputLocation { InputLocation(.swiftType, text: input, bytes: range) }

  /// The bytes of ``input`` the problem covers: the name that starts at ``offset`` (`String`
  /// in `(String) -> Void`), or the byte there; empty at the end of the input.
  ///
  ///     try? SwiftFunctionType(parsing: "(String) -> Void")  // error.range == 1..<7
  public var range: Range<Int> {
    let utf8 = Array(input.utf8)
    let start = min(max(0, offset), utf8.count)
    func isNamePart(_ byte: UInt8) -> Bool {
      byte == 0x5F || (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
    var end = start
    while end < utf8.count, isNamePart(utf8[end]) { end += 1 }
    return start..<max(end, min(start + 1, utf8.count))
  }

  /// The kind of a ``SwiftTypeError``.
  public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Text that is not a Swift function type.
    case unexpectedText
    /// A type with no C representation.
    case notRepresentable
    /// Types nested beyond ``ParseOptions/maximumNestingDepth``.
    case nestingTooDeep
    /// No data model to map the types on: none was given, and no built-in model describes
    /// this machine.
    case unknownDataModel

    /// What the kind means, in a few words.
    public var description: String {
      switch self {
      case .unexpectedText: "unexpected text"
      case .notRepresentable: "not representable"
      case .nestingTooDeep: "nesting too deep"
      case .unknownDataModel: "unknown data model"
      }
    }
  }
}
