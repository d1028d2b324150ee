// Members implemented by Swift handlers: a block made from the member's own signature, whose
// calls know the delegate's context.

import BlockSignature

extension DynamicDelegate {
  /// A handler given the delegate's ``context`` and one typed value per parameter of the
  /// member (its context parameter included), that returns the member's result.
  public typealias ContextHandler =
    @Sendable (_ context: UnsafeMutableRawPointer, _ arguments: [CValue]) throws ->
    CValue

  /// Implements `member` with a block made from `handler` and the member's own signature: the
  /// handler gets one ``CValue`` per parameter, the context parameter included.
  ///
  ///     try delegate.implement("add") { arguments in
  ///       guard case .signed(let a) = arguments[1], case .signed(let b) = arguments[2] else { return .signed(0) }
  ///       return .signed(a + b)
  ///     }
  ///
  /// - Throws: `DelegateError`: an unknown or data member,
  ///   `DelegateError/Kind/uncallableMember` for a failure policy that does not fit.
  public func implement(
    _ member: String, failure: DynamicBlock.FailurePolicy = .trap, handler: @escaping DynamicBlock.Handler
  ) throws(DelegateError) {
    try implement(member, body: .typed(handler), failure: failure)
  }

  /// Implements `member` with a block made from `handler`, which is also given the delegate's
  /// ``context`` (a `@Sendable` handler cannot capture the raw pointer itself).
  ///
  ///     try delegate.implement("note") { context, arguments in
  ///       let delegate = Unmanaged<DynamicDelegate>.fromOpaque(context).takeUnretainedValue()
  ///       try delegate.setValue(.unsigned(2), of: "version")
  ///       return .void
  ///     }
  ///
  /// - Throws: `DelegateError`, as ``implement(_:failure:handler:)`` does.
  public func implement(
    _ member: String, failure: DynamicBlock.FailurePolicy = .trap, contextHandler: @escaping ContextHandler
  ) throws(DelegateError) {
    let body = DynamicBlock.Body.raw { call in
      // A block made here always carries its delegate's context.
      try call.setResult(try contextHandler(call.context!, call.arguments))
    }
    try implement(member, body: body, failure: failure)
  }

  /// Implements `member` with a block made from `rawHandler` and the member's own signature:
  /// the handler reads the arguments' bytes itself (``DynamicBlock/Call/argumentAddress(_:)``)
  /// and finds the delegate's context in ``DynamicBlock/Call/context``. Parameters are
  /// numbered as the member's, the context parameter included.
  ///
  ///     // void (*characters)(void *ctx, const xmlChar *ch, int len): `len` bytes, no NUL
  ///     try delegate.implement("characters", rawHandler: { call in
  ///       let bytes = call.argumentAddress(1).load(as: UnsafePointer<UInt8>.self)
  ///       let count = Int(call.argumentAddress(2).load(as: Int32.self))
  ///       print(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
  ///     })
  ///
  /// - Throws: `DelegateError`, as ``implement(_:failure:handler:)`` does.
  @_disfavoredOverload
  public func implement(
    _ member: String, failure: DynamicBlock.FailurePolicy = .trap, rawHandler: @escaping DynamicBlock.RawHandler
  ) throws(DelegateError) {
    try implement(member, body: .raw(rawHandler), failure: failure)
  }

  private func implement(_ member: String, body: DynamicBlock.Body, failure: DynamicBlock.FailurePolicy)
    throws(DelegateError)
  {
    let slot = try self.slot(member)
    let block: DynamicBlock
    do {
      block = try DynamicBlock(signature: slot.interface.signature, body: body, failure: failure, context: context)
    } catch {
      throw DelegateError(kind: .uncallableMember, member: member, message: error.description)
    }
    try implement(member, with: block)
  }
}
