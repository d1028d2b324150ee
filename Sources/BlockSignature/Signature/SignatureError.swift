/// A signature that cannot be read, laid out or converted, with the reason.
///
///     do {
///       _ = try SignatureEncoding(parsing: "v24@0:8@16").converted(from: .block, to: .method)
///     } catch {
///       print(error)  // cannot convert v24@0:8@16 from block form: argument 0 is @, not a block (@?)
///     }
///
/// Malformed text keeps the parser's ``EncodingError`` (and with it the byte offset) in
/// ``encodingError``.
public struct SignatureError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public var kind: Kind
  /// The signature concerned, as written.
  public var signature: String
  /// The reason, lower case, naming the numbers.
  public var reason: String
  /// The parser's error, for ``Kind/malformedEncoding``.
  public var encodingError: EncodingError?

  /// Creates an error.
  public init(kind: Kind, signature: String, reason: String, encodingError: EncodingError? = nil) {
    self.kind = kind
    self.signature = signature
    self.reason = reason
    self.encodingError = encodingError
  }

  /// Wraps a parser error.
  public init(_ error: EncodingError) {
    self.init(
      kind: .malformedEncoding, signature: error.input, reason: error.description, encodingError: error)
  }

  /// Wraps a layout error.
  public init(_ error: LayoutError, signature: String) {
    self.init(kind: .layoutOverflow, signature: signature, reason: error.description)
  }

  /// "cannot convert v24@0:8@16 from block form: argument 0 is @, not a block (@?)".
  public var description: String {
    switch kind {
    case .malformedEncoding: "malformed signature \(signature): \(reason)"
    case .notConvertible: "cannot convert \(signature) \(reason)"
    default: "\(signature): \(reason)"
    }
  }

  /// The kind of a ``SignatureError``; an extensible set of static values.
  public struct Kind: RawRepresentable, Hashable, Sendable {
    /// The identifier, such as `"notConvertible"`.
    public var rawValue: String
    /// Creates a kind.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The text is not a valid encoding (see ``SignatureError/encodingError``).
    public static var malformedEncoding: Kind { Kind(rawValue: "malformedEncoding") }
    /// A size or offset does not fit in `Int`.
    public static var layoutOverflow: Kind { Kind(rawValue: "layoutOverflow") }
    /// The signature does not have the form the conversion starts from.
    public static var notConvertible: Kind { Kind(rawValue: "notConvertible") }
    /// A live block carries no signature.
    public static var missingSignature: Kind { Kind(rawValue: "missingSignature") }
    /// An argument index is out of range.
    public static var argumentOutOfRange: Kind { Kind(rawValue: "argumentOutOfRange") }
    /// No data model was given and none describes this machine (`DataModel.host` is nil).
    public static var unknownDataModel: Kind { Kind(rawValue: "unknownDataModel") }
  }
}
