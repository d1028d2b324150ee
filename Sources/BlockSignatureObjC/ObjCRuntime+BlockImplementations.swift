import BlockSignature
import BlockSignatureFFI
import BlockSignatureSystem

/// The implementations made from blocks that the runtime functions below hold, by address.
private let registeredImplementations = Locked<[UInt: BlockMethodImplementation]>([:])

extension ObjCRuntime {
  /// `imp_implementationWithBlock`: an `IMP` for a method of `types` that calls `block` with
  /// `self` followed by the method's arguments. The implementation is kept until
  /// ``removeBlock(forImplementation:)``.
  ///
  ///     let imp = try ObjCRuntime.implementation(withBlock: block, types: "i24@0:8i16")
  ///     ObjCRuntime.block(forImplementation: imp)  // the block's copy
  ///
  /// - Throws: ``ObjCError`` as ``BlockMethodImplementation/init(block:types:level:failure:)``.
  public static func implementation(
    withBlock block: UnsafeRawPointer, types: String, level: CompatibilityLevel = .abi,
    failure: DynamicBlock.FailurePolicy = .trap
  ) throws(ObjCError) -> UnsafeRawPointer {
    let made = try BlockMethodImplementation(block: block, types: types, level: level, failure: failure)
    register(made)
    return made.implementation
  }

  /// `imp_getBlock`: the block an implementation made here calls, or nil.
  public static func block(forImplementation implementation: UnsafeRawPointer) -> UnsafeRawPointer? {
    registeredImplementations.withLock { $0[UInt(bitPattern: implementation)]?.block }
  }

  /// `imp_removeBlock`: lets go of an implementation made here, and of its block once no call
  /// is running. No class may still hold it. Returns false for an implementation not made here.
  @discardableResult
  public static func removeBlock(forImplementation implementation: UnsafeRawPointer) -> Bool {
    registeredImplementations.withLock { $0.removeValue(forKey: UInt(bitPattern: implementation)) } != nil
  }

  /// Keeps `implementation` alive until it is removed.
  static func register(_ implementation: BlockMethodImplementation) {
    registeredImplementations.withLock { $0[UInt(bitPattern: implementation.implementation)] = implementation }
  }

  /// The number of implementations made from blocks that are held here.
  public static var blockImplementationCount: Int { registeredImplementations.withLock { $0.count } }
}
