// The fast IMP of a method made from a block, on x86-64 System V (Linux): a method whose
// arguments all sit in registers is answered by code written at run time, as libobjc2's
// `imp_implementationWithBlock` trampoline answers any: `self` moves into `_cmd`'s register, the
// block into `self`'s, and the block's invoke runs with every other register as the caller left
// it. The block form `^(id self, args…)` places each argument exactly where the method
// `(self, _cmd, args…)` does, so nothing else moves. The jump goes through
// `cbo_block_method_entry` (CBlockMethodEntry.h), which calls the invoke from a frame whose
// exception table catches any Objective-C object, so an exception raised by the block still
// follows the method's failure policy. That frame moves the stack, so a method with an argument
// on the stack keeps the libffi closure, as one with a `long double` result (returned on the
// x87 stack) does.

import BlockSignature
import BlockSignatureFFI
import CBlockSignatureObjC
import CFFI

/// Executable code that answers one method by shifting its registers into a block's call.
final class BlockMethodTrampoline: @unchecked Sendable {
  private let memory: UnsafeMutableRawPointer
  /// The address the runtime calls: the method's IMP.
  let code: UnsafeRawPointer

  /// The code for `block` (whose invoke is `invoke`) on behalf of `owner`, passed to the raise
  /// handler; nil where the entry does not exist or libffi's memory is not writable where it
  /// runs.
  init?(block: UnsafeRawPointer, invoke: UnsafeRawPointer, owner: UnsafeRawPointer, afterHiddenReturn: Bool) {
    guard let entry = UnsafeRawPointer(bitPattern: Self.entry) else { return nil }
    var code: UnsafeMutableRawPointer?
    guard let memory = ffi_closure_alloc(Self.size, &code), let code else { return nil }
    // Only where the writable and the executable address are one (libffi without static
    // trampolines, as Debian builds it) do the written bytes run.
    guard memory == code else {
      ffi_closure_free(memory)
      return nil
    }
    Self.write(
      block: block, invoke: invoke, owner: owner, entry: entry, afterHiddenReturn: afterHiddenReturn, to: memory)
    self.memory = memory
    self.code = UnsafeRawPointer(code)
  }

  deinit {
    ffi_closure_free(memory)
  }

  /// The shared entry's address, with the raise handler set first; 0 where there is none.
  private static let entry: UInt = {
    cbo_block_method_set_raise_handler { frame, exception in
      BlockMethodImplementation.answerRaised(frame: frame, exception: exception)
    }
    return UInt(bitPattern: cbo_block_method_entry_address())
  }()

  /// Whether a method of `method`'s types, answered by a block called through `blockForm`, can
  /// be answered by a trampoline: nil when not, else whether a hidden return pointer comes
  /// first. Every argument must sit in registers, at the same places in both (the block and
  /// `self` where `self` and `_cmd` were), and the result must come back the same way in
  /// general-purpose or SSE registers, or in memory.
  static func applies(method: MethodSignature, blockForm: MethodSignature) -> Bool? {
    #if arch(x86_64) && os(Linux)
      guard method.model == .x86_64SysV, blockForm.model == .x86_64SysV else { return nil }
      let own = method.encoding.argumentPlacement(for: method.model)
      let shifted = blockForm.encoding.argumentPlacement(for: blockForm.model)
      guard let inMemory = own.returnsInMemory, shifted.returnsInMemory == inMemory, own.arguments == shifted.arguments,
        own.arguments.count >= 2
      else { return nil }
      for place in own.arguments {
        switch place {
        case .registers, .none: continue
        default: return nil
        }
      }
      let first = inMemory ? 1 : 0
      for (index, place) in own.arguments.prefix(2).enumerated() {
        guard place == .registers(general: first + index..<first + index + 1, floatingPoint: 0..<0) else { return nil }
      }
      let passing = method.encoding.returnType.abiShape(for: method.model, asParameter: false).passing
      guard passing == blockForm.encoding.returnType.abiShape(for: blockForm.model, asParameter: false).passing
      else { return nil }
      switch passing {
      case .void, .memory: return inMemory
      case .eightbytes(let low, let high):
        let inRegisters: Set<RegisterClass> = [.integer, .sse]
        guard inRegisters.contains(low), high == .none || inRegisters.contains(high) else { return nil }
        return inMemory
      default: return nil
      }
    #else
      return nil
    #endif
  }

  /// The most bytes of code a trampoline has.
  static let size = 64

  /// Writes the code at `memory` (``size`` bytes): `endbr64`; `self` one register along;
  /// `movabs` of the block into the register freed, of the invoke into RAX, of the owner into
  /// R10 and of the entry into R11; `jmp *%r11`.
  static func write(
    block: UnsafeRawPointer, invoke: UnsafeRawPointer, owner: UnsafeRawPointer, entry: UnsafeRawPointer,
    afterHiddenReturn: Bool, to memory: UnsafeMutableRawPointer
  ) {
    var offset = 0
    func emit(_ bytes: UInt8...) {
      for byte in bytes {
        memory.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
        offset += 1
      }
    }
    func emit(address: UnsafeRawPointer) {
      memory.storeBytes(of: UInt64(UInt(bitPattern: address)).littleEndian, toByteOffset: offset, as: UInt64.self)
      offset += 8
    }
    emit(0xF3, 0x0F, 0x1E, 0xFA)  // endbr64
    if afterHiddenReturn {
      emit(0x48, 0x89, 0xF2)  // mov %rsi, %rdx
      emit(0x48, 0xBE)  // movabs $block, %rsi
    } else {
      emit(0x48, 0x89, 0xFE)  // mov %rdi, %rsi
      emit(0x48, 0xBF)  // movabs $block, %rdi
    }
    emit(address: block)
    emit(0x48, 0xB8)  // movabs $invoke, %rax
    emit(address: invoke)
    emit(0x49, 0xBA)  // movabs $owner, %r10
    emit(address: owner)
    emit(0x49, 0xBB)  // movabs $entry, %r11
    emit(address: entry)
    emit(0x41, 0xFF, 0xE3)  // jmp *%r11
    precondition(offset <= size)
  }
}

extension BlockMethodImplementation {
  /// Answers a call whose block raised `exception`, through the owner the frame names: the
  /// failure policy's value goes where the method returns it.
  static func answerRaised(frame: UnsafeMutablePointer<CBO_BlockMethodFrame>, exception: UnsafeRawPointer) {
    let owner = Unmanaged<BlockMethodImplementation>.fromOpaque(frame.pointee.owner).takeUnretainedValue()
    owner.answerRaised(frame: frame, exception: exception)
  }

  private func answerRaised(frame: UnsafeMutablePointer<CBO_BlockMethodFrame>, exception: UnsafeRawPointer) {
    let error = ObjCExceptions.error(for: exception, while: "the block implementing \(methodSignature)")
    let passing = methodSignature.encoding.returnType.abiShape(for: methodSignature.model, asParameter: false).passing
    if case .memory = passing {
      // The hidden pointer came first: the buffer is the caller's, and RAX returns its address.
      let buffer = frame.pointee.general.0
      failure.respond(
        to: error, result: UnsafeMutableRawPointer(bitPattern: UInt(buffer))!, interface: interface,
        what: "a block implementing a method")
      frame.pointee.resultGeneral.0 = buffer
      return
    }
    withUnsafeTemporaryAllocation(byteCount: max(16, interface.resultBufferSize), alignment: 16) { buffer in
      let result = buffer.baseAddress!
      buffer.initializeMemory(as: UInt8.self, repeating: 0)
      failure.respond(to: error, result: result, interface: interface, what: "a block implementing a method")
      guard case .eightbytes(let low, let high) = passing else { return }
      // Each eightbyte goes to the next register of its class: RAX then RDX, XMM0 then XMM1.
      var general = 0
      var floating = 0
      for (index, registerClass) in [low, high].enumerated() where registerClass != .none {
        let bytes = result.load(fromByteOffset: index * 8, as: UInt64.self)
        if registerClass == .sse {
          if floating == 0 { frame.pointee.resultFloating.0 = bytes } else { frame.pointee.resultFloating.1 = bytes }
          floating += 1
        } else {
          if general == 0 { frame.pointee.resultGeneral.0 = bytes } else { frame.pointee.resultGeneral.1 = bytes }
          general += 1
        }
      }
    }
  }
}
