import BlockSignature
import CFFI

/// A plain C function pointer that calls a block: the C analogue of
/// `imp_implementationWithBlock`, for C APIs that take a callback with no context parameter
/// (`qsort`, `tsearch`'s `twalk`, `atexit`) or whose context is taken.
///
///     var seen = 0
///     let compare: @convention(block) (UnsafeRawPointer, UnsafeRawPointer) -> Int32 = { a, b in
///       seen += 1
///       let (x, y) = (a.load(as: Int32.self), b.load(as: Int32.self))
///       return x < y ? -1 : x > y ? 1 : 0
///     }
///     let trampoline = try CFunctionTrampoline(block: unsafeBitCast(compare, to: UnsafeRawPointer.self))
///     typealias Compare = @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int32
///     trampoline.withFunction(as: Compare.self) { qsort(&numbers, numbers.count, 4, $0) }
///
/// The function takes the block's parameters, the block itself left out; with a declared
/// signature (function, block or method form) the block's own must fit it at `level`, and the
/// function follows the declaration. The trampoline holds a copy of the block and frees the
/// function when it is released: C must not call the function after that. Reach the function
/// through ``withFunction(_:)`` or ``withFunction(as:_:)``, which keep the trampoline alive
/// while they run; ``unsafeFunctionAddress`` is valid only while the trampoline lives, and an
/// optimized build may release it right after the property is read.
public final class CFunctionTrampoline: @unchecked Sendable {
  /// The call through the block the function makes.
  public let invocation: BlockInvocation
  /// The function's signature, in function form (no hidden argument).
  public let signature: MethodSignature
  private let cif: UnsafeMutablePointer<ffi_cif>
  private var closure: FFIClosure!

  /// Makes a function pointer that calls `block`.
  ///
  /// - Throws: ``InvocationError``: not a block, no signature and none declared, a declaration
  ///   the block does not fit (with the checker's diagnostics), a type that cannot be called.
  public init(
    block: UnsafeRawPointer, declaredSignature: String? = nil, level: CompatibilityLevel = .abi
  ) throws(InvocationError) {
    invocation = try BlockInvocation(block: block, declaredSignature: declaredSignature, level: level)
    do {
      signature = try invocation.signature.withClangOffsets(form: .types)
    } catch {
      throw InvocationError(kind: .invalidSignature, reason: "the function form of \(invocation.signature): \(error)")
    }
    let interface = invocation.interface
    cif = .allocate(capacity: 1)
    let status = ffi_prep_cif(
      cif, cffi_default_abi(), UInt32(interface.passedCount - 1), interface.returnType, interface.argumentTypes + 1)
    guard status == FFI_OK else {
      throw InvocationError(kind: .preparationFailed, reason: "ffi_prep_cif returned status \(status.rawValue)")
    }
    closure = try FFIClosure(cif: cif, userData: Unmanaged.passUnretained(self).toOpaque()) {
      _, result, arguments, userData in
      guard let userData, let arguments else { return }
      Unmanaged<CFunctionTrampoline>.fromOpaque(userData).takeUnretainedValue().invocation
        .forward(result: result, passed: arguments, skipping: 0)
    }
  }

  /// Makes a function pointer that calls a made block.
  public convenience init(
    _ block: DynamicBlock, declaredSignature: String? = nil, level: CompatibilityLevel = .abi
  ) throws(InvocationError) {
    // The block stays alive until the trampoline has its own copy.
    defer { withExtendedLifetime(block) {} }
    try self.init(block: block.unsafeBlock, declaredSignature: declaredSignature, level: level)
  }

  deinit {
    closure = nil  // before the interface it was prepared with
    cif.deallocate()
  }

  /// The function's address, valid only while the trampoline lives: prefer
  /// ``withFunction(_:)``.
  ///
  ///     let address = trampoline.unsafeFunctionAddress
  ///     withExtendedLifetime(trampoline) { install(address) }  // only while it is alive
  public var unsafeFunctionAddress: UnsafeRawPointer { closure.code }

  /// The function as a Swift `@convention(c)` type, valid only while the trampoline lives:
  /// prefer ``withFunction(as:_:)``. The type must match ``signature``: nothing can check it.
  ///
  ///     let compare = trampoline.unsafeFunction(as: Compare.self)
  ///     withExtendedLifetime(trampoline) { qsort(&numbers, numbers.count, 4, compare) }
  public func unsafeFunction<Function>(as type: Function.Type = Function.self) -> Function {
    precondition(
      MemoryLayout<Function>.size == MemoryLayout<UnsafeRawPointer>.size, "\(Function.self) is not a function type")
    return unsafeBitCast(unsafeFunctionAddress, to: Function.self)
  }
}
