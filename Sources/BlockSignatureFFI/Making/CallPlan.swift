// What a made block's call needs at hand, decided once per prepared signature: where each
// parameter's bytes are among libffi's argument pointers, how many result bytes to zero and how
// to widen them, and, for a signature of scalars only, how to read each parameter and write the
// result without walking a shape (`ScalarAccess`). Plain values and buffers: nothing to retain
// per call.

extension ValueShape {
  /// Whether a value of this shape has a `char *` in it.
  var holdsCString: Bool {
    switch self {
    case .pointer(let isCString): isCString
    case .record(_, let members): members.contains { $0.shape.holdsCString }
    case .union(_, let members): members.contains { $0.holdsCString }
    case .array(_, _, let element): element.holdsCString
    default: false
    }
  }
}

/// A made block's per-call facts: plain values and buffers its prototype owns and frees
/// (``deallocate()``), copied into each block's state so that a call counts no reference.
struct CallPlan: @unchecked Sendable {
  /// Parameters, the block itself not counted.
  let argumentCount: Int
  /// Arguments libffi or the entry passes, the block included.
  let passedCount: Int
  /// Where ``MadeBlockEntry`` finds each passed argument, when it is the block's invoke.
  let frameSlots: UnsafeMutablePointer<Int>?
  /// For each parameter, its index among the passed arguments, or -1 when clang does not pass
  /// it (no bytes).
  let passedSlots: UnsafeMutablePointer<Int>
  /// Bytes of the result buffer a handler's result occupies once widened.
  let resultBytes: Int
  /// Where a block's captures keep the flag of their spare arguments (a constant of the
  /// captures' layout, kept here to be at hand).
  let spareFlagOffset = MadeBlockCaptures.spareFlagOffset
  /// Whether a result can hold a C string, which the block then keeps for C to read.
  let returnsStrings: Bool
  /// How a narrow result is widened to a whole `ffi_arg` after the handler: the sign or zero
  /// extension of its `widenedBytes` low bytes (0: nothing to widen).
  let widenedBytes: Int
  let widensSigned: Bool
  /// Each parameter's direct access, when every parameter and the result are scalars.
  let scalarArguments: UnsafeMutablePointer<ScalarAccess>?
  /// The result's direct access (nil for `void` or a non-scalar), meaningful with
  /// ``scalarArguments``.
  let scalarResult: ScalarAccess?

  init(interface: CallInterface) {
    let count = interface.argumentShapes.count - 1
    argumentCount = count
    passedCount = interface.passedCount
    if let (_, slots) = MadeBlockEntry.slots(for: interface) {
      frameSlots = .allocate(capacity: slots.count)
      frameSlots?.initialize(from: slots, count: slots.count)
    } else {
      frameSlots = nil
    }
    passedSlots = .allocate(capacity: max(1, count))
    for index in 0..<count { passedSlots[index] = interface.passedIndex[index + 1] ?? -1 }
    let returnShape = interface.returnShape
    resultBytes = returnShape.resultBytes
    returnsStrings = returnShape.holdsCString
    switch returnShape {
    case .integer(let size, let isSigned, _) where size < 8: (widenedBytes, widensSigned) = (size, isSigned)
    case .bool: (widenedBytes, widensSigned) = (1, false)
    default: (widenedBytes, widensSigned) = (0, false)
    }
    let accesses = interface.scalarAccess.dropFirst()
    let result = interface.returnScalarAccess
    let isVoid = if case .empty = returnShape { true } else { false }
    if accesses.allSatisfy({ $0 != nil }), result != nil || isVoid {
      let table = UnsafeMutablePointer<ScalarAccess>.allocate(capacity: max(1, count))
      for (index, access) in accesses.enumerated() { (table + index).initialize(to: access!) }
      scalarArguments = table
      scalarResult = result
    } else {
      scalarArguments = nil
      scalarResult = nil
    }
  }

  /// Extends a narrow result at `address` to a whole `ffi_arg`, as libffi expects a closure to
  /// leave it (``ValueShape/widenResult(at:)`` without the shape).
  @inline(__always)
  func widenResult(at address: UnsafeMutableRawPointer) {
    ValueShape.widenResult(at: address, bytes: widenedBytes, isSigned: widensSigned)
  }

  /// Frees the buffers, once no block made from the plan is left.
  func deallocate() {
    frameSlots?.deallocate()
    passedSlots.deallocate()
    scalarArguments?.deinitialize(count: argumentCount).deallocate()
  }
}
