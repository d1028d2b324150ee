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

extension ObjCClass {
  /// `[[Class alloc] initializer…]`: a new instance made by `alloc` and the initializer
  /// `selector` with `arguments`, owned by the caller (nil when the initializer returns nil).
  ///
  ///     let parser = try ObjCClass(named: "NSXMLParser").makeInstanceAllocated("initWithData:", .object(data))
  ///
  /// - Throws: ``ObjCError``: no such initializer, arguments that do not fit, an exception.
  public func makeInstanceAllocated(_ selector: Selector, _ arguments: CValue...) throws(ObjCError) -> UnsafeRawPointer?
  {
    guard let allocated = try ObjCMessages.sendObject(pointer, "alloc") else {
      throw ObjCError(kind: .invalidCall, message: "+[\(name) alloc] returned nil")
    }
    guard
      case .pointer(let address) = try ObjCMessage.prepared(selector, receiver: allocated).send(
        to: allocated, arguments)
    else { return nil }
    return UnsafeRawPointer(bitPattern: address)
  }
}
