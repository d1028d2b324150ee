// The two calls every caller of a prepared interface makes: one with typed values, and one that
// passes on the argument pointers of a libffi closure (a trampoline, a delegate's member).

import CFFI

/// Makes the libffi call of a prepared interface in place of `ffi_call` (the Objective-C layer
/// makes it inside `@try`): the interface, the function, the result buffer, the argument pointers.
/// Not escaping: a call captures nothing on the heap.
package typealias FFICallPerformer = (
  UnsafeMutablePointer<ffi_cif>, @convention(c) () -> Void, UnsafeMutableRawPointer,
  UnsafeMutablePointer<UnsafeMutableRawPointer?>
) -> Void

/// A value that does not fit its argument: the argument's position in the signature and why.
package struct ArgumentValueError: Error {
  package var position: Int
  package var error: ValueError
}

extension CallInterface {
  /// Calls `function` with `values` for the arguments after `leading` (the address of the first
  /// argument's bytes, the block pointer's slot; nil when `values` cover every argument) and
  /// `second` (the second argument's, a method's `_cmd`), each checked and stored at its C
  /// layout, and returns the result. Arguments, their pointers and the result live on the
  /// stack for small signatures.
  package func call(
    _ function: @convention(c) () -> Void, leading: UnsafeMutableRawPointer?,
    second: UnsafeMutableRawPointer? = nil, values: [CValue], perform: FFICallPerformer = { ffi_call($0, $1, $2, $3) }
  ) throws(ArgumentValueError) -> CValue {
    let first = leading == nil ? 0 : second == nil ? 1 : 2
    return try withUnsafeTemporaryAllocation(byteCount: storageSize, alignment: 16) {
      storage throws(ArgumentValueError) in
      try withUnsafeTemporaryAllocation(byteCount: resultBufferSize, alignment: 16) {
        result throws(ArgumentValueError) in
        try withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(1, passedCount)) {
          passed throws(ArgumentValueError) in
          let base = storage.baseAddress!
          storage.initializeMemory(as: UInt8.self, repeating: 0)
          var strings = CStringArena()
          for (offset, value) in values.enumerated() {
            let position = first + offset
            let address = base + storageOffsets[position]
            // A scalar of its own kind and in range is stored directly; anything else goes
            // through the shape, which converts or says what is wrong.
            if let access = scalarAccess[position], access.storeArgument(value, at: address) { continue }
            do throws(ValueError) {
              try argumentShapes[position].store(value, at: address, strings: &strings)
            } catch {
              throw ArgumentValueError(position: position, error: error)
            }
          }
          for position in argumentShapes.indices {
            guard let index = passedIndex[position] else { continue }
            passed[index] =
              position >= first ? base + storageOffsets[position] : position == 0 ? leading : second
          }
          perform(cif, function, result.baseAddress!, passed.baseAddress!)
          if let access = returnScalarAccess { return access.load(from: result.baseAddress!) }
          return returnShape.load(from: result.baseAddress!)
        }
      }
    }
  }

  /// Calls `function` with the argument pointers a libffi closure received (`passed`, in
  /// passed order), the first `skipping` of them left out and `leading` (an address of
  /// argument bytes) put first when it is not nil.
  func forward(
    to function: @convention(c) () -> Void, result: UnsafeMutableRawPointer?, leading: UnsafeMutableRawPointer?,
    passed: UnsafeMutablePointer<UnsafeMutableRawPointer?>, skipping: Int
  ) {
    withUnsafeTemporaryAllocation(of: UnsafeMutableRawPointer?.self, capacity: max(1, passedCount)) { values in
      var next = 0
      if let leading {
        values[0] = leading
        next = 1
      }
      var source = skipping
      while next < passedCount {
        values[next] = passed[source]
        next += 1
        source += 1
      }
      ffi_call(cif, function, result, values.baseAddress)
    }
  }
}
