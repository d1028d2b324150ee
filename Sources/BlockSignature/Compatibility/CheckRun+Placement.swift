// The abi level's placement check: two arguments passed alike in registers can still land at
// different stack offsets once the argument registers run out (`t` and `{?=qq}` on x86_64
// System V, `s` and `{?=cc}` on Apple's arm64), and so can every stack argument after them.

extension CheckRun {
  /// Remembers `candidateIndex` among the arguments whose two types passed every other abi check
  /// but take different stack slots, so that ``checkPlacement()`` walks the signatures up to the
  /// last of them. Nothing is walked, and nothing allocated, for a pair without such an argument.
  mutating func noteStackSlots(
    _ a: TypeEncoding, _ x: ABIShape, _ b: TypeEncoding, _ y: ABIShape, at candidateIndex: Int
  ) {
    // On x86_64 System V clang counts no register for an `_Atomic` scalar, which LLVM passes in
    // one: against the plain scalar, a later argument of two eightbytes can land elsewhere.
    if a.isAtomicScalar != b.isAtomicScalar, ConventionFamily(model) == .systemV {
      placementSuspects = (placementSuspects?.lowerBound ?? candidateIndex)...candidateIndex
      return
    }
    // Of the same size and passing (checked before), two types with the same alignment that are
    // both records or both not take the same slot on every convention: most pairs stop here.
    // And the first two arguments always get registers (before the second, at most a hidden
    // return pointer and two registers of a kind, or four SIMD registers; it takes as many more
    // at most), so a block's only argument is never walked for.
    guard candidateIndex >= 2, x.alignment != y.alignment || a.isCompositeArgument != b.isCompositeArgument
    else { return }
    let rules = PlacementState(model: model)
    guard let first = rules.stackSlot(a, shape: x), let second = rules.stackSlot(b, shape: y), first != second
    else { return }
    placementSuspects = (placementSuspects?.lowerBound ?? candidateIndex)...candidateIndex
  }

  /// Walks both signatures' arguments in order, as a call places them on the checker's model, and
  /// reports the first argument that lands elsewhere because an argument passed alike in
  /// registers takes a different stack slot (or, on x86_64 System V, is an `_Atomic` scalar
  /// against a plain one, which clang counts no register for): once, at that argument, naming
  /// both places.
  ///
  /// Only signatures with as many hidden arguments (a block against a block, a method against a
  /// method) are walked: between a block and a method something re-marshals the arguments (an
  /// `NSInvocation`, a trampoline), and their places do not correspond. The walk stops, quietly,
  /// where an argument already reported leaves the two calls in different states, and at an
  /// argument whose size is not known.
  mutating func checkPlacement() {
    guard let suspects = placementSuspects, candidateHidden == expectedHidden else { return }
    var first = PlacementState(model: model)
    var second = PlacementState(model: model)
    guard first.placeReturn(inMemory: PlacementState.returnsInMemory(candidate.returnType, model: model)),
      second.placeReturn(inMemory: PlacementState.returnsInMemory(expected.returnType, model: model)),
      first.isAtSamePoint(as: second)
    else { return }
    // The argument whose slot put the calls out of step, until they are in step again.
    var cause: Int?
    for index in 0..<min(candidate.arguments.count, expected.arguments.count) {
      let (a, b) = (candidate.arguments[index].type, expected.arguments[index].type)
      let (slotA, slotB) = (candidate.writtenSlot(ofArgument: index), expected.writtenSlot(ofArgument: index))
      let x = a.abiShape(for: model, asParameter: true, writtenSlot: slotA)
      // Most pairs are the same type: one shape for both.
      let y = a == b && slotA == slotB ? x : b.abiShape(for: model, asParameter: true, writtenSlot: slotB)
      guard let here = first.place(a, shape: x), let there = second.place(b, shape: y) else {
        reportPlacesNotKnown(from: index, cause: cause, suspects: suspects)
        return
      }
      if hasError(at: index) {
        // Reported already: what follows from it is not reported again.
        guard cause == nil, first.isAtSamePoint(as: second) else { return }
        continue
      }
      switch (here, there) {
      case (.stack(let offset, _), .stack(let otherOffset, _)):
        if offset != otherOffset {
          reportStackPlacement(of: index, cause: cause ?? index, offset, otherOffset)
          return
        }
      default:
        if here != there {
          // Only a different count of registers puts one argument in other registers (or part
          // of it on the stack): arguments passed alike take the same ones from the same state.
          guard let cause else { return }
          reportCounting(of: index, cause: cause, here, there)
          return
        }
      }
      cause = first.isAtSamePoint(as: second) ? nil : cause ?? index
      // Past the last pair whose slots differ, with both calls in step: nothing can diverge.
      if index >= suspects.upperBound, cause == nil { return }
    }
  }

  /// Warns that the walk stopped at argument `index`, whose place is not known, before it could
  /// tell whether the pair that put the calls out of step (`cause`), or a pair still ahead among
  /// `suspects`, moves an argument: at that pair, which is then not compared. Nothing is said
  /// when every suspect is behind and the calls are in step.
  private mutating func reportPlacesNotKnown(from index: Int, cause: Int?, suspects: ClosedRange<Int>) {
    // The range's bounds are suspects; one at or after `index` may still move what follows.
    let pair = cause ?? (index <= suspects.lowerBound ? suspects.lowerBound : suspects.upperBound)
    guard cause != nil || pair >= index, !hasError(at: pair) else { return }
    emit(
      CompatibilityMessages.placesNotKnown(
        .argument(pair), TypeEncoding.display(candidate.arguments[pair].type),
        TypeEncoding.display(expected.arguments[pair].type), unknownFrom: .argument(index)),
      candidateIndex: pair, expectedIndex: pair)
    moveLastDiagnostic(after: pair)
  }

  /// Reports, at argument `cause` (an `_Atomic` scalar against a plain one), that argument
  /// `index` is at `candidatePlace` in the candidate and `expectedPlace` in the expected
  /// signature, in signature order.
  private mutating func reportCounting(
    of index: Int, cause: Int, _ candidatePlace: ArgumentPlacement.Place, _ expectedPlace: ArgumentPlacement.Place
  ) {
    let (a, b) = (candidate.arguments[cause].type, expected.arguments[cause].type)
    guard a.isAtomicScalar != b.isAtomicScalar else { return }
    emit(
      CompatibilityMessages.registerCountMismatch(
        .argument(cause), TypeEncoding.display(a), TypeEncoding.display(b), atomicIsCandidate: a.isAtomicScalar,
        misplaced: .argument(index), candidatePlace: candidatePlace.locations(for: model),
        expectedPlace: expectedPlace.locations(for: model)),
      candidateIndex: cause, expectedIndex: cause)
    moveLastDiagnostic(after: cause)
  }

  /// Moves the diagnostic just emitted at argument `cause` before those of later arguments.
  private mutating func moveLastDiagnostic(after cause: Int) {
    let diagnostic = diagnostics.removeLast()
    let later = diagnostics.firstIndex {
      if case .argument(let other) = $0.location.position { other > cause } else { false }
    }
    diagnostics.insert(diagnostic, at: later ?? diagnostics.endIndex)
  }

  /// Whether a diagnostic already made the argument at `index` incompatible.
  private func hasError(at index: Int) -> Bool {
    diagnostics.contains { $0.severity == .error && $0.location.position == .argument(index) }
  }

  /// Reports, at argument `cause`, that argument `index` is at `candidateOffset` in the candidate
  /// and `expectedOffset` in the expected signature; the diagnostic goes in signature order.
  private mutating func reportStackPlacement(of index: Int, cause: Int, _ candidateOffset: Int, _ expectedOffset: Int) {
    let rules = PlacementState(model: model)
    let a = candidate.arguments[cause].type
    let b = expected.arguments[cause].type
    guard let x = rules.stackSlot(a, shape: a.abiShape(for: model, asParameter: true)),
      let y = rules.stackSlot(b, shape: b.abiShape(for: model, asParameter: true))
    else { return }
    emit(
      CompatibilityMessages.stackPlacementMismatch(
        .argument(cause), TypeEncoding.display(a), TypeEncoding.display(b), candidateSize: x.size,
        candidateAlignment: x.alignment, expectedSize: y.size, expectedAlignment: y.alignment,
        misplaced: .argument(index), candidateOffset: candidateOffset, expectedOffset: expectedOffset),
      candidateIndex: cause, expectedIndex: cause)
    moveLastDiagnostic(after: cause)
  }
}
