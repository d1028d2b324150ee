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
  public var signature: MethodSignature { form.signature }
  /// The function form, shared by the trampolines of one preparation.
  private let form: FunctionForm
  /// The code C calls: a register shift into the block's invoke where the arguments allow it
  /// (x86-64), else a libffi closure that forwards each call through the invocation.
  private var entry: Entry!

  private enum Entry {
    case shift(RegisterShiftStub)
    case closure(FFIClosure, cif: UnsafeMutablePointer<ffi_cif>)
  }

  /// Makes a function pointer that calls `block`.
  ///
  /// - Throws: ``InvocationError``: not a block, no signature and none declared, a declaration
  ///   the block does not fit (with the checker's diagnostics), a type that cannot be called.
  public convenience init(
    block: UnsafeRawPointer, declaredSignature: String? = nil, level: CompatibilityLevel = .abi
  ) throws(InvocationError) {
    try self.init(invocation: try BlockInvocation(block: block, declaredSignature: declaredSignature, level: level))
  }

  private init(invocation: BlockInvocation) throws(InvocationError) {
    self.invocation = invocation
    let form: FunctionForm
    if let key = invocation.preparationKey {
      form = try Self.functionForms.value(for: key) { () throws(InvocationError) in
        try FunctionForm(of: invocation.signature)
      }
    } else {
      form = try FunctionForm(of: invocation.signature)
    }
    self.form = form
    if let hiddenReturn = form.shiftAfterHiddenReturn,
      let stub = RegisterShiftStub(block: invocation.unsafeBlock, afterHiddenReturn: hiddenReturn)
    {
      entry = .shift(stub)
    } else {
      entry = try forwardingClosure()
    }
  }

  /// A block signature's function form and whether a register shift calls the block (a class:
  /// a use takes a reference, not a copy of the signature).
  private final class FunctionForm {
    let signature: MethodSignature
    /// Nil: no shift applies; else whether a hidden return pointer comes first.
    let shiftAfterHiddenReturn: Bool?

    init(of blockForm: MethodSignature) throws(InvocationError) {
      do {
        signature = try blockForm.withClangOffsets(form: .types)
      } catch {
        throw InvocationError(kind: .invalidSignature, message: "the function form of \(blockForm): \(error)")
      }
      shiftAfterHiddenReturn = RegisterShiftStub.applies(function: signature, blockForm: blockForm)
    }
  }

  private static let functionForms = PreparationCache<BlockInvocation.PreparationKey, FunctionForm>(limit: 64)

  /// A libffi closure for the function's interface that forwards each call to the block.
  private func forwardingClosure() throws(InvocationError) -> Entry {
    let interface = invocation.interface
    let cif = UnsafeMutablePointer<ffi_cif>.allocate(capacity: 1)
    let status = ffi_prep_cif(
      cif, cffi_default_abi(), UInt32(interface.passedCount - 1), interface.returnType, interface.argumentTypes + 1)
    guard status == FFI_OK else {
      cif.deallocate()
      throw InvocationError(kind: .preparationFailed, message: "ffi_prep_cif returned status \(status.rawValue)")
    }
    do {
      let closure = try FFIClosure(cif: cif, userData: Unmanaged.passUnretained(self).toOpaque()) {
        _, result, arguments, userData in
        guard let userData, let arguments else { return }
        Unmanaged<CFunctionTrampoline>.fromOpaque(userData).takeUnretainedValue().invocation
          .forward(result: result, passed: arguments, skipping: 0)
      }
      return .closure(closure, cif: cif)
    } catch {
      cif.deallocate()
      throw error
    }
  }

  /// Makes a function pointer that calls a made block.
  public convenience init(
    _ block: DynamicBlock, declaredSignature: String? = nil, level: CompatibilityLevel = .abi
  ) throws(InvocationError) {
    // Its signature and invoke are known: nothing is read from the block's memory.
    try self.init(invocation: try BlockInvocation(made: block, declaredSignature: declaredSignature, level: level))
  }

  deinit {
    if case .closure(_, let cif) = entry {
      entry = nil  // the closure before the interface it was prepared with
      cif.deallocate()
    }
  }

  /// Whether C's calls go straight into the block: on x86-64 System V, when the block's
  /// arguments sit one general-purpose register along from the function's (five such
  /// registers or fewer, or four after a hidden return pointer), the function is a few
  /// instructions that shift the registers and jump to the block's invoke. Otherwise each call
  /// goes through a libffi closure and a second call into the block.
  ///
  ///     try CFunctionTrampoline(block: compare).callsTheBlockDirectly  // true for qsort's comparator
  public var callsTheBlockDirectly: Bool {
    if case .shift = entry { return true }
    return false
  }

  /// The function's address, valid only while the trampoline lives: prefer
  /// ``withFunction(_:)``.
  ///
  ///     let address = trampoline.unsafeFunctionAddress
  ///     withExtendedLifetime(trampoline) { install(address) }  // only while it is alive
  public var unsafeFunctionAddress: UnsafeRawPointer {
    switch entry! {
    case .shift(let stub): stub.code
    case .closure(let closure, _): closure.code
    }
  }

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
