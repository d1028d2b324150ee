import BlockSignature
import BlockSignatureFFI
import CBlockSignatureObjC

extension ObjCClass {
  /// Adds a method the class does not define itself, implemented by `implementation` (which is
  /// kept for the process's life: a method cannot be taken out of a class). For a class method
  /// add it to the ``metaclass``.
  ///
  ///     let method = try BlockMethodImplementation(block: block, types: "q24@0:8@16")
  ///     try ObjCClass(named: "NSString").addMethod("compareByLength:", implementation: method)
  ///
  /// - Throws: ``ObjCError/Kind/refused`` when the class already defines `selector`.
  public func addMethod(_ selector: Selector, implementation: BlockMethodImplementation) throws(ObjCError) {
    let types = implementation.methodSignature.description
    guard cbo_class_add_method(pointer, selector.pointer, implementation.implementation, types) != 0 else {
      throw ObjCError(kind: .refused, message: "\(self) already defines \(selector)")
    }
    ObjCRuntime.register(implementation)
  }

  /// Adds a method implemented by `block`, with `types`, or the types of the method the class
  /// inherits for `selector` when `types` is nil.
  ///
  /// - Throws: ``ObjCError``: no types to use, a block that does not fit them, the class
  ///   already defines `selector`.
  @discardableResult
  public func addMethod(
    _ selector: Selector, types: String? = nil, block: UnsafeRawPointer, level: CompatibilityLevel = .abi,
    failure: DynamicBlock.FailurePolicy = .trap
  ) throws(ObjCError) -> BlockMethodImplementation {
    guard let types = types ?? instanceMethod(selector)?.typeEncoding else {
      throw ObjCError(kind: .unknownSelector, message: "\(self) inherits no \(selector): declare its types")
    }
    let implementation = try BlockMethodImplementation(block: block, types: types, level: level, failure: failure)
    try addMethod(selector, implementation: implementation)
    return implementation
  }

  /// Replaces the implementation of `selector` (the class's own, or an override of the
  /// inherited one) with `block`, checked against the method's types; ``MethodReplacement/restore()``
  /// puts the previous implementation back and lets go of the block.
  ///
  ///     let replacement = try nsString.replaceMethod("length", block: alwaysSeven)
  ///     defer { replacement.restore() }
  ///
  /// - Throws: ``ObjCError``: the class has no such method, a block that does not fit it.
  public func replaceMethod(
    _ selector: Selector, block: UnsafeRawPointer, level: CompatibilityLevel = .abi,
    failure: DynamicBlock.FailurePolicy = .trap
  ) throws(ObjCError) -> MethodReplacement {
    guard let method = instanceMethod(selector) else {
      throw ObjCError(kind: .unknownSelector, message: "\(self) has no method \(selector) to replace")
    }
    let types = method.typeEncoding
    let implementation = try BlockMethodImplementation(block: block, types: types, level: level, failure: failure)
    let previous = cbo_class_replace_method(pointer, selector.pointer, implementation.implementation, types)
    return MethodReplacement(
      objcClass: self, selector: selector, previous: previous ?? method.implementation, implementation: implementation)
  }
}

/// A method whose implementation was replaced by a block, and the way back.
///
/// The replacement keeps the block's implementation alive until ``restore()``; releasing the
/// replacement without restoring leaves the block installed and alive for the process's life.
/// Replace and restore methods from one thread at a time: changing classes from several
/// threads at once is not supported.
public final class MethodReplacement: @unchecked Sendable {
  /// The class changed.
  public let objcClass: ObjCClass
  /// The method replaced.
  public let selector: Selector
  /// The implementation before the replacement.
  public let previousImplementation: UnsafeRawPointer
  private var implementation: BlockMethodImplementation?

  init(objcClass: ObjCClass, selector: Selector, previous: UnsafeRawPointer, implementation: BlockMethodImplementation)
  {
    self.objcClass = objcClass
    self.selector = selector
    previousImplementation = previous
    self.implementation = implementation
  }

  deinit {
    if let implementation { ObjCRuntime.register(implementation) }
  }

  /// Whether the block is still installed.
  public var isActive: Bool { implementation != nil }

  /// Puts the previous implementation back and releases the block. Calls must not be running
  /// through the replaced method; a second call does nothing.
  public func restore() {
    guard let implementation else { return }
    _ = cbo_class_replace_method(
      objcClass.pointer, selector.pointer, previousImplementation, implementation.methodSignature.description)
    self.implementation = nil
  }
}
