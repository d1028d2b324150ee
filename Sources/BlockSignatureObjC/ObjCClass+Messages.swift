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
  ///
  ///     let empty = try ObjCClass(named: "NSArray").sendForObject("array")
  ///
  /// - Throws: ``ObjCError``: no such class method, a method that does not return an object
  ///   (``ObjCError/Kind/invalidCall``: use ``send(_:_:)``), arguments that do not fit, an
  ///   exception.
  public func sendForObject(_ selector: Selector, _ arguments: CValue...) throws(ObjCError) -> ObjCObject? {
    let message = try ObjCMessage.prepared(selector, receiver: pointer)
    try message.requireObjectResult(sentTo: "+[\(name) \(selector)]")
    guard case .pointer(let address) = try message.send(to: pointer, arguments),
      let object = UnsafeRawPointer(bitPattern: address)
    else { return nil }
    return try ObjCObject(retaining: object)
  }

  /// A new instance (`new`, or `alloc` and `init` for a class without `new`, such as a
  /// subclass of `NSProxy`), owned by the result.
  ///
  ///     let object = try ObjCClass(named: "NSObject").makeInstance()
  ///
  /// - Throws: ``ObjCError``: an exception, or the class made no instance.
  public func makeInstance() throws(ObjCError) -> ObjCObject {
    let made: UnsafeRawPointer?
    if metaclass.instancesRespond(to: "new") {
      made = try ObjCMessages.sendObject(pointer, "new")
    } else {
      made = try ObjCMessages.sendObject(pointer, "alloc").flatMap { allocated throws(ObjCError) in
        try ObjCMessages.sendObject(allocated, "init")
      }
    }
    guard let made else {
      throw ObjCError(kind: .invalidCall, message: "\(name) made no instance (new, or alloc and init, returned nil)")
    }
    return ObjCObject(adopting: made)
  }
}

extension ObjCClass {
  /// `[[Class alloc] initializer…]`: a new instance made by `alloc` and the initializer
  /// `selector` with `arguments`, owned by the caller (nil when the initializer returns nil).
  ///
  ///     let parser = try ObjCClass(named: "NSXMLParser").makeInstanceAllocated("initWithData:", .object(data))
  ///
  /// - Throws: ``ObjCError``: no such initializer, an initializer that does not return an
  ///   object (``ObjCError/Kind/invalidCall``; the allocated instance is released), arguments
  ///   that do not fit, an exception.
  public func makeInstanceAllocated(_ selector: Selector, _ arguments: CValue...) throws(ObjCError) -> UnsafeRawPointer?
  {
    guard let allocated = try ObjCMessages.sendObject(pointer, "alloc") else {
      throw ObjCError(kind: .invalidCall, message: "+[\(name) alloc] returned nil")
    }
    let message: ObjCMessage
    do {
      message = try ObjCMessage.prepared(selector, receiver: allocated)
      try message.requireObjectResult(sentTo: "-[\(ObjCClass(of: allocated).name) \(selector)]")
    } catch {
      _ = try? ObjCMessages.sendObject(allocated, "release")
      throw error
    }
    guard case .pointer(let address) = try message.send(to: allocated, arguments) else { return nil }
    return UnsafeRawPointer(bitPattern: address)
  }
}
