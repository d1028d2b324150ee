// What a block made at run time captures, inside the block itself as clang lays out captures:
// the literal is the block's header followed by these fields. The runtime's `_Block_copy`
// moves the bytes to its heap copy and calls the copy helper, which gives the copy its own
// references; the dispose helper drops them when a copy dies. So a made block costs one
// allocation, the runtime's heap copy, besides the `DynamicBlock` that owns it.

import CBlockABI

/// What a made block captures: its prototype, its handler, what to do when the handler fails.
struct MadeBlockCaptures {
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
  /// time (`spareIsTaken`, changed atomically; a call that finds it taken makes its own), and
  /// reused in place unless the handler kept a copy of it. Each copy of the block has its own.
  private var spareArguments: [CValue] = []
  private var spareIsTaken: UInt8 = 0

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

  /// Where the spare's flag is in the captures, for the atomic operations on its byte.
  static var spareFlagOffset: Int { MemoryLayout<MadeBlockCaptures>.offset(of: \.spareIsTaken)! }

  /// Where the captures start in a made block: after the header, aligned as they need (a
  /// constant the compiler folds).
  static var offset: Int {
    let alignment = MemoryLayout<MadeBlockCaptures>.alignment
    return (MemoryLayout<CBA_Block_layout>.size + alignment - 1) / alignment * alignment
  }

  /// The bytes of a made block's literal, header and captures.
  static var literalSize: Int { offset + MemoryLayout<MadeBlockCaptures>.size }

  /// The captures of a made block, which live as long as the block.
  static func of(_ block: UnsafeRawPointer) -> UnsafeMutablePointer<MadeBlockCaptures> {
    UnsafeMutableRawPointer(mutating: block + offset).assumingMemoryBound(to: MadeBlockCaptures.self)
  }

  /// The same captures with a spare of their own: only the fields no call changes are read,
  /// so a copy made while another thread calls the block reads nothing that thread writes.
  private init(sharingWith other: UnsafeMutablePointer<MadeBlockCaptures>) {
    prototype = other.pointee.prototype
    plan = other.pointee.plan
    interface = other.pointee.interface
    rawHandler = other.pointee.rawHandler
    isRaw = other.pointee.isRaw
    typedHandler = other.pointee.typedHandler
    failure = other.pointee.failure
    context = other.pointee.context
    strings = other.pointee.strings
  }

  /// The copy helper's work: the runtime has moved the literal's bytes; the copy takes its own
  /// references and a spare of its own.
  static func copyCaptures(from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer) {
    of(destination).initialize(to: MadeBlockCaptures(sharingWith: of(source)))
  }

  /// The dispose helper's work: a heap copy dies and lets go of what it captured.
  static func disposeCaptures(of block: UnsafeRawPointer) {
    of(block).deinitialize(count: 1)
  }

  /// Answers one call of the block whose captures are `captures`: runs the handler on the
  /// arguments and leaves the return value in `result` as the ABI wants it. Each field is read
  /// in place: nothing is copied or retained.
  static func respond(
    _ captures: UnsafeMutablePointer<MadeBlockCaptures>, block: UnsafeRawPointer, result: UnsafeMutableRawPointer,
    arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) {
    let plan = captures.pointee.plan
    let call = DynamicBlock.Call(
      captures: captures, block: block, argumentPointers: arguments, result: result,
      argumentCount: plan.argumentCount, passedSlots: plan.passedSlots)
    do {
      if captures.pointee.isRaw {
        // A raw handler that writes nothing returns zero.
        zero(result, count: plan.resultBytes)
        try run(captures.pointee.rawHandler, call)
      } else if let scalars = plan.scalarArguments {
        try respondToScalars(call, scalars, plan)
        return  // written and widened
      } else {
        let value = try withArguments(of: captures, count: call.argumentCount, load: call.argument) {
          try captures.pointee.typedHandler($0)
        }
        try call.setResult(value)  // setResult zeroes the buffer first
      }
    } catch {
      captures.pointee.failure.respond(to: error, call: call)
    }
    plan.widenResult(at: result)
  }

  /// Calls `handler` borrowed where it lies, without a counted copy.
  private static func run(_ handler: borrowing DynamicBlock.RawHandler, _ call: DynamicBlock.Call) throws {
    try handler(call)
  }

  /// The typed path of a signature of scalars: each parameter read directly, the result
  /// written directly when it is plainly of its type and in range (else through the checked
  /// store, which names what is wrong).
  private static func respondToScalars(
    _ call: DynamicBlock.Call, _ scalars: UnsafeMutablePointer<ScalarAccess>, _ plan: CallPlan
  ) throws {
    let captures = call.captures
    let value = try withArguments(
      of: captures, count: call.argumentCount,
      // A scalar always has bytes, so each parameter is among the pointers libffi or the entry
      // passed.
      load: { index in scalars[index].load(from: call.argumentPointers[plan.passedSlots[index]].unsafelyUnwrapped) }
    ) { try captures.pointee.typedHandler($0) }
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
  private static func withArguments(
    of captures: UnsafeMutablePointer<MadeBlockCaptures>, count: Int, load: (Int) -> CValue,
    _ body: ([CValue]) throws -> CValue
  ) rethrows -> CValue {
    let offset = captures.pointee.plan.spareFlagOffset
    let flag = UnsafeMutableRawPointer(captures).advanced(by: offset).assumingMemoryBound(to: UInt8.self)
    guard cba_flag_try_take(flag) else { return try body((0..<count).map(load)) }
    var values: [CValue] = []
    swap(&values, &captures.pointee.spareArguments)
    defer {
      swap(&values, &captures.pointee.spareArguments)
      cba_flag_give_back(flag)
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
