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
    guard arguments.count == argumentCount else {
      throw InvocationError(
        kind: .argumentCount,
        reason: "the block takes \(argumentCount) argument\(argumentCount == 1 ? "" : "s"), got \(arguments.count)")
    }
    let shapes = interface.argumentShapes.dropFirst()
    let offsets = Self.packedOffsets(shapes.map(\.size))
    let storage = UnsafeMutableRawPointer.allocate(byteCount: max(16, offsets.total), alignment: 16)
    storage.initializeMemory(as: UInt8.self, repeating: 0, count: max(16, offsets.total))
    let result = UnsafeMutableRawPointer.allocate(byteCount: resultBufferSize, alignment: 16)
    result.initializeMemory(as: UInt8.self, repeating: 0, count: resultBufferSize)
    defer {
      storage.deallocate()
      result.deallocate()
    }
    var strings = CStringArena()
    for (index, shape) in shapes.enumerated() {
      do {
        try shape.store(arguments[index], at: storage + offsets.each[index], strings: &strings)
      } catch {
        throw InvocationError(kind: error.kind, argument: index + 1, path: error.path, reason: error.reason)
      }
    }
    // One spare slot keeps the buffer non-empty for a block without parameters.
    let pointers = offsets.each.map { UnsafeRawPointer(storage + $0) as UnsafeRawPointer? } + [nil]
    pointers.withUnsafeBufferPointer { invoke(result: result, arguments: $0.baseAddress!) }
    return interface.returnShape.load(from: result)
  }

  /// Offsets of values of these sizes placed one after another, each aligned to 16.
  static func packedOffsets(_ sizes: [Int]) -> (each: [Int], total: Int) {
    var offsets: [Int] = []
    var total = 0
    for size in sizes {
      offsets.append(total)
      total += (size + 15) & ~15
    }
    return (offsets, total)
  }
}
