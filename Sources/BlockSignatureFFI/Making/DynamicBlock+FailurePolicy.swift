// What a made block does when its handler throws: C cannot catch a Swift error, so the block
// either stops the process or returns a value chosen in advance.

import BlockSignature

extension DynamicBlock {
  /// What a made block returns to C when its handler throws (or returns a value that does not
  /// fit the return type). A Swift trap in the handler (an index out of range) cannot be
  /// caught: it stops the process whatever the policy.
  ///
  ///     let lenient = DynamicBlock.FailurePolicy.returnValue(.signed(-1)).reporting { print("handler failed: \($0)") }
  public struct FailurePolicy: Sendable {
    enum Action: Sendable {
      case trap
      case zero
      case value(CValue)
    }

    let action: Action
    let observer: (@Sendable (any Error) -> Void)?

    /// Stops the process with a message naming the signature and the error (the default: a
    /// block that cannot answer must not hand C a made-up value unasked).
    public static var trap: FailurePolicy { FailurePolicy(action: .trap, observer: nil) }

    /// Returns zero bytes: 0, 0.0, NULL, a zeroed structure.
    public static var returnZero: FailurePolicy { FailurePolicy(action: .zero, observer: nil) }

    /// Returns `value`, checked against the return type when the block is made.
    public static func returnValue(_ value: CValue) -> FailurePolicy {
      FailurePolicy(action: .value(value), observer: nil)
    }

    /// The same policy, calling `observer` with the error first (on the calling thread).
    public func reporting(to observer: @escaping @Sendable (any Error) -> Void) -> FailurePolicy {
      FailurePolicy(action: action, observer: observer)
    }

    /// Refuses a fallback value that does not fit the return type.
    func validate(for interface: CallInterface) throws(InvocationError) {
      guard case .value(let value) = action else { return }
      let shape = interface.returnShape
      try withUnsafeTemporaryAllocation(byteCount: max(16, shape.resultBytes), alignment: 16) {
        buffer throws(InvocationError) in
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        var strings = CStringArena()
        do throws(ValueError) {
          try shape.store(value, at: buffer.baseAddress!, strings: &strings, path: ["fallback return value"])
        } catch {
          throw InvocationError(kind: error.kind, path: error.path, message: error.message)
        }
      }
    }

    /// Answers a call of `interface` that failed with `error` outside a made block (a method
    /// implemented by a block whose call raised): the policy's value goes to `result`, or the
    /// process stops with `what` and the error.
    package func respond(
      to error: any Error, result: UnsafeMutableRawPointer, interface: CallInterface, what: @autoclosure () -> String
    ) {
      observer?(error)
      let shape = interface.returnShape
      result.initializeMemory(as: UInt8.self, repeating: 0, count: shape.resultBytes)
      switch action {
      case .trap:
        fatalError("\(what()) failed: \(error)")
      case .zero:
        break
      case .value(let value):
        // Checked when the policy was given; a string stays in memory C may keep reading.
        var strings = CStringArena(interningIn: Self.fallbackStrings)
        try? shape.store(value, at: result, strings: &strings, path: [])
      }
      shape.widenResult(at: result)
    }

    /// Strings returned as fallback values outside made blocks, kept for the process's life
    /// (one copy per distinct text).
    private static let fallbackStrings = CStringTable()

    /// Refuses a fallback value that does not fit `interface`'s return type.
    package func check(against interface: CallInterface) throws(InvocationError) {
      try validate(for: interface)
    }

    /// Answers a call whose handler failed with `error`.
    func respond(to error: any Error, call: Call) {
      observer?(error)
      switch action {
      case .trap:
        fatalError("the handler of a DynamicBlock \(call.signature) failed: \(error)")
      case .zero:
        call.result.initializeMemory(as: UInt8.self, repeating: 0, count: call.interface.returnShape.resultBytes)
      case .value(let value):
        try? call.setResult(value)  // checked when the block was made
      }
    }
  }
}
