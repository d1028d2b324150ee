import BlockSignature
import BlockSignatureFFI
import CBlockSignatureObjC

/// A strong reference to an Objective-C object: retained while the `ObjCObject` lives and
/// released when Swift lets go of it (GNUstep on GCC's runtime counts references by hand).
///
///     try ObjCRuntime.withAutoreleasePool {
///       let text = try ObjCObject(string: "one,two")
///       let range = try text.send("rangeOfString:", .object(try ObjCObject(string: ",")))
///       print(range)  // [3, 1]
///     }
public final class ObjCObject: @unchecked Sendable, Hashable, CustomStringConvertible {
  /// The object (`id`).
  public let pointer: UnsafeRawPointer

  /// Holds `pointer` with a reference of its own (`retain`).
  ///
  /// - Throws: ``ObjCError/Kind/exception`` when `retain` raises.
  public init(retaining pointer: UnsafeRawPointer) throws(ObjCError) {
    try ObjCMessages.sendObject(pointer, "retain")
    self.pointer = pointer
  }

  /// Holds the object a typed argument or result points at (`.pointer` to an object).
  ///
  ///     try delegate.implement("parser:foundCharacters:") { arguments in
  ///       print(try ObjCObject(retaining: arguments[1]).stringValue())
  ///       return .void
  ///     }
  ///
  /// - Throws: ``ObjCError/Kind/invalidCall`` for nil or a value that is not a pointer.
  public convenience init(retaining value: CValue) throws(ObjCError) {
    guard case .pointer(let address) = value, let pointer = UnsafeRawPointer(bitPattern: address) else {
      throw ObjCError(kind: .invalidCall, message: "\(value) is not an object")
    }
    try self.init(retaining: pointer)
  }

  /// Takes over the reference the caller owns: the result of `alloc`/`init`, `new`, `copy`.
  public init(adopting pointer: UnsafeRawPointer) {
    self.pointer = pointer
  }

  deinit {
    _ = try? ObjCMessages.sendObject(pointer, "release")
  }

  /// A new `NSString` holding `text` (GNUstep Base is loaded when needed).
  ///
  /// - Throws: ``ObjCError``: Foundation unavailable, or an exception.
  public convenience init(string text: String) throws(ObjCError) {
    try ObjCRuntime.loadFoundation()
    let stringClass = try ObjCClass(named: "NSString")
    let allocated = try ObjCMessages.sendObject(stringClass.pointer, "alloc")
    let initializer = try ObjCMessage.prepared("initWithUTF8String:", receiver: allocated!)
    let made = try text.withCString { bytes in
      Result { () throws(ObjCError) in try initializer.send(to: allocated, [.pointer(UInt(bitPattern: bytes))]) }
    }.get()
    guard case .pointer(let address) = made, let object = UnsafeRawPointer(bitPattern: address) else {
      throw ObjCError(kind: .invalidCall, message: "initWithUTF8String: returned nil for \(text.debugDescription)")
    }
    self.init(adopting: object)
  }

  /// The object's class.
  public var objectClass: ObjCClass { ObjCClass(of: pointer) }

  /// The text of an `NSString` (`UTF8String`).
  ///
  /// - Throws: ``ObjCError/Kind/invalidCall`` when the object has no `UTF8String`, or an
  ///   exception.
  public func stringValue() throws(ObjCError) -> String {
    guard objectClass.instancesRespond(to: "UTF8String") else {
      throw ObjCError(kind: .invalidCall, message: "\(objectClass.name) has no UTF8String: not a string")
    }
    guard let bytes = try ObjCMessages.sendObject(pointer, "UTF8String") else {
      throw ObjCError(kind: .invalidCall, message: "UTF8String returned NULL")
    }
    return String(cString: bytes.assumingMemoryBound(to: CChar.self))
  }

  /// Sends `selector` with `arguments`, the types taken from the object's class (each
  /// class–selector pair is prepared once and kept).
  ///
  /// - Throws: ``ObjCError``: no such method, arguments that do not fit, an exception.
  @discardableResult
  public func send(_ selector: Selector, _ arguments: CValue...) throws(ObjCError) -> CValue {
    try ObjCMessage.prepared(selector, receiver: pointer).send(to: pointer, arguments)
  }

  /// Sends `selector` and wraps the object it returns (retained; nil for nil).
  ///
  /// - Throws: ``ObjCError/Kind/invalidCall`` when the method does not return an object.
  public func sendForObject(_ selector: Selector, _ arguments: CValue...) throws(ObjCError) -> ObjCObject? {
    let message = try ObjCMessage.prepared(selector, receiver: pointer)
    try message.requireObjectResult(sentTo: "-[\(objectClass.name) \(selector)]")
    guard case .pointer(let address) = try message.send(to: pointer, arguments),
      let object = UnsafeRawPointer(bitPattern: address)
    else { return nil }
    return try ObjCObject(retaining: object)
  }

  /// Objects are equal when they are the same object.
  public static func == (lhs: ObjCObject, rhs: ObjCObject) -> Bool { lhs.pointer == rhs.pointer }

  /// Hashes the address.
  public func hash(into hasher: inout Hasher) { hasher.combine(pointer) }

  /// `<Class 0x…>`.
  public var description: String { "<\(objectClass.name) \(pointer)>" }
}

extension CValue {
  /// An object argument (nil is `nil`). The object is retained and autoreleased, so that it
  /// outlives the send even when Swift lets go of the ``ObjCObject`` first (an argument made
  /// in place, `.object(try ObjCObject(string: ","))`): it lives until the innermost
  /// autorelease pool drains. Use it inside ``ObjCRuntime/withAutoreleasePool(_:)``; outside a
  /// pool GNUstep warns and the reference leaks. ``pointer(_:)`` passes an address as it is.
  public static func object(_ object: ObjCObject?) -> CValue {
    guard let object else { return .pointer(0) }
    _ = try? ObjCMessages.sendObject(object.pointer, "retain")
    _ = try? ObjCMessages.sendObject(object.pointer, "autorelease")
    return .pointer(UInt(bitPattern: object.pointer))
  }

  /// A selector argument (`SEL`).
  public static func selector(_ selector: Selector) -> CValue { .pointer(UInt(bitPattern: selector.pointer)) }

  /// A class argument (`Class`).
  public static func objcClass(_ objcClass: ObjCClass) -> CValue { .pointer(UInt(bitPattern: objcClass.pointer)) }
}

extension ObjCMessage {
  /// Throws unless the method returns an object, a class or a block: what a result wrapped in
  /// an ``ObjCObject`` (and so sent `retain`) must be. `what` names the method in the error.
  func requireObjectResult(sentTo what: String) throws(ObjCError) {
    let returnType = signature.encoding.returnType
    guard !returnType.unqualified.isObjectPointer else { return }
    throw ObjCError(
      kind: .invalidCall,
      message:
        "\(what) returns \(returnType) (\(returnType.cDeclaration(for: signature.model))), not an object: send it with send(_:_:)"
    )
  }
}

extension TypeEncoding {
  /// An object, a class or a block: what `retain` applies to.
  var isObjectPointer: Bool {
    switch self {
    case .object, .block, .primitive(.class): true
    default: false
    }
  }
}
