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
  /// reports the first argument that lands at a different stack offset because an argument passed
  /// alike in registers takes a different stack slot: once, at that argument, naming both
  /// offsets.
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
    guard first.placeReturn(candidate.returnType.abiShape(for: model, asParameter: false)),
      second.placeReturn(expected.returnType.abiShape(for: model, asParameter: false)),
      first.isAtSamePoint(as: second)
    else { return }
    // The argument whose slot put the calls out of step, until they are in step again.
    var cause: Int?
    for index in 0..<min(candidate.arguments.count, expected.arguments.count) {
      let (a, b) = (candidate.arguments[index].type, expected.arguments[index].type)
      let x = a.abiShape(for: model, asParameter: true)
      // Most pairs are the same type: one shape for both.
      let y = a == b ? x : b.abiShape(for: model, asParameter: true)
      guard let here = first.place(a, shape: x), let there = second.place(b, shape: y) else { return }
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
        guard here == there else { return }
      }
      cause = first.isAtSamePoint(as: second) ? nil : cause ?? index
      // Past the last pair whose slots differ, with both calls in step: nothing can diverge.
      if index >= suspects.upperBound, cause == nil { return }
    }
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
    let diagnostic = diagnostics.removeLast()
    let later = diagnostics.firstIndex {
      if case .argument(let other) = $0.location.position { other > cause } else { false }
    }
    diagnostics.insert(diagnostic, at: later ?? diagnostics.endIndex)
  }
}
