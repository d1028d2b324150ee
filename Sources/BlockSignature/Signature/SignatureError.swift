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
  /// What went wrong, lower case, naming the numbers.
  public var message: String
  /// The parser's error, for ``Kind/malformedEncoding``.
  public var encodingError: EncodingError?

  /// Creates an error.
  public init(kind: Kind, signature: String, message: String, encodingError: EncodingError? = nil) {
    self.kind = kind
    self.signature = signature
    self.message = message
    self.encodingError = encodingError
  }

  /// Where the problem is, when the signature did not parse: the parser's location.
  public var location: InputLocation? { encodingError?.location }

  /// Wraps a parser error.
  public init(_ error: EncodingError) {
    self.init(
      kind: .malformedEncoding, signature: error.input, message: error.description, encodingError: error)
  }

  /// Wraps a layout error.
  public init(_ error: LayoutError, signature: String) {
    self.init(kind: .layoutOverflow, signature: signature, message: error.description)
  }

  /// "cannot convert v24@0:8@16 from block form: argument 0 is @, not a block (@?)".
  public var description: String {
    switch kind {
    case .malformedEncoding: "malformed signature \(signature): \(message)"
    case .notConvertible: "cannot convert \(signature) \(message)"
    default: signature.isEmpty ? message : "\(signature): \(message)"
    }
  }

  /// The kind of a ``SignatureError``.
  public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The text is not a valid encoding (see ``SignatureError/encodingError``).
    case malformedEncoding
    /// A size or offset does not fit in `Int`.
    case layoutOverflow
    /// The signature does not have the form the conversion starts from.
    case notConvertible
    /// A live block carries no signature.
    case missingSignature
    /// An argument index is out of range.
    case argumentOutOfRange
    /// No data model was given and none describes this machine (`DataModel.host` is nil).
    case unknownDataModel

    /// What the kind means, in a few words.
    public var description: String {
      switch self {
      case .malformedEncoding: "malformed encoding"
      case .layoutOverflow: "layout overflow"
      case .notConvertible: "not convertible"
      case .missingSignature: "missing signature"
      case .argumentOutOfRange: "argument out of range"
      case .unknownDataModel: "unknown data model"
      }
    }
  }
}

extension DataModel {
  /// `model`, or the error a signature API throws when it was left to ``DataModel/host`` on a
  /// machine no built-in model describes.
  static func required(_ model: DataModel?, for signature: @autoclosure () -> String) throws(SignatureError)
    -> DataModel
  {
    guard let model else {
      throw SignatureError(
        kind: .unknownDataModel, signature: signature(),
        message: "no data model describes this machine: pass one (model:)")
    }
    return model
  }
}
