// AAPCS64: where an argument goes in a call, from its passing (AAPCS64Classification.swift):
// SIMD registers, general-purpose registers (a pair aligned to 16 starting at an even register
// on Linux), or the stack once a kind of register runs out.

extension PlacementState {
  /// AAPCS64: the registers of the argument's kind while enough are left, else the stack, and
  /// no more registers of that kind for later arguments.
  mutating func placeAAPCS64(_ shape: ABIShape, slot: (size: Int, alignment: Int)) -> ArgumentPlacement.Place? {
    let counts = registerCounts
    switch shape.passing {
    case .floatingPoint(_, let count):
      guard floatingPoint + count <= counts.floatingPoint else {
        floatingPoint = counts.floatingPoint
        return onStack(slot)
      }
      defer { floatingPoint += count }
      return .registers(general: 0..<0, floatingPoint: floatingPoint..<floatingPoint + count)
    case .integer(let count):
      return inGeneralRegisters(count, slot: slot)
    case .memory:
      return inGeneralRegisters(1, slot: slot)
    case .alignedIntegerPair:
      if !isApple { general += general & 1 }
      return inGeneralRegisters(2, slot: slot)
    default:
      return nil
    }
  }

  /// AAPCS64: `count` general-purpose registers if that many are left, else the stack (and no
  /// more general-purpose registers).
  private mutating func inGeneralRegisters(_ count: Int, slot: (size: Int, alignment: Int)) -> ArgumentPlacement.Place?
  {
    let counts = registerCounts
    guard general + count <= counts.general else {
      general = counts.general
      return onStack(slot)
    }
    defer { general += count }
    return .registers(general: general..<general + count, floatingPoint: 0..<0)
  }
}
