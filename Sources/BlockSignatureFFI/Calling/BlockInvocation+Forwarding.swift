// `invokeWithInvocation:`'s job: a call that arrives in method form (NSInvocation's frame:
// `self`, `_cmd`, then each argument at its offset) forwarded to the block.

import BlockSignature

/// How a method-form frame maps onto a block's arguments, checked once; made by
/// ``BlockInvocation/forwarding(from:level:)``.
public struct FrameForwarding: Hashable, Sendable {
  /// The method signature frames are laid out by.
  public let method: MethodSignature
  /// For each block parameter, the byte offset of its value in the frame.
  public let offsets: [Int]
}

extension BlockInvocation {
  /// Checks that calls in `method`'s form (a method signature, `self` and `_cmd` first) can be
  /// forwarded to this block: the method converted to block form must fit the block's
  /// signature at `level`.
  ///
  ///     let forwarding = try invocation.forwarding(from: MethodSignature(parsing: "d28@0:8i16d20"))
  ///     invocation.invoke(frame: frame, forwarding: forwarding, result: result)
  ///
  /// - Throws: ``InvocationError``: not a method signature, or one the block does not fit (with
  ///   the checker's diagnostics).
  public func forwarding(from method: MethodSignature, level: CompatibilityLevel = .abi) throws(InvocationError)
    -> FrameForwarding
  {
    guard method.kind == .method else {
      throw InvocationError(kind: .invalidSignature, message: "\(method) is not a method signature (@0:8 first)")
    }
    let asBlock: MethodSignature
    do {
      asBlock = try method.converted(to: .block)
    } catch {
      throw InvocationError(kind: .invalidSignature, message: error.description)
    }
    try Self.requireFit(signature, to: asBlock, named: "the method \(method)", level: level)
    let offsets = method.arguments.dropFirst(2).map { $0.writtenOffset ?? $0.offset }
    return FrameForwarding(method: method, offsets: offsets)
  }

  /// Calls the block with the arguments of a method-form `frame` laid out as `forwarding`
  /// says; the result goes to `result` (``resultBufferSize`` bytes, nil for `void`).
  /// Allocates nothing.
  ///
  /// - Precondition: `forwarding` was made by this invocation.
  public func invoke(frame: UnsafeRawPointer, forwarding: FrameForwarding, result: UnsafeMutableRawPointer?) {
    withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: max(1, forwarding.offsets.count)) { pointers in
      for (index, offset) in forwarding.offsets.enumerated() { pointers[index] = frame + offset }
      invoke(result: result, arguments: UnsafePointer(pointers.baseAddress!))
    }
  }
}
