import BlockSignatureSystem
import CBlockSignatureObjC

/// An Objective-C class (or metaclass) of GCC's runtime.
///
///     let string = try ObjCClass(named: "NSString")
///     string.superclass?.name                  // NSObject
///     string.instanceMethod("length")?.typeEncoding  // Q16@0:8
///
/// Class methods are the metaclass's instance methods: ``metaclass`` has them, and a message
/// to the class itself is prepared on it.
public struct ObjCClass: Hashable, @unchecked Sendable, CustomStringConvertible {
  /// The runtime's `Class`.
  public let pointer: UnsafeRawPointer

  /// Wraps a runtime `Class`.
  public init(_ pointer: UnsafeRawPointer) {
    self.pointer = pointer
  }

  /// The class called `name`. When the runtime has no such class and GNUstep Base is not
  /// loaded yet, it is loaded (``ObjCRuntime/loadFoundation()``) and the name looked up again:
  /// `ObjCClass(named: "NSObject")` works first thing.
  ///
  /// - Throws: ``ObjCError/Kind/unknownClass``, saying why GNUstep Base could not be loaded
  ///   when it could not.
  public init(named name: String) throws(ObjCError) {
    if let pointer = cbo_class_named(name) {
      self.pointer = pointer
      return
    }
    do {
      try ObjCRuntime.loadFoundation()
    } catch {
      throw ObjCError(
        kind: .unknownClass,
        message: "no class is called \(name), and GNUstep Base, where Foundation's classes are, is not loaded: "
          + "ObjCRuntime.loadFoundation() failed: \(error.message)")
    }
    guard let pointer = cbo_class_named(name) else {
      throw ObjCError(kind: .unknownClass, message: "no class is called \(name) (GNUstep Base is loaded)")
    }
    self.pointer = pointer
  }

  /// The class of `object` (a class's class is its metaclass).
  public init(of object: UnsafeRawPointer) {
    pointer = cbo_object_get_class(object)!
  }

  /// The name.
  public var name: String { String(cString: cbo_class_get_name(pointer)) }

  /// The superclass; nil for a root class.
  public var superclass: ObjCClass? { cbo_class_get_superclass(pointer).map { ObjCClass($0) } }

  /// Whether this is a metaclass (its instance methods are a class's class methods).
  public var isMetaclass: Bool { cbo_class_is_metaclass(pointer) != 0 }

  /// The metaclass, whose instance methods are this class's class methods.
  public var metaclass: ObjCClass { isMetaclass ? self : ObjCClass(of: pointer) }

  /// The bytes of an instance.
  public var instanceSize: Int { cbo_class_get_instance_size(pointer) }

  /// The instance method for `selector`, inherited ones included.
  public func instanceMethod(_ selector: Selector) -> ObjCMethod? {
    cbo_class_instance_method(pointer, selector.pointer).map(ObjCMethod.init)
  }

  /// The class method for `selector`, inherited ones included.
  public func classMethod(_ selector: Selector) -> ObjCMethod? {
    cbo_class_class_method(pointer, selector.pointer).map(ObjCMethod.init)
  }

  /// Whether instances answer `selector` (a method found, forwarding not counted).
  public func instancesRespond(to selector: Selector) -> Bool {
    cbo_class_responds_to_selector(pointer, selector.pointer) != 0
  }

  /// The methods the class itself defines, in the runtime's order.
  public var methods: [ObjCMethod] {
    var count: UInt32 = 0
    guard let list = cbo_class_copy_methods(pointer, &count) else { return [] }
    defer { system_free(list) }
    return (0..<Int(count)).compactMap { list[$0].map(ObjCMethod.init) }
  }

  /// The protocols the class itself adopts.
  public var protocols: [ObjCProtocol] {
    var count: UInt32 = 0
    guard let list = cbo_class_copy_protocols(pointer, &count) else { return [] }
    defer { system_free(list) }
    return (0..<Int(count)).compactMap { list[$0].map(ObjCProtocol.init) }
  }

  /// Whether the class adopts `protocol` (itself or through a superclass).
  public func conforms(to protocol: ObjCProtocol) -> Bool {
    cbo_class_conforms_to_protocol(pointer, `protocol`.pointer) != 0
  }

  /// The byte offset of instance variable `name` in an instance, or nil.
  public func instanceVariableOffset(_ name: String) -> Int? {
    let offset = cbo_class_ivar_offset(pointer, name)
    return offset < 0 ? nil : offset
  }

  /// Every class the runtime knows, in its order.
  public static var all: [ObjCClass] {
    let count = Int(cbo_class_list(nil, 0))
    guard count > 0 else { return [] }
    var list = [UnsafeRawPointer?](repeating: nil, count: count)
    let filled = Int(cbo_class_list(&list, Int32(count)))
    return list[0..<filled].compactMap { $0.map { ObjCClass($0) } }
  }

  /// The name (with `(meta)` after a metaclass's).
  public var description: String { isMetaclass ? "\(name) (meta)" : name }
}
