// The checks of the levels named after peers: BlocksKit's (`blockskit`) and Aspects' (`aspects`).

extension CheckRun {
  // MARK: blockskit

  /// Whether the two signatures have the same types (offsets ignored): `-[NSMethodSignature isEqual:]`.
  var typesAreIdentical: Bool {
    guard candidate.returnType == expected.returnType, candidate.arguments.count == expected.arguments.count
    else {
      return false
    }
    for index in candidate.arguments.indices
    where candidate.arguments[index].type != expected.arguments[index].type {
      return false
    }
    return true
  }

  /// Compares first characters; a pass that the equivalent level would reject is a warning.
  mutating func compareFirstCharacters(
    _ a: TypeEncoding, _ b: TypeEncoding, candidateIndex: Int?, expectedIndex: Int?
  ) -> Bool {
    // The texts are built only on the paths that emit a diagnostic: a clean pair allocates nothing.
    let position: Diagnostic.Position = candidateIndex.map { .argument($0) } ?? .returnValue
    if a.firstByte != b.firstByte {
      emit(
        CompatibilityMessages.firstCharacterMismatch(
          position, Self.code(a.firstByte), Self.code(b.firstByte), TypeEncoding.display(a),
          TypeEncoding.display(b)),
        candidateIndex: candidateIndex, expectedIndex: expectedIndex)
      return false
    }
    if a.equivalenceDifference(to: b) != nil {
      emit(
        CompatibilityMessages.looserMatch(position, level, TypeEncoding.display(a), TypeEncoding.display(b)),
        candidateIndex: candidateIndex, expectedIndex: expectedIndex)
    }
    return true
  }

  static func code(_ byte: UInt8) -> String {
    byte == 0 ? "\\0" : String(decoding: CollectionOfOne(byte), as: UTF8.self)
  }

  mutating func checkBlocksKit() {
    if typesAreIdentical { return }
    guard
      compareFirstCharacters(
        candidate.returnType, expected.returnType, candidateIndex: nil, expectedIndex: nil)
    else { return }
    let candidateCount = candidate.arguments.count
    let expectedCount = expected.arguments.count
    if candidateCount == expectedCount {
      emitSignature(CompatibilityMessages.blocksKitAmbiguousLength(candidateCount))
      return
    }
    let candidateIsMethod = candidateCount > expectedCount
    let methodCount = max(candidateCount, expectedCount)
    let blockCount = min(candidateCount, expectedCount)
    if blockCount != methodCount - 1 {
      // The note is built only here, where the diagnostic it belongs to is emitted.
      let note = Diagnostic.Note(
        CompatibilityMessages.blocksKitLongerIsMethod(candidateIsMethod ? "candidate" : "expected", methodCount))
      emitSignature(CompatibilityMessages.blocksKitArgumentCount(blockCount, methodCount), notes: [note])
      return
    }
    for methodIndex in 2..<max(2, methodCount) {
      let blockIndex = methodIndex - 1
      let (c, e) = candidateIsMethod ? (methodIndex, blockIndex) : (blockIndex, methodIndex)
      _ = compareFirstCharacters(
        candidate.arguments[c].type, expected.arguments[e].type, candidateIndex: c, expectedIndex: e)
    }
  }

  // MARK: aspects

  mutating func checkAspects() {
    // The expected signature in method numbering: arguments 2… are its explicit arguments.
    let expectedExplicit = expected.arguments.count - expectedHidden
    let methodCount = 2 + expectedExplicit
    let blockCount = candidate.arguments.count
    if candidate.returnType.equivalenceDifference(to: expected.returnType) != nil {
      emit(
        CompatibilityMessages.aspectsIgnoresReturn(
          TypeEncoding.display(candidate.returnType), TypeEncoding.display(expected.returnType)),
        candidateIndex: nil, expectedIndex: nil)
    }
    if blockCount > methodCount {
      emitSignature(CompatibilityMessages.aspectsTooManyArguments(blockCount, methodCount))
      return
    }
    if blockCount > 1, candidate.arguments[1].type.firstByte != UInt8(ascii: "@") {
      emit(
        CompatibilityMessages.aspectsFirstArgumentNotObject(
          TypeEncoding.display(candidate.arguments[1].type)),
        candidateIndex: 1, expectedIndex: nil, fixIt: false)
      return
    }
    for index in 2..<max(2, blockCount) {
      let e = expectedHidden + index - 2
      _ = compareFirstCharacters(
        candidate.arguments[index].type, expected.arguments[e].type, candidateIndex: index, expectedIndex: e)
    }
  }
}
