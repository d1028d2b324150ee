import BlockSignature
import BlockSignatureFFI
import CBlockSignatureObjC

/// A class made at run time: a subclass with methods implemented by blocks, adopted protocols
/// and instance variables, registered with the runtime by ``register()``.
///
///     let builder = try ObjCClassBuilder(name: "Counter", superclass: ObjCClass(named: "NSObject"))
///     try builder.addInstanceVariable("count", types: "i")
///     try builder.addMethod("increment", types: "v16@0:8", block: increment)
///     let counter = try builder.register()
///
/// The methods' implementations live as long as the process: a registered class cannot be
/// taken apart on GCC's runtime. A builder released before ``register()`` disposes of its
/// class. Until then the class answers no lookups: ask ``ObjCClass/methods`` for what it holds.
public final class ObjCClassBuilder: @unchecked Sendable {
  /// The class being made (not yet usable before ``register()``).
  public let objcClass: ObjCClass
  private var isRegistered = false

  /// Starts a class `name` under `superclass` (nil for a root class).
  ///
  /// - Throws: ``ObjCError/Kind/refused`` when a class of that name exists.
  public init(name: String, superclass: ObjCClass?) throws(ObjCError) {
    guard cbo_class_named(name) == nil, let made = cbo_class_allocate_pair(superclass?.pointer, name) else {
      throw ObjCError(kind: .refused, message: "a class called \(name) exists already")
    }
    objcClass = ObjCClass(made)
  }

  deinit {
    // A class never registered is taken apart; the implementations added stay (they are held
    // for the process's life).
    if !isRegistered { cbo_class_dispose_pair(objcClass.pointer) }
  }

  /// Adds an instance variable of type `types` (one type encoding), laid out as clang lays the
  /// type out.
  ///
  /// - Throws: ``ObjCError``: a type that does not parse or has no layout, the class already
  ///   registered, a name taken.
  public func addInstanceVariable(_ name: String, types: String) throws(ObjCError) {
    try requireUnregistered()
    guard let model = DataModel.host else {
      throw ObjCError(kind: .invalidSignature, message: "no data model describes this machine")
    }
    let layout: TypeLayout
    do {
      layout = try TypeEncoding(parsing: types).layout(for: model)
    } catch {
      throw ObjCError(kind: .invalidSignature, message: "instance variable \(name) of type \(types): \(error)")
    }
    let alignmentLog2 = UInt8(max(0, layout.alignment).trailingZeroBitCount)
    guard cbo_class_add_ivar(objcClass.pointer, name, layout.size, alignmentLog2, types) != 0 else {
      throw ObjCError(kind: .refused, message: "\(objcClass) refused instance variable \(name)")
    }
  }

  /// Adopts `protocol`.
  public func addProtocol(_ protocol: ObjCProtocol) throws(ObjCError) {
    guard cbo_class_add_protocol(objcClass.pointer, `protocol`.pointer) != 0 else {
      throw ObjCError(kind: .refused, message: "\(objcClass) refused protocol \(`protocol`)")
    }
  }

  /// Adds an instance method implemented by `block` (class methods: ``addClassMethod(_:types:block:level:failure:)``).
  ///
  /// - Throws: ``ObjCError`` as ``ObjCClass/addMethod(_:types:block:level:failure:)``.
  @discardableResult
  public func addMethod(
    _ selector: Selector, types: String, block: UnsafeRawPointer, level: CompatibilityLevel = .abi,
    failure: DynamicBlock.FailurePolicy = .trap
  ) throws(ObjCError) -> BlockMethodImplementation {
    try objcClass.addMethod(selector, types: types, block: block, level: level, failure: failure)
  }

  /// Adds a class method implemented by `block` (`self` is the class).
  @discardableResult
  public func addClassMethod(
    _ selector: Selector, types: String, block: UnsafeRawPointer, level: CompatibilityLevel = .abi,
    failure: DynamicBlock.FailurePolicy = .trap
  ) throws(ObjCError) -> BlockMethodImplementation {
    try objcClass.metaclass.addMethod(selector, types: types, block: block, level: level, failure: failure)
  }

  /// Registers the class: it can be instantiated from now on, and takes no more instance
  /// variables.
  @discardableResult
  public func register() throws(ObjCError) -> ObjCClass {
    try requireUnregistered()
    cbo_class_register_pair(objcClass.pointer)
    isRegistered = true
    return objcClass
  }

  private func requireUnregistered() throws(ObjCError) {
    guard !isRegistered else { throw ObjCError(kind: .refused, message: "\(objcClass) is registered already") }
  }
}
