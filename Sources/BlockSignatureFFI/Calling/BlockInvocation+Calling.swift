// The two ways to call: raw argument pointers (no allocation), and typed values converted and
// checked against the signature.

import CFFI

extension BlockInvocation {
  /// Calls the block with the bytes of each argument: `arguments[i]` points at a value of the
  /// block's parameter `i + 1` (``argumentCount`` pointers), `result` at ``resultBufferSize``
  /// bytes aligned to 16 (nil for a `void` block). Allocates nothing; safe from any thread.
  ///
  ///     var x: Int32 = 7, y = 0.5, out = (0.0, 0.0)  // ^double(int, double)
  ///     withUnsafeMutableBytes(of: &out) { result in
  ///       withUnsafeBytes(of: &x) { a in withUnsafeBytes(of: &y) { b in
  ///         [a.baseAddress, b.baseAddress].withUnsafeBufferPointer {
  ///           invocation.invoke(result: result.baseAddress, arguments: $0.baseAddress!)
  ///         } } }
  ///     }
  ///
  /// - Precondition: `arguments` holds ``argumentCount`` valid pointers.
  public func invoke(result: UnsafeMutableRawPointer?, arguments: UnsafePointer<UnsafeRawPointer?>) {
    let interface = interface
    var blockPointer = unsafeBlock
    withUnsafeMutablePointer(to: &blockPointer) { blockSlot in
      withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(1, interface.passedCount)) {
        values in
        for (position, passed) in interface.passedIndex.enumerated() {
          guard let passed else { continue }
          values[passed] =
            position == 0
            ? UnsafeMutableRawPointer(blockSlot) : UnsafeMutableRawPointer(mutating: arguments[position - 1])
        }
        ffi_call(interface.cif, invokeFunction, result, values.baseAddress)
      }
    }
  }

  /// Calls the block with one ``CValue`` per parameter and returns its result.
  ///
  ///     try invocation.invoke([.signed(3), .double(0.5)])  // .double(1.5)
  ///
  /// - Throws: ``InvocationError``: a wrong count (``InvocationError/Kind/argumentCount``), a
  ///   value of the wrong kind or out of range, naming the argument and the path inside it.
  public func invoke(_ arguments: [CValue]) throws(InvocationError) -> CValue {
    try checkArgumentCount(arguments.count)
    var blockPointer = unsafeBlock
    return try withUnsafeMutablePointer(to: &blockPointer) { blockSlot throws(InvocationError) in
      do throws(ArgumentValueError) {
        return try interface.call(invokeFunction, leading: UnsafeMutableRawPointer(blockSlot), values: arguments)
      } catch {
        throw InvocationError(
          kind: error.error.kind, argument: error.position, path: error.error.path, message: error.error.message)
      }
    }
  }

  /// Calls the block with the argument pointers a libffi closure received (its parameters, in
  /// passed order), the first `skipping` of them left out: what a trampoline or a delegate's
  /// member does on each call.
  func forward(result: UnsafeMutableRawPointer?, passed: UnsafeMutablePointer<UnsafeMutableRawPointer?>, skipping: Int)
  {
    var blockPointer = unsafeBlock
    withUnsafeMutablePointer(to: &blockPointer) { blockSlot in
      interface.forward(
        to: invokeFunction, result: result, leading: UnsafeMutableRawPointer(blockSlot), passed: passed,
        skipping: skipping)
    }
  }

  /// Throws ``InvocationError/Kind/argumentCount`` unless a call gives `count` arguments.
  package func checkArgumentCount(_ count: Int) throws(InvocationError) {
    guard count != argumentCount else { return }
    throw InvocationError(
      kind: .argumentCount,
      message: "the block takes \(argumentCount) argument\(argumentCount == 1 ? "" : "s"), got \(count)")
  }
}
