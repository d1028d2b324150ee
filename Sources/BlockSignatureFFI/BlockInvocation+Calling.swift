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
    var blockPointer = block
    withUnsafeMutablePointer(to: &blockPointer) { blockSlot in
      withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(1, interface.passedCount)) {
        values in
        var next = 0
        for index in interface.isPassed.indices where interface.isPassed[index] {
          values[next] =
            index == 0 ? UnsafeMutableRawPointer(blockSlot) : UnsafeMutableRawPointer(mutating: arguments[index - 1])
          next += 1
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
    let interface = interface
    // Arguments, their pointers and the result live on the stack for small signatures.
    return try withUnsafeTemporaryAllocation(byteCount: interface.explicitStorageSize, alignment: 16) {
      storage throws(InvocationError) in
      try withUnsafeTemporaryAllocation(byteCount: interface.resultBufferSize, alignment: 16) {
        result throws(InvocationError) in
        try withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: max(1, arguments.count)) {
          pointers throws(InvocationError) in
          let base = storage.baseAddress!
          base.initializeMemory(as: UInt8.self, repeating: 0, count: storage.count)
          var strings = CStringArena()
          for index in arguments.indices {
            let address = base + interface.explicitOffsets[index]
            do throws(ValueError) {
              try interface.argumentShapes[index + 1].store(arguments[index], at: address, strings: &strings)
            } catch {
              throw InvocationError(kind: error.kind, argument: index + 1, path: error.path, reason: error.reason)
            }
            pointers[index] = UnsafeRawPointer(address)
          }
          invoke(result: result.baseAddress, arguments: UnsafePointer(pointers.baseAddress!))
          return interface.returnShape.load(from: result.baseAddress!)
        }
      }
    }
  }

  /// Throws ``InvocationError/Kind/argumentCount`` unless a call gives `count` arguments.
  package func checkArgumentCount(_ count: Int) throws(InvocationError) {
    guard count != argumentCount else { return }
    throw InvocationError(
      kind: .argumentCount,
      reason: "the block takes \(argumentCount) argument\(argumentCount == 1 ? "" : "s"), got \(count)")
  }
}
