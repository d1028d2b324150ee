/// How serious a finding is.
///
///     diagnostic.severity == .error  // the signatures are not compatible
public enum DiagnosticSeverity: String, Hashable, Sendable, Codable, CaseIterable {
  /// The candidate cannot be used where the expected signature is required.
  case error
  /// Usable, but something differs that may matter (signedness, an ignored return value).
  case warning
  /// Extra information about another finding.
  case note
}

/// A stable identifier for a diagnostic message (swift-syntax `MessageID`).
///
///     MessageID(domain: "BlockSignature", id: "sizeMismatch")
public struct MessageID: Hashable, Sendable, CustomStringConvertible {
  /// The library that defines the message.
  public var domain: String
  /// The message's name in its catalog.
  public var id: String

  /// Creates an identifier.
  public init(domain: String, id: String) {
    self.domain = domain
    self.id = id
  }

  /// `domain.id`.
  public var description: String { "\(domain).\(id)" }
}

/// A message from the catalog: text, identifier and severity (swift-syntax `DiagnosticMessage`).
public struct DiagnosticMessage: Hashable, Sendable {
  /// Lower-case text naming the position, the numbers and both encodings.
  public var message: String
  /// The catalog identifier.
  public var id: MessageID
  /// The default severity.
  public var severity: DiagnosticSeverity

  /// Creates a message.
  public init(message: String, id: MessageID, severity: DiagnosticSeverity) {
    self.message = message
    self.id = id
    self.severity = severity
  }
}

/// One finding of a compatibility check: where, what, how serious, and how to fix it.
///
///     let report = try CompatibilityChecker(level: .abi).check(
///       try SignatureEncoding(parsing: "v20@?0q8i16"), against: try SignatureEncoding(parsing: "v16@?0i8i12"))
///     let diagnostic = report.diagnostics[0]
///     diagnostic.message                       // argument 1: size 8 does not match size 4 (q vs i)
///     diagnostic.location.position             // .argument(1)
///     diagnostic.fixIts.first?.replacement     // i
///
/// Modelled on swift-syntax's `Diagnostic`.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
  /// How serious it is.
  public var severity: DiagnosticSeverity
  /// The text: lower case, no final full stop, naming the numbers.
  public var message: String
  /// The catalog identifier.
  public var id: MessageID
  /// Where it is, in both signatures.
  public var location: Location
  /// Extra findings attached to this one.
  public var notes: [Note]
  /// Replacements that would make the candidate match.
  public var fixIts: [FixIt]

  /// Creates a diagnostic.
  public init(
    severity: DiagnosticSeverity, message: String, id: MessageID, location: Location, notes: [Note] = [],
    fixIts: [FixIt] = []
  ) {
    self.severity = severity
    self.message = message
    self.id = id
    self.location = location
    self.notes = notes
    self.fixIts = fixIts
  }

  /// Creates a diagnostic from a catalog message.
  public init(_ message: DiagnosticMessage, location: Location, notes: [Note] = [], fixIts: [FixIt] = []) {
    self.init(
      severity: message.severity, message: message.message, id: message.id, location: location, notes: notes,
      fixIts: fixIts)
  }

  /// `error: argument 1: size 8 does not match size 4 (q vs i)`.
  public var description: String { "\(severity.rawValue): \(message)" }
}

extension Diagnostic {
  /// A place in a signature: the return value, one argument, or the signature as a whole.
  public enum Position: Hashable, Sendable, CustomStringConvertible {
    /// The whole signature (argument counts, forms).
    case signature
    /// The return type.
    case returnValue
    /// The argument at this index in the candidate, hidden arguments counted (a block's
    /// first explicit argument is 1, a method's is 2).
    case argument(Int)

    /// `signature`, `return` or `argument 2`.
    public var description: String {
      switch self {
      case .signature: "signature"
      case .returnValue: "return"
      case .argument(let index): "argument \(index)"
      }
    }
  }

  /// Where a diagnostic applies: the position, the two encodings found there, and their byte
  /// ranges in the candidate and expected signatures as written.
  public struct Location: Hashable, Sendable {
    /// The position, numbered in the candidate.
    public var position: Position
    /// The candidate's encoding at the position (the whole signature for ``Position/signature``;
    /// empty when the candidate has no such argument).
    public var candidate: String
    /// The expected encoding at the position.
    public var expected: String
    /// The bytes of ``candidate`` in the candidate signature's text.
    public var candidateRange: Range<Int>?
    /// The bytes of ``expected`` in the expected signature's text.
    public var expectedRange: Range<Int>?

    /// Creates a location.
    public init(
      position: Position, candidate: String, expected: String, candidateRange: Range<Int>? = nil,
      expectedRange: Range<Int>? = nil
    ) {
      self.position = position
      self.candidate = candidate
      self.expected = expected
      self.candidateRange = candidateRange
      self.expectedRange = expectedRange
    }
  }

  /// Extra information attached to a diagnostic.
  public struct Note: Hashable, Sendable, CustomStringConvertible {
    /// The text.
    public var message: String
    /// The catalog identifier.
    public var id: MessageID

    /// Creates a note.
    public init(message: String, id: MessageID) {
      self.message = message
      self.id = id
    }

    /// Creates a note from a catalog message.
    public init(_ message: DiagnosticMessage) { self.init(message: message.message, id: message.id) }

    /// `note: …`.
    public var description: String { "note: \(message)" }
  }

  /// A replacement for bytes of the candidate signature: the encoding that would match.
  public struct FixIt: Hashable, Sendable {
    /// What the fix does: "replace q with i".
    public var message: String
    /// The candidate bytes to replace.
    public var range: Range<Int>
    /// The new encoding.
    public var replacement: String

    /// Creates a fix-it.
    public init(message: String, range: Range<Int>, replacement: String) {
      self.message = message
      self.range = range
      self.replacement = replacement
    }
  }
}
