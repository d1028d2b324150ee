import BlockSignatureFFI

extension ObjCClass {
  /// Sends the class method `selector` to the class, the types taken from its metaclass.
  ///
  ///     let array = try ObjCClass(named: "NSArray").sendForObject("arrayWithObject:", .object(item))
  ///
  /// - Throws: ``ObjCError``: no such class method, arguments that do not fit, an exception.
  @discardableResult
  public func send(_ selector: Selector, _ arguments: CValue...) throws(ObjCError) -> CValue {
    try ObjCMessage.prepared(selector, receiver: pointer).send(to: pointer, arguments)
  }

  /// Sends the class method `selector` and wraps the object it returns (retained; nil for nil).
  public func sendForObject(_ selector: Selector, _ arguments: CValue...) throws(ObjCError) -> ObjCObject? {
    let message = try ObjCMessage.prepared(selector, receiver: pointer)
    guard case .pointer(let address) = try message.send(to: pointer, arguments),
      let object = UnsafeRawPointer(bitPattern: address)
    else { return nil }
    return try ObjCObject(retaining: object)
  }

  /// A new instance (`new`), owned by the result.
  ///
  /// - Throws: ``ObjCError``: an exception, or `new` returned nil.
  public func makeInstance() throws(ObjCError) -> ObjCObject {
    guard let object = try ObjCMessages.sendObject(pointer, "new") else {
      throw ObjCError(kind: .invalidCall, message: "+[\(name) new] returned nil")
    }
    return ObjCObject(adopting: object)
  }
}
