/// Checks whether a candidate signature can be used where another is expected, and explains
/// every difference.
///
/// Both signatures may be blocks, methods or plain C functions: the return types are compared,
/// then the explicit arguments in order, so method arguments 2… meet block arguments 1…
/// (except at ``CompatibilityLevel/blocksKit`` and ``CompatibilityLevel/aspects``, which follow
/// their libraries' own mapping).
///
///     let checker = try CompatibilityChecker(level: .abi)  // for this machine
///     let report = checker.check(
///       try SignatureEncoding(parsing: "v20@?0q8i16"),      // candidate block
///       against: try SignatureEncoding(parsing: "v24@0:8i16i20"))  // expected method
///     report.isCompatible                 // false
///     report.diagnostics[0].message       // argument 1: size 8 does not match size 4 (q vs i)
///
/// A check allocates nothing when the signatures are compatible with no finding; only the
/// diagnostics it returns are allocated.
public struct CompatibilityChecker: Hashable, Sendable {
  /// How strictly to compare.
  public var level: CompatibilityLevel
  /// The target whose sizes and calling convention the ``CompatibilityLevel/abi`` level uses.
  public var model: DataModel

  /// Creates a checker for the target `model` describes.
  ///
  ///     CompatibilityChecker(level: .abi, model: .aarch64Linux).model.name  // "aarch64-linux"
  public init(level: CompatibilityLevel = .equivalent, model: DataModel) {
    self.level = level
    self.model = model
  }

  /// Creates a checker for this machine: its model is ``DataModel/host``.
  ///
  ///     try CompatibilityChecker(level: .abi).model == DataModel.host  // true
  ///
  /// - Throws: ``SignatureError`` of kind ``SignatureError/Kind/unknownDataModel`` on a
  ///   machine no built-in data model describes; name one with ``init(level:model:)``.
  public init(level: CompatibilityLevel = .equivalent) throws(SignatureError) {
    guard let host = DataModel.host else {
      throw SignatureError(
        kind: .unknownDataModel, signature: "", message: "no data model describes this machine: pass one")
    }
    self.init(level: level, model: host)
  }

  /// Checks `candidate` against `expected`.
  ///
  /// - Complexity: O(*n*) in the size of both signatures.
  public func check(_ candidate: SignatureEncoding, against expected: SignatureEncoding)
    -> CompatibilityReport
  {
    var run = CheckRun(candidate: candidate, expected: expected, level: level, model: model)
    switch level {
    case .identical, .equivalent, .abi: run.checkPositionally()
    case .blocksKit: run.checkBlocksKit()
    case .aspects: run.checkAspects()
    }
    return CompatibilityReport(level: level, model: model, diagnostics: run.diagnostics)
  }

  /// Parses both signatures and checks them.
  ///
  ///     try CompatibilityChecker(level: .blocksKit).check("v@?i", against: "v@:d").isCompatible  // false
  ///
  /// - Throws: ``SignatureError`` with the parser's byte offset when either text is malformed.
  public func check(_ candidate: String, against expected: String) throws(SignatureError)
    -> CompatibilityReport
  {
    let parsedCandidate: SignatureEncoding
    let parsedExpected: SignatureEncoding
    do {
      parsedCandidate = try SignatureEncoding(parsing: candidate)
      parsedExpected = try SignatureEncoding(parsing: expected)
    } catch {
      throw SignatureError(error)
    }
    return check(parsedCandidate, against: parsedExpected)
  }

  /// Checks a block signature against a Swift function type, mapped to the block signature a
  /// `@convention(block)` closure of that type carries on the checker's ``model``.
  ///
  ///     let type = try SwiftFunctionType(parsing: "(Int32, UnsafePointer<CChar>?) -> Int32")
  ///     try CompatibilityChecker().check(try SignatureEncoding(parsing: "i20@?0i8r*12"), against: type)
  ///       .isCompatible  // true
  public func check(_ candidate: SignatureEncoding, against function: SwiftFunctionType)
    -> CompatibilityReport
  {
    check(candidate, against: function.blockEncoding)
  }
}

/// One check in progress: the two signatures, their hidden-argument counts and the findings.
struct CheckRun {
  let candidate: SignatureEncoding
  let expected: SignatureEncoding
  let level: CompatibilityLevel
  let model: DataModel
  let candidateHidden: Int
  let expectedHidden: Int
  var diagnostics: [Diagnostic] = []
  /// abi level: the first and last arguments whose types pass alike but take different stack
  /// slots, where ``checkPlacement()`` looks for arguments that register exhaustion puts in
  /// different places.
  var placementSuspects: ClosedRange<Int>?
  private var ranges:
    (
      candidate: (returnType: Range<Int>, arguments: [Range<Int>]),
      expected: (returnType: Range<Int>, arguments: [Range<Int>])
    )?

  init(candidate: SignatureEncoding, expected: SignatureEncoding, level: CompatibilityLevel, model: DataModel) {
    self.candidate = candidate
    self.expected = expected
    self.level = level
    self.model = model
    candidateHidden = SignatureEncoding.hiddenArgumentCount(of: candidate.kind)
    expectedHidden = SignatureEncoding.hiddenArgumentCount(of: expected.kind)
  }

  // MARK: Emitting

  /// The byte ranges, computed once, on the first finding.
  private mutating func typeRanges() -> (
    candidate: (returnType: Range<Int>, arguments: [Range<Int>]),
    expected: (returnType: Range<Int>, arguments: [Range<Int>])
  ) {
    if let ranges { return ranges }
    let computed = (candidate.typeRanges(), expected.typeRanges())
    ranges = computed
    return computed
  }

  /// Records a finding at a type position; `candidateIndex`/`expectedIndex` are absolute
  /// argument indices, `nil` for the return value.
  mutating func emit(
    _ message: DiagnosticMessage, candidateIndex: Int?, expectedIndex: Int?, fixIt: Bool = true,
    notes: [Diagnostic.Note] = []
  ) {
    let all = typeRanges()
    let candidateType: TypeEncoding?
    let expectedType: TypeEncoding?
    let candidateRange: Range<Int>?
    let expectedRange: Range<Int>?
    let position: Diagnostic.Position
    if let candidateIndex {
      position = .argument(candidateIndex)
      candidateType =
        candidate.arguments.indices.contains(candidateIndex) ? candidate.arguments[candidateIndex].type : nil
      candidateRange =
        all.candidate.arguments.indices.contains(candidateIndex)
        ? all.candidate.arguments[candidateIndex] : nil
    } else {
      position = .returnValue
      candidateType = candidate.returnType
      candidateRange = all.candidate.returnType
    }
    if let expectedIndex {
      expectedType =
        expected.arguments.indices.contains(expectedIndex) ? expected.arguments[expectedIndex].type : nil
      expectedRange =
        all.expected.arguments.indices.contains(expectedIndex) ? all.expected.arguments[expectedIndex] : nil
    } else if candidateIndex == nil {
      expectedType = expected.returnType
      expectedRange = all.expected.returnType
    } else {
      expectedType = nil
      expectedRange = nil
    }
    var notes = notes
    if let candidateIndex, let expectedIndex, candidateIndex != expectedIndex {
      notes.append(
        Diagnostic.Note(CompatibilityMessages.mapsToArgument(candidateIndex, expectedIndex, expected.kind)))
    }
    var fixIts: [Diagnostic.FixIt] = []
    if fixIt, message.severity == .error, let expectedType, let candidateRange, let candidateType {
      let replacement = expectedType.description
      fixIts.append(
        Diagnostic.FixIt(
          message:
            "replace \(TypeEncoding.display(candidateType)) with \(TypeEncoding.display(expectedType))",
          range: candidateRange, replacement: replacement))
    }
    diagnostics.append(
      Diagnostic(
        message,
        location: Diagnostic.Location(
          position: position, candidate: candidateType?.description ?? "",
          expected: expectedType?.description ?? "",
          candidateRange: candidateRange, expectedRange: expectedRange),
        notes: notes, fixIts: fixIts))
  }

  /// Records a finding about the whole signature; the fix-it is the expected signature in the
  /// candidate's form, when it converts.
  mutating func emitSignature(_ message: DiagnosticMessage, notes: [Diagnostic.Note] = []) {
    let text = candidate.description
    var fixIts: [Diagnostic.FixIt] = []
    if message.severity == .error,
      let converted = try? expected.converted(to: candidate.kind, model: model)
    {
      fixIts.append(
        Diagnostic.FixIt(
          message:
            "use the expected signature in \(candidate.kind == .types ? "function" : candidate.kind.rawValue) form: \(shortened(converted.description))",
          range: 0..<text.utf8.count,
          replacement: converted.description))
    }
    diagnostics.append(
      Diagnostic(
        message,
        location: Diagnostic.Location(
          position: .signature, candidate: text, expected: expected.description,
          candidateRange: 0..<text.utf8.count, expectedRange: 0..<expected.description.utf8.count),
        notes: notes, fixIts: fixIts))
  }

  // MARK: identical, equivalent, abi

  mutating func checkPositionally() {
    compare(candidate.returnType, expected.returnType, candidateIndex: nil, expectedIndex: nil)
    let candidateCount = candidate.arguments.count - candidateHidden
    let expectedCount = expected.arguments.count - expectedHidden
    if candidateCount != expectedCount {
      emitSignature(CompatibilityMessages.argumentCountMismatch(candidateCount, expectedCount))
    }
    for offset in 0..<min(candidateCount, expectedCount) {
      let c = candidateHidden + offset
      let e = expectedHidden + offset
      compare(candidate.arguments[c].type, expected.arguments[e].type, candidateIndex: c, expectedIndex: e)
    }
    if placementSuspects != nil { checkPlacement() }
  }

  /// Compares two types at one position under the identical, equivalent or abi level.
  mutating func compare(_ a: TypeEncoding, _ b: TypeEncoding, candidateIndex: Int?, expectedIndex: Int?) {
    let position: Diagnostic.Position = candidateIndex.map { .argument($0) } ?? .returnValue
    if a == .unencodable && b == .unencodable {
      emit(
        CompatibilityMessages.unencodableArgument(position), candidateIndex: candidateIndex,
        expectedIndex: expectedIndex)
      return
    }
    switch level {
    case .identical:
      if a != b {
        emit(
          CompatibilityMessages.typeMismatch(position, TypeEncoding.display(a), TypeEncoding.display(b)),
          candidateIndex: candidateIndex, expectedIndex: expectedIndex)
      }
    case .equivalent:
      if let difference = a.equivalenceDifference(to: b) {
        emit(
          CompatibilityMessages.notEquivalent(
            position, TypeEncoding.display(a), TypeEncoding.display(b), difference.reason),
          candidateIndex: candidateIndex, expectedIndex: expectedIndex)
      }
    default:
      // Equivalent encodings are compared too: `{?=b3}` may be a `char` or an `int` bitfield
      // whichever name the other has; identical ones when the frames give the arguments
      // different slots (`{P=ci}` in 5 bytes, packed, is not `{P=ci}` in 8).
      if a != b || writtenSlotsDiffer(candidateIndex, expectedIndex) {
        compareABI(a, b, position: position, candidateIndex: candidateIndex, expectedIndex: expectedIndex)
      }
    }
  }

  /// When one side is a lone space of open size (a 2-byte `_Float16` or `__bf16`, or a 16-byte
  /// `__float128`) and the other is known and matches neither reading — it is not of 16 bytes,
  /// and not of 2 passed as the `_Float16` is — the shape of the 2-byte reading and the other's;
  /// `nil` otherwise.
  private func spaceReadingsMismatch(
    _ a: TypeEncoding, _ x: ABIShape, _ b: TypeEncoding, _ y: ABIShape, isParameter: Bool
  ) -> (half: ABIShape, other: ABIShape)? {
    func mismatch(_ space: TypeEncoding, _ open: ABIShape, _ other: ABIShape) -> (ABIShape, ABIShape)? {
      guard !open.isSizeKnown, space.unqualified == .primitive(.otherFloat), other.isSizeKnown,
        other.passing != .unknown,
        other.size != 16
      else { return nil }
      let half = space.abiShape(for: model, asParameter: isParameter, assumingHalfPrecision: true)
      guard half.passing != .unknown, half.size != other.size || half.passing != other.passing else { return nil }
      return (half, other)
    }
    return mismatch(a, x, y) ?? mismatch(b, y, x)
  }

  /// Whether both arguments have slots written in their signatures, and they differ.
  private func writtenSlotsDiffer(_ candidateIndex: Int?, _ expectedIndex: Int?) -> Bool {
    guard let candidateIndex, let expectedIndex, let c = candidate.writtenSlot(ofArgument: candidateIndex),
      let e = expected.writtenSlot(ofArgument: expectedIndex)
    else { return false }
    return c != e
  }

  /// How the value at a position is passed: an argument with the slot its offsets give it; a
  /// return value with the slot of an argument of the same encoding, when the frame shows that
  /// one's layout hidden (`{P=ci}13@?0{P=ci}8`: the return value is the 5-byte packed `P` too).
  private func abiShape(of type: TypeEncoding, at index: Int?, in signature: SignatureEncoding) -> ABIShape {
    if let index {
      return type.abiShape(for: model, asParameter: true, writtenSlot: signature.writtenSlot(ofArgument: index))
    }
    let shape = type.abiShape(for: model, asParameter: false)
    for argument in signature.arguments.indices where signature.arguments[argument].type == type {
      let asArgument = type.abiShape(
        for: model, asParameter: true, writtenSlot: signature.writtenSlot(ofArgument: argument))
      if asArgument.passing == .unknown, asArgument.isSizeKnown {
        return ABIShape(size: asArgument.size, alignment: shape.alignment, passing: .unknown, isSizeKnown: true)
      }
    }
    return shape
  }

  mutating func compareABI(
    _ a: TypeEncoding, _ b: TypeEncoding, position: Diagnostic.Position, candidateIndex: Int?,
    expectedIndex: Int?
  ) {
    let isParameter = candidateIndex != nil
    let x = abiShape(of: a, at: candidateIndex, in: candidate)
    let y = abiShape(of: b, at: expectedIndex, in: expected)
    let aText = TypeEncoding.display(a)
    let bText = TypeEncoding.display(b)
    // Where the encoding leaves a layout an estimate only sizes that are certain to differ are
    // an answer; anything else is not compared rather than guessed.
    guard x.passing != .unknown && y.passing != .unknown else {
      if x.isSizeKnown, y.isSizeKnown, x.size != y.size {
        emit(
          CompatibilityMessages.sizeMismatch(position, x.size, y.size, aText, bText),
          candidateIndex: candidateIndex, expectedIndex: expectedIndex)
      } else if let (half, other) = spaceReadingsMismatch(a, x, b, y, isParameter: isParameter) {
        emit(
          CompatibilityMessages.spaceReadingsMismatch(
            position, halfPassing: half.passing.name, otherSize: other.size, otherPassing: other.passing.name, aText,
            bText),
          candidateIndex: candidateIndex, expectedIndex: expectedIndex)
      } else {
        emit(
          x.isSizeKnown && y.isSizeKnown
            ? CompatibilityMessages.unknownLayout(position, aText, bText)
            : CompatibilityMessages.unknownSize(position, aText, bText),
          candidateIndex: candidateIndex, expectedIndex: expectedIndex)
      }
      return
    }
    if !isParameter, y.passing == .void, x.passing != .memory {
      emit(CompatibilityMessages.ignoredReturnValue(aText), candidateIndex: nil, expectedIndex: nil)
      return
    }
    if x.size != y.size {
      emit(
        CompatibilityMessages.sizeMismatch(position, x.size, y.size, aText, bText),
        candidateIndex: candidateIndex, expectedIndex: expectedIndex)
      return
    }
    if x.passing != y.passing {
      emit(
        CompatibilityMessages.registerClassMismatch(position, x.passing.name, y.passing.name, aText, bText),
        candidateIndex: candidateIndex, expectedIndex: expectedIndex)
      return
    }
    if x.passing == .memory, x.alignment != y.alignment {
      emit(
        CompatibilityMessages.alignmentMismatch(position, x.alignment, y.alignment, aText, bText),
        candidateIndex: candidateIndex, expectedIndex: expectedIndex)
      return
    }
    if let candidateIndex { noteStackSlots(a, x, b, y, at: candidateIndex) }
    let (p, q) = (a.scalarKind, b.scalarKind)
    switch (p, q) {
    case (.signedInteger, .unsignedInteger), (.unsignedInteger, .signedInteger):
      emit(
        CompatibilityMessages.signednessMismatch(
          position, x.size, aText, bText, candidateIsSigned: p == .signedInteger),
        candidateIndex: candidateIndex, expectedIndex: expectedIndex)
    case (.bool, .signedInteger), (.bool, .unsignedInteger), (.signedInteger, .bool),
      (.unsignedInteger, .bool):
      emit(
        CompatibilityMessages.boolMismatch(position, aText, bText), candidateIndex: candidateIndex,
        expectedIndex: expectedIndex)
    case (.pointer, .signedInteger), (.pointer, .unsignedInteger), (.signedInteger, .pointer),
      (.unsignedInteger, .pointer):
      emit(
        CompatibilityMessages.integerPointerMix(position, x.size, aText, bText),
        candidateIndex: candidateIndex, expectedIndex: expectedIndex)
    default:
      break
    }
  }

}
