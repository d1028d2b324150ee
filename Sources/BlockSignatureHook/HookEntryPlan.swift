// Where each argument of a hooked block's call is in `cbh_hook_entry`'s frame, for signatures
// of scalars on x86-64 System V: the entry saves the argument registers, and the dispatch
// points at each argument where `ArgumentPlacement` (checked against clang) says it is. Every
// other signature and machine goes through a libffi closure.

import BlockSignature
import BlockSignatureFFI
import CBlockABI
import CBlockSignatureHook

/// The entry's view of one signature: each passed argument's place in the frame, the stack
/// arguments' bytes, the register the result comes back in.
struct HookEntryPlan: @unchecked Sendable {
  /// Per passed argument (the block first): its offset in the frame (`>= 0`) or `~offset`
  /// among the stack arguments. A buffer made once per signature and never freed, read on each
  /// call without counting a reference.
  let slots: UnsafeMutablePointer<Int>
  /// The number of passed arguments.
  let count: Int
  /// The bytes of stack arguments to copy when the block's own invoke is called.
  let stackBytes: Int
  /// 0 for `void`, 1 for a result in RAX, 2 for one in XMM0.
  let resultKind: Int32

  /// The plan for `interface`, or nil when the entry cannot serve it.
  init?(_ interface: CallInterface) {
    guard cbh_hook_entry_address() != nil, interface.signature.model == .x86_64SysV,
      interface.passedCount == interface.argumentShapes.count, interface.passedCount <= CBA_ENTRY_FRAME_ARGUMENTS,
      let resultKind = Self.resultKind(interface.returnShape)
    else { return nil }
    let placement = interface.signature.encoding.argumentPlacement(for: interface.signature.model)
    guard placement.returnsInMemory == false, placement.arguments.count == interface.argumentShapes.count else {
      return nil
    }
    var slots: [Int] = []
    var stackBytes = 0
    for (shape, place) in zip(interface.argumentShapes, placement.arguments) {
      guard Self.isScalar(shape) else { return nil }
      switch place {
      case .registers(let general, let floating) where general.count == 1 && floating.isEmpty:
        slots.append(CBA_ENTRY_FRAME_GENERAL + 8 * general.lowerBound)
      case .registers(let general, let floating) where general.isEmpty && floating.count == 1:
        slots.append(CBA_ENTRY_FRAME_FLOATING + 8 * floating.lowerBound)
      case .stack(let offset, let size) where size <= 8:
        slots.append(~offset)
        stackBytes = max(stackBytes, offset + 8)
      default:
        return nil
      }
    }
    self.slots = .allocate(capacity: slots.count)
    self.slots.initialize(from: slots, count: slots.count)
    count = slots.count
    self.stackBytes = stackBytes
    self.resultKind = resultKind
  }

  private static func isScalar(_ shape: ValueShape) -> Bool {
    switch shape {
    case .integer(let size, _, _): size <= 8
    case .bool, .pointer: true
    case .float, .double: true
    default: false
    }
  }

  private static func resultKind(_ shape: ValueShape) -> Int32? {
    switch shape {
    case .empty: 0
    case .integer(let size, _, _) where size <= 8: 1
    case .bool, .pointer: 1
    case .float, .double: 2
    default: nil
    }
  }
}
