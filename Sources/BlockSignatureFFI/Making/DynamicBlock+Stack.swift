// A made block on the stack, as clang passes a literal to a call that does not keep it (or that
// copies it itself): no heap block unless the callee copies.

import BlockSignature

extension DynamicBlock {
  /// Runs `body` with a stack block of `signature` whose calls run `handler`, and returns what
  /// `body` returns. The block is valid until `body` returns; code that keeps it must
  /// `_Block_copy` it, as with any stack literal, and the copy then keeps the handler alive.
  /// Hand it to C, or call it with ``BlockInvocation``: called from Swift through
  /// `unsafeBitCast` to a block type, Swift copies it to the heap and the copy is never
  /// released (seen with Swift 6.3).
  ///
  ///     try DynamicBlock.withStackBlock(signature: "v8@?0", handler: { _ in print("called"); return .void }) { block in
  ///       callSynchronously(block)  // a C function that calls the block before returning
  ///     }
  ///
  /// - Throws: ``InvocationError`` as making a ``DynamicBlock`` does, or what `body`
  ///   throws.
  public static func withStackBlock<Result>(
    signature: String, failure: FailurePolicy = .trap, handler: @escaping Handler,
    _ body: (UnsafeRawPointer) throws(InvocationError) -> Result
  ) throws(InvocationError) -> Result {
    let (parsed, text) = try blockForm(of: signature)
    return try withLiteral(signature: parsed, text: text, body: .typed(handler), failure: failure, body)
  }

  /// Runs `body` with a stack block of `signature` whose calls run `rawHandler`.
  @_disfavoredOverload
  public static func withStackBlock<Result>(
    signature: String, failure: FailurePolicy = .trap, rawHandler: @escaping RawHandler,
    _ body: (UnsafeRawPointer) throws(InvocationError) -> Result
  ) throws(InvocationError) -> Result {
    let (parsed, text) = try blockForm(of: signature)
    return try withLiteral(signature: parsed, text: text, body: .raw(rawHandler), failure: failure, body)
  }
}
