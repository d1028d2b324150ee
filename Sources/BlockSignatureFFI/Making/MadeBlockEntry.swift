// The invoke of made blocks whose parameters and result are scalars, on x86-64 System V: the
// assembly entry `cba_made_block_entry` (CBlockABI) saves the argument registers and calls the
// dispatch below, which points at each argument where its place (`ArgumentPlacement`, checked
// against clang) says it is, and answers as a libffi closure's handler would. libffi's closure
// serves every other signature and machine.

import BlockSignature
import CBlockABI

/// Where each argument of a made block's call is in the entry's frame.
enum MadeBlockEntry {
  /// The entry's address and, per passed argument (the block first), its offset in the frame
  /// (`>= 0`) or `~offset` among the stack arguments; nil when the entry cannot serve
  /// `interface`.
  static func slots(for interface: CallInterface) -> (entry: UnsafeRawPointer, slots: [Int])? {
    guard let entry = cba_made_block_entry_address(), interface.signature.model == .x86_64SysV,
      isScalarResult(interface.returnShape), interface.passedCount == interface.argumentShapes.count,
      interface.passedCount <= CBA_ENTRY_FRAME_ARGUMENTS
    else { return nil }
    let placement = interface.signature.encoding.argumentPlacement(for: interface.signature.model)
    guard placement.returnsInMemory == false, placement.arguments.count == interface.argumentShapes.count else {
      return nil
    }
    var slots: [Int] = []
    for (shape, place) in zip(interface.argumentShapes, placement.arguments) {
      guard isScalarArgument(shape) else { return nil }
      switch place {
      case .registers(let general, let floating) where general.count == 1 && floating.isEmpty:
        slots.append(CBA_ENTRY_FRAME_GENERAL + 8 * general.lowerBound)
      case .registers(let general, let floating) where general.isEmpty && floating.count == 1:
        slots.append(CBA_ENTRY_FRAME_FLOATING + 8 * floating.lowerBound)
      case .stack(let offset, let size) where size <= 8:
        slots.append(~offset)
      default:
        return nil
      }
    }
    return (entry, slots)
  }

  private static func isScalarArgument(_ shape: ValueShape) -> Bool {
    switch shape {
    case .integer(let size, _, _): size <= 8
    case .bool, .float, .double, .pointer: true
    default: false
    }
  }

  private static func isScalarResult(_ shape: ValueShape) -> Bool {
    if case .empty = shape { return true }
    return isScalarArgument(shape)
  }

  /// What the entry calls: the frame of saved registers and the stack arguments' address. The
  /// list of argument addresses goes in the frame too.
  static let dispatch: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void = { frame, stack in
    let block = UnsafeRawPointer(frame.load(as: UnsafeRawPointer.self))
    let captures = MadeBlockCaptures.of(block)
    let slots = captures.pointee.plan.frameSlots.unsafelyUnwrapped
    let pointers = (frame + CBA_ENTRY_FRAME_POINTERS).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    for index in 0..<captures.pointee.plan.passedCount {
      let slot = slots[index]
      pointers[index] = slot >= 0 ? frame + slot : stack + ~slot
    }
    MadeBlockCaptures.respond(captures, block: block, result: frame + CBA_ENTRY_FRAME_RESULT, arguments: pointers)
  }
}
