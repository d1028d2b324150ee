import BlockSignature
import BlockSignatureFFI
import BlockSignatureSystem

/// An Objective-C object that answers a protocol's methods with blocks (BlocksKit's
/// `A2DynamicDelegate` for GNUstep): each block checked against its method's types, the other
/// methods forwarded to a real delegate.
///
///     let delegate = try ObjCDynamicDelegate(protocolName: "NSXMLParserDelegate", methods: methods)
///     let start: @convention(block) (UnsafeRawPointer?, UnsafeRawPointer?) -> Void = { parser, _ in … }
///     try delegate.implement("parserDidStartDocument:", withBlock: unsafeBitCast(start, to: UnsafeRawPointer.self))
///     try parser.send("setDelegate:", .object(delegate.object))
///
/// A block may take the method's arguments (`parser, name, …`, as BlocksKit's do), or the
/// delegate object first and then the arguments (as `imp_implementationWithBlock`'s do); its
/// signature must fit the method's at ``level`` either way. Method types come from
/// `methods` (read from the protocol's header: GCC's runtime records none for `@optional`
/// methods) or, when nil, from the runtime's record of the protocol's required methods.
///
/// The object is an `NSProxy`, as BlocksKit's is: GNUstep's `NSObject` implements whole
/// delegate protocols in categories (`NSXMLParserDelegate`, `NSURLConnectionDelegate`,
/// `NSURLDownloadDelegate`), and nothing it does not implement may answer for the delegate.
/// `respondsToSelector:` is true for exactly:
/// - the protocol's methods that have a block;
/// - what the real delegate answers (it is asked);
/// - the `NSObject` protocol, which GNUstep's delegating classes use (`respondsToSelector:`,
///   `retain`, `release`, `autorelease`, `performSelector:withObject:withObject:`), with
///   `methodForSelector:` (which `NSXMLParser` sends) and the runtime's forwarding methods.
///
/// A method of the class without a block goes to the real delegate, or answers zero. Any other
/// message goes to the real delegate when it answers; else, when GNUstep's `NSObject` has a
/// default for it, that default runs, as for any `NSObject` delegate (GNUstep's libxml2
/// `NSXMLParser` sends every event without asking `respondsToSelector:`); else
/// `doesNotRecognizeSelector:` raises `NSInvalidArgumentException`.
///
/// Ownership: ``object`` holds the blocks and the real delegate (retained) until it is
/// deallocated; this wrapper holds one reference to ``object``. Most delegating objects do not
/// retain their delegate (`NSXMLParser` does not; `NSURLConnection` does): keep this wrapper,
/// or the object, alive while it is the delegate. Implementing or removing a block while calls run on
/// other threads is safe: each call sees the block before or after the change.
public final class ObjCDynamicDelegate: @unchecked Sendable {
  /// The protocol's name.
  public let protocolName: String
  /// The instance methods the delegate answers, with their types.
  public var methods: [ObjCMethodDescription] { delegateClass.methods.map(\.description) }
  /// The delegate object to hand to the delegating object.
  public let object: ObjCObject
  /// The object called for the methods without a block.
  public var realDelegate: ObjCObject? { state.realDelegate }
  /// The level blocks are checked at.
  public let level: CompatibilityLevel
  let delegateClass: DelegateClass
  let state: DelegateState

  /// Makes a delegate for the protocol `protocolName` with `methods` (nil: the runtime's
  /// record of its required methods) and an optional `realDelegate`.
  ///
  /// - Throws: ``ObjCError``: Foundation unavailable, a protocol the runtime does not know
  ///   when `methods` is nil, a method whose types cannot be called.
  public init(
    protocolName: String, methods: [ObjCMethodDescription]? = nil, realDelegate: ObjCObject? = nil,
    level: CompatibilityLevel = .abi
  ) throws(ObjCError) {
    let listed: [ObjCMethodDescription]
    if let methods {
      listed = methods
    } else {
      listed = try ObjCProtocol(named: protocolName).methods(required: true, instance: true)
    }
    delegateClass = try DelegateClass.shared(protocolName: protocolName, methods: listed)
    self.protocolName = protocolName
    self.level = level
    state = DelegateState(delegateClass: delegateClass, realDelegate: realDelegate)
    object = try delegateClass.objcClass.makeInstance()
    state.attach(to: object.pointer)
  }

  /// Implements `selector` with `block`, whose signature must fit the method's at ``level``
  /// (with or without the delegate first). The block is copied; nothing changes when it does
  /// not fit.
  ///
  /// - Throws: ``ObjCError``: a selector the protocol does not list
  ///   (``ObjCError/Kind/unknownSelector``), a block that does not fit (with the checker's
  ///   diagnostics), a pointer that is not a block.
  public func implement(
    _ selector: Selector, withBlock block: UnsafeRawPointer, failure: DynamicBlock.FailurePolicy = .trap
  ) throws(ObjCError) {
    let position = try self.position(of: selector)
    let method = delegateClass.methods[position]
    let implementation = try Self.implementation(of: method, with: block, level: level, failure: failure)
    state.implementations.withLock { $0[position] = implementation }
  }

  /// Implements `selector` with a made block.
  public func implement(
    _ selector: Selector, with block: DynamicBlock, failure: DynamicBlock.FailurePolicy = .trap
  ) throws(ObjCError) {
    try block.withBlock { pointer throws(ObjCError) in try implement(selector, withBlock: pointer, failure: failure) }
  }

  /// Implements `selector` with a block made from `handler` and the method's types (the
  /// method's arguments, the delegate left out).
  ///
  ///     try delegate.implement("parser:foundCharacters:") { arguments in
  ///       print(try ObjCObject(retaining: arguments[1]).stringValue())
  ///       return .void
  ///     }
  public func implement(
    _ selector: Selector, failure: DynamicBlock.FailurePolicy = .trap, handler: @escaping DynamicBlock.Handler
  ) throws(ObjCError) {
    let method = delegateClass.methods[try position(of: selector)]
    let blockForm = try BlockMethodImplementation.blockForm(of: method.description.signature, withSelf: false)
    let block: DynamicBlock
    do {
      block = try DynamicBlock(signature: blockForm, failure: failure, handler: handler)
    } catch {
      throw ObjCError(invocationError: error, what: "a block for \(selector)")
    }
    try implement(selector, with: block)
  }

  /// The block implementing `selector` (the delegate's copy), or nil.
  public func blockImplementation(for selector: Selector) throws(ObjCError) -> UnsafeRawPointer? {
    let position = try self.position(of: selector)
    return state.implementations.withLock { $0[position]?.invocation.unsafeBlock }
  }

  /// Removes `selector`'s block: the method goes to the real delegate again, or the delegate
  /// stops answering it. Calls already running finish with the block.
  public func removeBlockImplementation(for selector: Selector) throws(ObjCError) {
    let position = try self.position(of: selector)
    state.implementations.withLock { $0[position] = nil }
  }

  /// What `respondsToSelector:` answers for `selector`: true for a method with a block, what
  /// the real delegate answers, and the `NSObject` protocol.
  public func responds(to selector: Selector) -> Bool {
    state.responds(to: selector)
  }

  private func position(of selector: Selector) throws(ObjCError) -> Int {
    guard let position = delegateClass.index[selector.name] else {
      throw ObjCError(kind: .unknownSelector, message: "\(protocolName) lists no instance method \(selector)")
    }
    return position
  }

  /// How `block` implements `method`: with the method's arguments, or with the delegate first.
  static func implementation(
    of method: DelegateClass.Method, with block: UnsafeRawPointer, level: CompatibilityLevel,
    failure: DynamicBlock.FailurePolicy
  ) throws(ObjCError) -> DelegateImplementation {
    do {
      try failure.check(against: method.interface)
    } catch {
      throw ObjCError(invocationError: error, what: "the failure policy of \(method.description.selector)")
    }
    let signature = method.description.signature
    let plain = try BlockMethodImplementation.blockForm(of: signature, withSelf: false)
    let firstError: InvocationError
    do {
      let invocation = try BlockInvocation(block: block, declaredSignature: plain.description, level: level)
      return DelegateImplementation(invocation: invocation, takesSelf: false, failure: failure)
    } catch {
      firstError = error
    }
    guard firstError.kind == .incompatibleSignature else {
      throw ObjCError(invocationError: firstError, what: "a block for \(method.description.selector)")
    }
    let withSelf = try BlockMethodImplementation.blockForm(of: signature, withSelf: true)
    if let invocation = try? BlockInvocation(block: block, declaredSignature: withSelf.description, level: level) {
      return DelegateImplementation(invocation: invocation, takesSelf: true, failure: failure)
    }
    throw ObjCError(
      invocationError: firstError, what: "a block for \(method.description.selector) (nor with the delegate first)")
  }
}
