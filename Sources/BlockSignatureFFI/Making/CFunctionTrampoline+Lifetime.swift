// Reaching a trampoline's function without letting it dangle: a scope in which the trampoline,
// which frees the function when it is released, is kept alive.

extension CFunctionTrampoline {
  /// Runs `body` with the function's address, which stays valid until `body` returns (the
  /// trampoline is kept alive for the call, even in an optimized build).
  ///
  ///     trampoline.withFunction { address in install(address) }
  ///
  /// - Throws: What `body` throws.
  public func withFunction<Result, Failure: Error>(
    _ body: (UnsafeRawPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(unsafeFunctionAddress) }
  }

  /// Runs `body` with the function as a Swift `@convention(c)` type, valid until `body`
  /// returns. The type must match ``signature``: nothing can check it.
  ///
  ///     typealias Compare = @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int32
  ///     trampoline.withFunction(as: Compare.self) { qsort(&numbers, numbers.count, 4, $0) }
  ///
  /// - Throws: What `body` throws.
  public func withFunction<Function, Result, Failure: Error>(
    as type: Function.Type, _ body: (Function) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try withExtendedLifetime(self) { () throws(Failure) -> Result in try body(unsafeFunction(as: type)) }
  }

}
