// The catalog of compatibility messages, in alphabetical order. Each message's identifier is
// the name of the function that makes it (swift-syntax `ParserDiagnosticMessages.swift`).
// Text is lower case, has no final full stop, and names the position, the numbers and both
// encodings.

/// The messages a compatibility check can produce.
///
///     CompatibilityMessages.sizeMismatch(.argument(2), 8, 4, "q", "i").message
///     // argument 2: size 8 does not match size 4 (q vs i)
public enum CompatibilityMessages {
  /// The domain of every message here.
  public static let domain = "BlockSignature"

  private static func make(_ severity: DiagnosticSeverity, _ text: String, function: String = #function)
    -> DiagnosticMessage
  {
    let name = function.prefix { $0 != "(" }
    return DiagnosticMessage(
      message: text, id: MessageID(domain: domain, id: String(name)), severity: severity)
  }

  /// Alignments differ for a type passed in memory.
  public static func alignmentMismatch(
    _ position: Diagnostic.Position, _ candidate: Int, _ expected: Int, _ candidateType: String,
    _ expectedType: String
  ) -> DiagnosticMessage {
    make(
      .error,
      "\(position): alignment \(candidate) does not match alignment \(expected) (\(candidateType) vs \(expectedType))"
    )
  }

  /// The explicit argument counts differ.
  public static func argumentCountMismatch(_ candidate: Int, _ expected: Int) -> DiagnosticMessage {
    make(
      .error,
      "signature: argument count \(candidate) does not match \(expected) (arguments after the block, self and _cmd)"
    )
  }

  /// Aspects: the block's argument 1 receives the aspect info object.
  public static func aspectsFirstArgumentNotObject(_ candidateType: String) -> DiagnosticMessage {
    make(
      .error,
      "argument 1: aspects passes its aspect info object (@) here, but the block takes \(candidateType)")
  }

  /// Aspects: the return type is not compared.
  public static func aspectsIgnoresReturn(_ candidateType: String, _ expectedType: String)
    -> DiagnosticMessage
  {
    make(.warning, "return: not compared at level aspects (\(candidateType) vs \(expectedType))")
  }

  /// Aspects: the block takes more arguments than the method passes.
  public static func aspectsTooManyArguments(_ candidate: Int, _ expected: Int) -> DiagnosticMessage {
    make(.error, "signature: the block takes \(counted(candidate, "argument")) but the method passes \(expected)")
  }

  /// BlocksKit: equal argument counts, so it cannot tell the method from the block.
  public static func blocksKitAmbiguousLength(_ count: Int) -> DiagnosticMessage {
    make(
      .error,
      "signature: both signatures have \(counted(count, "argument")), so blockskit cannot tell the block from the method"
    )
  }

  /// BlocksKit: the block must take exactly one argument fewer than the method.
  public static func blocksKitArgumentCount(_ block: Int, _ method: Int) -> DiagnosticMessage {
    make(
      .error,
      "signature: the block takes \(counted(block, "argument")); blockskit needs exactly \(method - 1) for a method with \(method)"
    )
  }

  /// BlocksKit: which side was taken as the method.
  public static func blocksKitLongerIsMethod(_ side: String, _ count: Int) -> DiagnosticMessage {
    make(.note, "blockskit takes the longer signature (\(side), \(counted(count, "argument"))) as the method")
  }

  /// A `_Bool` against another one-byte integer.
  public static func boolMismatch(
    _ position: Diagnostic.Position, _ candidateType: String, _ expectedType: String
  )
    -> DiagnosticMessage
  {
    make(
      .warning,
      "\(position): bool does not match a non-bool integer of size 1 (\(candidateType) vs \(expectedType)); a bool must be 0 or 1"
    )
  }

  /// First characters differ (the BlocksKit and Aspects rule).
  public static func firstCharacterMismatch(
    _ position: Diagnostic.Position, _ candidateCode: String, _ expectedCode: String, _ candidateType: String,
    _ expectedType: String
  ) -> DiagnosticMessage {
    make(
      .error,
      "\(position): type code '\(candidateCode)' does not match '\(expectedCode)' (\(candidateType) vs \(expectedType))"
    )
  }

  /// A value returned where void is expected.
  public static func ignoredReturnValue(_ candidateType: String) -> DiagnosticMessage {
    make(
      .warning, "return: the candidate returns \(candidateType) where void is expected; the value is ignored")
  }

  /// An integer against a pointer of the same size.
  public static func integerPointerMix(
    _ position: Diagnostic.Position, _ size: Int, _ candidateType: String, _ expectedType: String
  ) -> DiagnosticMessage {
    make(
      .warning,
      "\(position): an integer and a pointer share size \(size) and the integer class (\(candidateType) vs \(expectedType))"
    )
  }

  /// A looser level accepts what the equivalent level rejects.
  public static func looserMatch(
    _ position: Diagnostic.Position, _ level: CompatibilityLevel, _ candidateType: String,
    _ expectedType: String
  ) -> DiagnosticMessage {
    make(
      .warning,
      "\(position): \(level.rawValue) accepts \(candidateType) for \(expectedType) by first character only")
  }

  /// The candidate's argument maps to another index in the expected signature.
  public static func mapsToArgument(_ candidate: Int, _ expected: Int, _ form: SignatureEncoding.Kind)
    -> DiagnosticMessage
  {
    let name =
      switch form {
      case .block: "block"
      case .method: "method"
      case .types: "function"
      }
    return make(.note, "candidate argument \(candidate) is argument \(expected) of the expected \(name)")
  }

  /// Not equivalent, with the first structural difference.
  public static func notEquivalent(
    _ position: Diagnostic.Position, _ candidateType: String, _ expectedType: String, _ reason: String
  ) -> DiagnosticMessage {
    // A difference at the top (`i` vs `I`) would only say the same again.
    let detail = reason == "\(candidateType) is not \(expectedType)" ? "" : ": \(reason)"
    return make(.error, "\(position): \(candidateType) is not equivalent to \(expectedType)\(detail)")
  }

  /// Same size, different register class.
  public static func registerClassMismatch(
    _ position: Diagnostic.Position, _ candidateClass: String, _ expectedClass: String,
    _ candidateType: String,
    _ expectedType: String
  ) -> DiagnosticMessage {
    make(
      .error,
      "\(position): register class \(candidateClass) does not match \(expectedClass) (\(candidateType) vs \(expectedType))"
    )
  }

  /// Integers of the same size and different signedness.
  public static func signednessMismatch(
    _ position: Diagnostic.Position, _ size: Int, _ candidateType: String, _ expectedType: String,
    candidateIsSigned: Bool
  ) -> DiagnosticMessage {
    let (a, b) = candidateIsSigned ? ("signed", "unsigned") : ("unsigned", "signed")
    return make(
      .warning,
      "\(position): \(a) integer does not match \(b) integer of size \(size) (\(candidateType) vs \(expectedType))"
    )
  }

  /// Sizes differ.
  public static func sizeMismatch(
    _ position: Diagnostic.Position, _ candidate: Int, _ expected: Int, _ candidateType: String,
    _ expectedType: String
  ) -> DiagnosticMessage {
    make(
      .error,
      "\(position): size \(candidate) does not match size \(expected) (\(candidateType) vs \(expectedType))")
  }

  /// A lone space, whose size the signature leaves open between a 2-byte `_Float16` (or
  /// `__bf16`) and a 16-byte `__float128`, against a type that matches neither reading: not of
  /// 16 bytes, and not of 2 bytes passed as the `_Float16` is.
  public static func spaceReadingsMismatch(
    _ position: Diagnostic.Position, halfPassing: String, otherSize: Int, otherPassing: String,
    _ candidateType: String, _ expectedType: String
  ) -> DiagnosticMessage {
    make(
      .error,
      "\(position): a space is 2 bytes (_Float16, \(halfPassing)) or 16 (__float128) here, and neither matches size \(otherSize), \(otherPassing) (\(candidateType) vs \(expectedType))"
    )
  }

  /// Two arguments passed alike in registers take different stack slots, so that once the
  /// argument registers are used up an argument (this one or a later one, `misplaced`) is at a
  /// different offset from the first stack argument.
  public static func stackPlacementMismatch(
    _ position: Diagnostic.Position, _ candidateType: String, _ expectedType: String, candidateSize: Int,
    candidateAlignment: Int, expectedSize: Int, expectedAlignment: Int, misplaced: Diagnostic.Position,
    candidateOffset: Int, expectedOffset: Int
  ) -> DiagnosticMessage {
    let subject = misplaced == position ? "it" : "\(misplaced)"
    return make(
      .error,
      "\(position): once the argument registers are used up, \(candidateType) takes \(candidateSize) stack bytes aligned to \(candidateAlignment) but \(expectedType) takes \(expectedSize) aligned to \(expectedAlignment), so \(subject) is at stack offset \(candidateOffset) in the candidate and \(expectedOffset) in the expected signature"
    )
  }

  /// An `_Atomic` scalar against the plain scalar on x86_64 System V: passed alike, but clang
  /// counts no register for the `_Atomic` one, which LLVM still passes in one, so a later
  /// argument of two eightbytes that clang believes fits is split between the last register and
  /// the stack, and an argument (this one's successor or a later one, `misplaced`) lands
  /// elsewhere: the places as ``ArgumentPlacement/Place/locations(for:)`` names them.
  public static func registerCountMismatch(
    _ position: Diagnostic.Position, _ candidateType: String, _ expectedType: String, atomicIsCandidate: Bool,
    misplaced: Diagnostic.Position, candidatePlace: String, expectedPlace: String
  ) -> DiagnosticMessage {
    let (atomic, plain) = atomicIsCandidate ? (candidateType, expectedType) : (expectedType, candidateType)
    return make(
      .error,
      "\(position): \(atomic) and \(plain) are passed alike, but clang counts no register for the _Atomic \(atomic), so \(misplaced) is passed in \(candidatePlace) in the candidate and in \(expectedPlace) in the expected signature"
    )
  }

  /// Two types passed alike that can move the arguments after them (different stack slots, or
  /// an `_Atomic` scalar against a plain one on x86_64 System V), where an argument's place from
  /// `unknownFrom` on is not known from the encodings, so whether any moves is not known.
  public static func placesNotKnown(
    _ position: Diagnostic.Position, _ candidateType: String, _ expectedType: String,
    unknownFrom: Diagnostic.Position
  ) -> DiagnosticMessage {
    make(
      .warning,
      "\(position): \(candidateType) and \(expectedType) are passed alike but can move the arguments after them, and the place of \(unknownFrom) is not known from its encoding; not compared"
    )
  }

  /// The types are not the same (identical level).
  public static func typeMismatch(
    _ position: Diagnostic.Position, _ candidateType: String, _ expectedType: String
  )
    -> DiagnosticMessage
  {
    make(.error, "\(position): type \(candidateType) does not match \(expectedType)")
  }

  /// Neither side has an encoding.
  public static func unencodableArgument(_ position: Diagnostic.Position) -> DiagnosticMessage {
    make(
      .warning,
      "\(position): neither type has an encoding (a vector, member pointer or _BitInt); not compared")
  }

  /// The sizes are known, but how one of the types is laid out, and so passed, is not: a
  /// bitfield's declared type, an `_Atomic` structure's fields, a space that may be `_Float16`
  /// or `__float128`, a record whose slot shows it packed or over-aligned.
  public static func unknownLayout(
    _ position: Diagnostic.Position, _ candidateType: String, _ expectedType: String
  )
    -> DiagnosticMessage
  {
    make(
      .warning,
      "\(position): the layout of \(candidateType) or \(expectedType) is not known from its encoding, so neither is how it is passed; not compared"
    )
  }

  /// A size cannot be known from the encoding.
  public static func unknownSize(
    _ position: Diagnostic.Position, _ candidateType: String, _ expectedType: String
  )
    -> DiagnosticMessage
  {
    make(
      .warning,
      "\(position): the size of \(candidateType) or \(expectedType) is not known from its encoding; not compared"
    )
  }
}
