// A trampoline's function without libffi on x86-64 System V: a few bytes of code that move each
// general-purpose argument register one along (RDI to RSI, …, R8 to R9), put the block in RDI
// (RSI after a hidden return pointer) and jump to the block's invoke. The block then runs as if
// C had called it: no argument is copied, no second call is made. It applies when the block's
// signature places every argument exactly where the function's does, shifted by that one
// register (`ArgumentPlacement`, which the core checks against clang); otherwise libffi serves.

import BlockSignature
import CFFI

/// Executable code that calls one block as a plain C function by shifting its registers.
final class RegisterShiftStub: @unchecked Sendable {
  private let memory: UnsafeMutableRawPointer
  /// The address C calls.
  let code: UnsafeRawPointer

  /// The stub for `block`, whose signature places its arguments as ``shiftedByOneRegister(function:block:)``
  /// found (`afterHiddenReturn`: a return pointer comes first); nil where this machine is not
  /// x86-64 or libffi's memory is not writable where it runs.
  init?(block: UnsafeRawPointer, afterHiddenReturn: Bool) {
    #if arch(x86_64)
      var code: UnsafeMutableRawPointer?
      guard let memory = ffi_closure_alloc(Self.size, &code), let code else { return nil }
      // Only where the writable and the executable address are one (libffi without static
      // trampolines, as Debian builds it) do the written bytes run.
      guard memory == code else {
        ffi_closure_free(memory)
        return nil
      }
      Self.write(block: block, afterHiddenReturn: afterHiddenReturn, to: memory)
      self.memory = memory
      self.code = UnsafeRawPointer(code)
    #else
      return nil
    #endif
  }

  /// Whether a block of `blockForm` can be called through a stub as a function of `function`:
  /// nil when not, else whether a hidden return pointer comes first.
  static func applies(function: MethodSignature, blockForm: MethodSignature) -> Bool? {
    #if arch(x86_64)
      guard function.model == .x86_64SysV, blockForm.model == .x86_64SysV else { return nil }
      return shiftedByOneRegister(
        function: function.encoding.argumentPlacement(for: function.model),
        block: blockForm.encoding.argumentPlacement(for: blockForm.model))
    #else
      return nil
    #endif
  }

  deinit {
    ffi_closure_free(memory)
  }

  /// Whether every argument of the function sits in the block form one general-purpose register
  /// along (the same floating-point registers and stack bytes), with the block in the register
  /// the shift frees: nil when not, else whether a hidden return pointer comes first.
  static func shiftedByOneRegister(function: ArgumentPlacement, block: ArgumentPlacement) -> Bool? {
    guard let inMemory = function.returnsInMemory, block.returnsInMemory == inMemory,
      block.arguments.count == function.arguments.count + 1
    else { return nil }
    let first = inMemory ? 1 : 0
    guard block.arguments[0] == .registers(general: first..<first + 1, floatingPoint: 0..<0) else { return nil }
    for (own, shifted) in zip(function.arguments, block.arguments.dropFirst()) {
      switch (own, shifted) {
      case (.registers(let general, let floating), .registers(let shiftedGeneral, let shiftedFloating)):
        let expected =
          general.isEmpty ? shiftedGeneral.isEmpty : shiftedGeneral == general.lowerBound + 1..<general.upperBound + 1
        guard expected, floating == shiftedFloating else { return nil }
      case (.stack, .stack), (.none, .none):
        guard own == shifted else { return nil }
      default:
        return nil
      }
    }
    return inMemory
  }

  /// The most bytes of code a stub has.
  static let size = 32

  /// Writes the code at `memory` (``size`` bytes): `endbr64`; the register moves from the last
  /// down; `movabs` of the block into the register freed; `jmp *16(reg)`, the invoke's slot in
  /// every block.
  static func write(block: UnsafeRawPointer, afterHiddenReturn: Bool, to memory: UnsafeMutableRawPointer) {
    var offset = 0
    func emit(_ bytes: UInt8...) {
      for byte in bytes {
        memory.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
        offset += 1
      }
    }
    emit(0xF3, 0x0F, 0x1E, 0xFA)  // endbr64
    emit(0x4D, 0x89, 0xC1)  // mov %r8, %r9
    emit(0x49, 0x89, 0xC8)  // mov %rcx, %r8
    emit(0x48, 0x89, 0xD1)  // mov %rdx, %rcx
    emit(0x48, 0x89, 0xF2)  // mov %rsi, %rdx
    if !afterHiddenReturn { emit(0x48, 0x89, 0xFE) }  // mov %rdi, %rsi
    emit(0x48, afterHiddenReturn ? 0xBE : 0xBF)  // movabs $block, %rsi or %rdi
    memory.storeBytes(of: UInt64(UInt(bitPattern: block)).littleEndian, toByteOffset: offset, as: UInt64.self)
    offset += 8
    emit(0xFF, afterHiddenReturn ? 0x66 : 0x67, 0x10)  // jmp *16(%rsi) or *16(%rdi)
  }
}
