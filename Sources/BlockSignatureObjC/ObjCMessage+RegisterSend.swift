// A typed send without libffi, on x86-64 System V (Linux): when every argument is a scalar in
// one register and the result a scalar in RAX or XMM0 (or nothing), each value goes straight
// into its register's slot in a frame, and the frame's registers are loaded and the method
// called inside `@try` (`cbo_register_call_catching`, the replay that block-made methods use).
// A value not plainly of its argument's type, or out of range, leaves the send to the checked
// path, which converts it or says what is wrong exactly as before.

import BlockSignature
import BlockSignatureFFI
import CBlockSignatureObjC

/// Where each explicit argument of a message goes in a register frame, and where its result
/// comes back.
final class RegisterSendPlan: @unchecked Sendable {
  /// One explicit argument: how its value is written, and the byte offset of its register's
  /// slot in a `CBO_BlockMethodFrame`.
  struct Slot {
    var access: ScalarAccess
    var offset: Int
  }

  private let slots: UnsafeMutableBufferPointer<Slot>
  /// How the result is read, and the offset of its register's slot; nil for `void`.
  private let result: Slot?

  /// The plan for `interface` (a method's: `self`, `_cmd`, then the explicit arguments), or
  /// nil when some argument or the result is not a scalar in one register, or this machine has
  /// no register calls.
  init?(_ interface: CallInterface) {
    #if arch(x86_64) && os(Linux)
      let signature = interface.signature
      guard cbo_block_method_entry_address() != nil, signature.model == .x86_64SysV else { return nil }
      let placement = signature.encoding.argumentPlacement(for: signature.model)
      guard placement.returnsInMemory == false, placement.arguments.count == interface.argumentShapes.count,
        placement.arguments.count >= 2
      else { return nil }
      var slots: [Slot] = []
      for (position, place) in placement.arguments.enumerated() {
        guard let offset = Self.slotOffset(of: place) else { return nil }
        if position < 2 {
          // self and _cmd: RDI and RSI, as the frame's first two slots.
          guard offset == position * 8 else { return nil }
          continue
        }
        guard let access = interface.scalarAccess[position] else { return nil }
        slots.append(Slot(access: access, offset: offset))
      }
      if case .void = signature.encoding.returnType.abiShape(for: signature.model, asParameter: false).passing {
        result = nil
      } else {
        guard let access = interface.returnScalarAccess else { return nil }
        let isFloating = access == .float || access == .double
        result = Slot(access: access, offset: isFloating ? Self.floatingResultOffset : Self.generalResultOffset)
      }
      self.slots = .allocate(capacity: max(1, slots.count))
      _ = self.slots.initialize(from: slots)
      count = slots.count
    #else
      return nil
    #endif
  }

  /// The number of explicit arguments.
  private(set) var count = 0

  deinit {
    slots.deallocate()
  }

  /// The frame offset of the one register `place` takes, or nil when it takes another place.
  private static func slotOffset(of place: ArgumentPlacement.Place) -> Int? {
    guard case .registers(let general, let floating) = place else { return nil }
    if general.count == 1, floating.isEmpty, general.lowerBound < 6 { return general.lowerBound * 8 }
    if floating.count == 1, general.isEmpty, floating.lowerBound < 8 { return 48 + floating.lowerBound * 8 }
    return nil
  }

  private static let generalResultOffset = 112
  private static let floatingResultOffset = 128

  /// Sends with `values` (one per explicit argument, already counted): nil when some value is
  /// not plainly of its argument's type (nothing was called), else the result or the exception
  /// the method raised.
  func send(
    _ implementation: UnsafeRawPointer, receiver: UnsafeRawPointer, selector: UnsafeRawPointer, values: [CValue]
  ) -> Outcome? {
    var frame = CBO_BlockMethodFrame(
      general: (UInt64(UInt(bitPattern: receiver)), UInt64(UInt(bitPattern: selector)), 0, 0, 0, 0),
      floating: (0, 0, 0, 0, 0, 0, 0, 0), resultGeneral: (0, 0), resultFloating: (0, 0), invoke: implementation,
      owner: implementation)
    let stored = withUnsafeMutableBytes(of: &frame) { bytes in
      let base = bytes.baseAddress!
      for index in 0..<count where !slots[index].access.storeResult(values[index], at: base + slots[index].offset) {
        return false
      }
      return true
    }
    guard stored else { return nil }
    if let raised = cbo_register_call_catching(&frame) { return .raised(raised) }
    guard let result else { return .returned(.void) }
    let value = withUnsafeBytes(of: &frame) { bytes in result.access.load(from: bytes.baseAddress! + result.offset) }
    return .returned(value)
  }

  /// Sends with the bytes of each argument (`arguments[i]` points at explicit argument `i`),
  /// writing the result into `result` as libffi would (a narrow integer widened to 8 bytes);
  /// returns the exception the method raised, or nil.
  func sendRaw(
    _ implementation: UnsafeRawPointer, receiver: UnsafeRawPointer, selector: UnsafeRawPointer,
    arguments: UnsafePointer<UnsafeRawPointer?>, result resultBuffer: UnsafeMutableRawPointer?
  ) -> UnsafeRawPointer? {
    var frame = CBO_BlockMethodFrame(
      general: (UInt64(UInt(bitPattern: receiver)), UInt64(UInt(bitPattern: selector)), 0, 0, 0, 0),
      floating: (0, 0, 0, 0, 0, 0, 0, 0), resultGeneral: (0, 0), resultFloating: (0, 0), invoke: implementation,
      owner: implementation)
    withUnsafeMutableBytes(of: &frame) { bytes in
      let base = bytes.baseAddress!
      for index in 0..<count {
        let slot = slots[index]
        base.storeBytes(
          of: Self.widened(slot.access, at: arguments[index]!), toByteOffset: slot.offset, as: UInt64.self)
      }
    }
    if let raised = cbo_register_call_catching(&frame) { return raised }
    if let result, let resultBuffer {
      withUnsafeBytes(of: &frame) { bytes in
        let bits = Self.widened(result.access, at: bytes.baseAddress! + result.offset)
        switch result.access {
        case .float: resultBuffer.storeBytes(of: UInt32(truncatingIfNeeded: bits), as: UInt32.self)
        default: resultBuffer.storeBytes(of: bits, as: UInt64.self)
        }
      }
    }
    return nil
  }

  /// The scalar at `address` as a whole register: a narrow integer sign- or zero-extended, a
  /// `float` in the low four bytes.
  private static func widened(_ access: ScalarAccess, at address: UnsafeRawPointer) -> UInt64 {
    switch access {
    case .signed(let size):
      switch size {
      case 1: UInt64(bitPattern: Int64(address.load(as: Int8.self)))
      case 2: UInt64(bitPattern: Int64(address.loadUnaligned(as: Int16.self)))
      case 4: UInt64(bitPattern: Int64(address.loadUnaligned(as: Int32.self)))
      default: address.loadUnaligned(as: UInt64.self)
      }
    case .unsigned(let size):
      switch size {
      case 1: UInt64(address.load(as: UInt8.self))
      case 2: UInt64(address.loadUnaligned(as: UInt16.self))
      case 4: UInt64(address.loadUnaligned(as: UInt32.self))
      default: address.loadUnaligned(as: UInt64.self)
      }
    case .bool: UInt64(address.load(as: UInt8.self) != 0 ? 1 : 0)
    case .float: UInt64(address.loadUnaligned(as: UInt32.self))
    case .double, .pointer: address.loadUnaligned(as: UInt64.self)
    }
  }

  /// What a send in registers came to.
  enum Outcome {
    /// The method returned this.
    case returned(CValue)
    /// The method raised this Objective-C exception.
    case raised(UnsafeRawPointer)
  }
}
