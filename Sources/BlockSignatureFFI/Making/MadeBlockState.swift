// The one capture of a block made at run time: a reference-counted object holding the handler.
// The literal holds it strongly, as clang's literals hold their captures: the copy helper retains
// it for each heap copy the runtime makes, the dispose helper releases it when a copy dies.

import CBlockABI

/// What a made block captures: its prototype, its handler, what to do when the handler fails.
final class MadeBlockState: @unchecked Sendable {
  let prototype: BlockPrototype
  let body: DynamicBlock.Body
  let failure: DynamicBlock.FailurePolicy
  /// The context of the delegate whose member the block implements, handed to each call.
  let context: UnsafeMutableRawPointer?
  /// Strings the block has returned to C.
  let strings = CStringTable()

  init(
    prototype: BlockPrototype, body: DynamicBlock.Body, failure: DynamicBlock.FailurePolicy,
    context: UnsafeMutableRawPointer?
  ) {
    self.prototype = prototype
    self.body = body
    self.failure = failure
    self.context = context
  }

  /// The state a made block captures (unretained: the block holds it).
  static func of(_ block: UnsafeRawPointer) -> MadeBlockState {
    let literal = block.assumingMemoryBound(to: CBA_Block_made.self)
    return Unmanaged<MadeBlockState>.fromOpaque(literal.pointee.state!).takeUnretainedValue()
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
    let interface = prototype.interface
    let returnShape = interface.returnShape
    let call = DynamicBlock.Call(
      interface: interface, block: block, argumentPointers: arguments, result: result, strings: strings,
      context: context)
    do {
      switch body {
      case .raw(let handler):
        // A raw handler that writes nothing returns zero.
        result.initializeMemory(as: UInt8.self, repeating: 0, count: returnShape.resultBytes)
        try handler(call)
      case .typed(let handler):
        try call.setResult(try handler(call.arguments))  // setResult zeroes the buffer first
      }
    } catch {
      failure.respond(to: error, call: call)
    }
    returnShape.widenResult(at: result)
  }
}
