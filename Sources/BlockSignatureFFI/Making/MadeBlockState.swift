// The one capture of a block made at run time: a reference-counted object holding the handler.
// The literal holds it strongly, as clang's literals hold their captures: the copy helper retains
// it for each heap copy the runtime makes, the dispose helper releases it when a copy dies.

import CBlockABI
import Synchronization

/// What a made block captures: its prototype, its handler, what to do when the handler fails.
final class MadeBlockState: @unchecked Sendable {
  let prototype: BlockPrototype
  /// The prototype's plan (its buffers live as long as the prototype, held above) and
  /// interface.
  let plan: CallPlan
  unowned(unsafe) let interface: CallInterface
  /// One of the two handlers (the body's), kept apart so that a call reads it without
  /// copying the enum.
  let rawHandler: DynamicBlock.RawHandler
  let isRaw: Bool
  let typedHandler: DynamicBlock.Handler
  let failure: DynamicBlock.FailurePolicy
  /// The context of the delegate whose member the block implements, handed to each call.
  let context: UnsafeMutableRawPointer?
  /// Strings the block has returned to C, where its result can hold one.
  let strings: CStringTable?
  /// The array a typed handler was last given, kept to be filled again: taken by one call at a
  /// time (a call that finds it taken makes its own), and reused in place unless the handler
  /// kept a copy of it.
  private let spareIsTaken = Atomic<Bool>(false)
  @exclusivity(unchecked) private var spareArguments: [CValue] = []

  init(
    prototype: BlockPrototype, body: DynamicBlock.Body, failure: DynamicBlock.FailurePolicy,
    context: UnsafeMutableRawPointer?
  ) {
    self.prototype = prototype
    plan = prototype.plan
    interface = prototype.interface
    switch body {
    case .raw(let handler): (rawHandler, typedHandler, isRaw) = (handler, { _ in .void }, true)
    case .typed(let handler): (rawHandler, typedHandler, isRaw) = ({ _ in }, handler, false)
    }
    self.failure = failure
    self.context = context
    strings = plan.returnsStrings ? CStringTable() : nil
  }

  /// Runs `body` with the state a made block captures, which the block holds while it is
  /// called: no reference is counted.
  static func with<Result>(_ block: UnsafeRawPointer, _ body: (MadeBlockState) -> Result) -> Result {
    let literal = block.assumingMemoryBound(to: CBA_Block_made.self)
    return Unmanaged<MadeBlockState>.fromOpaque(literal.pointee.state!)._withUnsafeGuaranteedRef(body)
  }

  /// The copy helper's work: the runtime has moved the literal's bytes; the copy holds the
  /// state too.
  static func retainCapture(copiedFrom source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer) {
    let copy = destination.assumingMemoryBound(to: CBA_Block_made.self)
    guard let state = copy.pointee.state else { return }
    _ = Unmanaged<MadeBlockState>.fromOpaque(state).retain()
  }

  /// The dispose helper's work: a heap copy dies and lets go of the state.
  static func releaseCapture(of block: UnsafeRawPointer) {
    let literal = block.assumingMemoryBound(to: CBA_Block_made.self)
    guard let state = literal.pointee.state else { return }
    Unmanaged<MadeBlockState>.fromOpaque(state).release()
  }

  /// Answers one call: runs the handler on the arguments libffi collected and leaves the return
  /// value in `result` as the ABI wants it.
  func respond(
    block: UnsafeRawPointer, result: UnsafeMutableRawPointer, arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) {
    let call = DynamicBlock.Call(
      state: self, block: block, argumentPointers: arguments, result: result, argumentCount: plan.argumentCount,
      passedSlots: plan.passedSlots)
    do {
      if isRaw {
        // A raw handler that writes nothing returns zero.
        Self.zero(result, count: plan.resultBytes)
        try rawHandler(call)
      } else if let scalars = plan.scalarArguments {
        try respondToScalars(call, scalars)
        return  // written and widened
      } else {
        let value = try withArguments(count: call.argumentCount, load: call.argument) { try typedHandler($0) }
        try call.setResult(value)  // setResult zeroes the buffer first
      }
    } catch {
      failure.respond(to: error, call: call)
    }
    plan.widenResult(at: result)
  }

  /// The typed path of a signature of scalars: each parameter read directly, the result
  /// written directly when it is plainly of its type and in range (else through the checked
  /// store, which names what is wrong).
  private func respondToScalars(
    _ call: DynamicBlock.Call, _ scalars: UnsafeMutablePointer<ScalarAccess>
  ) throws {
    let value = try withArguments(
      count: call.argumentCount,
      load: { index in
        scalars[index].load(from: call.argumentAddress(index))
      }
    ) { try typedHandler($0) }
    guard let access = plan.scalarResult else {
      if case .void = value { return }
      try call.setResult(value)  // the checked store's error
      return
    }
    if !access.storeResult(value, at: call.result) {
      try call.setResult(value)
      plan.widenResult(at: call.result)
    }
  }

  /// Runs `body` with the `count` values `load` reads, in the spare array when no other call
  /// has it: no allocation once the array has its size.
  private func withArguments(
    count: Int, load: (Int) -> CValue, _ body: ([CValue]) throws -> CValue
  ) rethrows -> CValue {
    guard spareIsTaken.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
      return try body((0..<count).map(load))
    }
    var values: [CValue] = []
    swap(&values, &spareArguments)
    defer {
      swap(&values, &spareArguments)
      spareIsTaken.store(false, ordering: .releasing)
    }
    if values.count == count {
      values.withUnsafeMutableBufferPointer { buffer in
        for index in 0..<count { buffer[index] = load(index) }
      }
    } else {
      values = (0..<count).map(load)
    }
    return try body(values)
  }

  /// Zeroes a result buffer of `count` bytes: one store for the common sizes.
  @inline(__always)
  static func zero(_ result: UnsafeMutableRawPointer, count: Int) {
    switch count {
    case 0: break
    case 8: result.storeBytes(of: 0, as: UInt64.self)
    case 4: result.storeBytes(of: 0, as: UInt32.self)
    default: result.initializeMemory(as: UInt8.self, repeating: 0, count: count)
    }
  }
}
