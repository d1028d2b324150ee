// Reaching a made block's pointer without letting it dangle: a scope in which the
// `DynamicBlock` is kept alive, or a reference of the block's own that C owns.

import CBlockABI

extension DynamicBlock {
  /// Runs `body` with the block, which stays valid until `body` returns (the `DynamicBlock` is
  /// kept alive for the call, even in an optimized build), and returns what `body` returns.
  ///
  ///     typealias Add = @convention(block) (Int32, Int32) -> Int32
  ///     let sum = add.withBlock { unsafeBitCast($0, to: Add.self)(2, 3) }  // 5
  ///
  /// Code that keeps the block past `body` takes a reference of its own: ``retainedBlock()``
  /// in Swift, `Block_copy` in C.
  /// Do not return the block as a Swift block type: the result is generic.
  ///
  /// - Throws: What `body` throws.
  public func withBlock<Result, Failure: Error>(
    _ body: (UnsafeRawPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(unsafeBlock) }
  }

  /// A reference to the block that the caller owns: valid until it is released, with
  /// ``release(_:)`` from Swift or `Block_release` from C, however long before that the
  /// `DynamicBlock` goes away. The handler lives until the last reference is released.
  ///
  ///     let block = try makeAdder().retainedBlock()  // the DynamicBlock is gone at once
  ///     registerCallback(block)                      // C calls it, later releases it
  ///
  /// The corresponding blocks runtime call is `_Block_copy`, which for a heap block adds a
  /// reference and returns the same address.
  public func retainedBlock() -> UnsafeRawPointer {
    withBlock { block in
      guard let copy = _Block_copy(block) else {
        preconditionFailure("_Block_copy of a heap block returned NULL")
      }
      return UnsafeRawPointer(copy)
    }
  }

  /// Releases one reference to a block: one that ``retainedBlock()`` returned, or any other
  /// that `_Block_copy` made. The last release of a made block releases its handler.
  ///
  ///     let kept = add.retainedBlock()
  ///     // … C calls `kept`, for as long as it needs …
  ///     DynamicBlock.release(kept)
  ///
  /// This is the blocks runtime's `_Block_release`, so no other module needs importing. Each
  /// reference is released once; the block must not be used after its last release.
  public static func release(_ block: UnsafeRawPointer) {
    _Block_release(block)
  }
}
