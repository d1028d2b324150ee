import BlockSignature

/// Why a callback table or a delegate refused what was asked: where (the member, or the line of
/// a table's text form) and why, with the checker's diagnostics for a block that does not fit.
///
///     do { try delegate.implement("characters", withBlock: block) } catch {
///       print(error)  // member characters: the block's signature v24@?0r*8d16 does not fit …
///     }
public struct DelegateError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public var kind: Kind
  /// The member concerned, when there is one.
  public var member: String?
  /// The line of the text form (1-based), for ``Kind/invalidDescription``.
  public var line: Int?
  /// Why, in a sentence.
  public var message: String
  /// The checker's findings, for ``Kind/incompatibleBlock``.
  public var diagnostics: [Diagnostic]

  /// Creates an error.
  public init(
    kind: Kind, member: String? = nil, line: Int? = nil, message: String, diagnostics: [Diagnostic] = []
  ) {
    self.kind = kind
    self.member = member
    self.line = line
    self.message = message
    self.diagnostics = diagnostics
  }

  /// Where the problem is in a callback table's text form: ``line``, when there is one.
  public var location: InputLocation? { line.map { InputLocation(.textForm, line: $0, bytes: 0..<0) } }

  /// Where, then why: `line 3: …`, `member startElement: …`.
  public var description: String {
    var place: [String] = []
    if let line { place.append("line \(line)") }
    if let member { place.append("member \(member)") }
    return place.isEmpty ? message : place.joined(separator: ", ") + ": " + message
  }

  /// The kinds of delegate errors.
  public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// A table description that does not parse or names a member twice.
    case invalidDescription
    /// A table whose layout the encodings do not decide (a NeXT bitfield, a packed record).
    case undecidableLayout
    /// A member's signature that cannot be called (the same refusals as BlockSignatureFFI's `BlockInvocation`).
    case uncallableMember
    /// No member has that name.
    case unknownMember
    /// A function member used as data, or a data member as a function.
    case wrongMemberKind
    /// The block's signature does not fit the member's at the delegate's level.
    case incompatibleBlock
    /// The block cannot be called (not a block, a type that cannot be called).
    case invalidBlock
    /// The member has no function in the table (no block, no real delegate's function).
    case unimplemented
    /// A value of the wrong kind or out of range for a member or an argument.
    case invalidValue

    /// What the kind means, in a few words.
    public var description: String {
      switch self {
      case .invalidDescription: "invalid table description"
      case .undecidableLayout: "undecidable table layout"
      case .uncallableMember: "member cannot be called"
      case .unknownMember: "unknown member"
      case .wrongMemberKind: "wrong member kind"
      case .incompatibleBlock: "incompatible block"
      case .invalidBlock: "invalid block"
      case .unimplemented: "unimplemented member"
      case .invalidValue: "invalid value"
      }
    }
  }
}
