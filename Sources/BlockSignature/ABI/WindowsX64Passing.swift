// Windows x64: every argument takes one position (an `_Atomic` `_Complex` two), in RCX, RDX,
// R8, R9 or XMM0–XMM3 by position, else in an 8-byte stack slot; what does not fit in 8 bytes
// goes through a pointer to a copy.

extension TypeEncoding {
  /// Windows x64: scalars of up to 8 bytes and records of 1, 2, 4 or 8 in a register, anything
  /// else by reference; a 16-byte integer return value (`__int128`, which clang allows) comes
  /// back in XMM0 (`<2 x i64>`), where a 16-byte structure is returned through a hidden pointer;
  /// an atomic `_Complex` goes as its two halves, each in an XMM register.
  func windowsPassing(size: Int, asParameter: Bool) -> ParameterPassing {
    if case .atomic(let inner) = self, case .complex = inner.unqualified {
      // clang passes and returns `_Atomic(_Complex float)` as two `float`s (`float %0, float %1`,
      // `{ float, float }`), each in an XMM register.
      return .floatingPoint(size: size / 2, count: 2)
    }
    if !isAggregate {
      if scalarKind == .floatingPoint { return .floatingPoint(size: size, count: 1) }
      if !asParameter, size == 16 { return .vector(size: 16) }
      return size <= 8 ? .integer(count: 1) : .memory
    }
    switch size {
    case 1, 2, 4, 8: return .integer(count: 1)
    default: return .memory
    }
  }
}

extension PlacementState {
  /// Windows x64: the argument's position's register (general-purpose or XMM), else its stack
  /// slot. An `_Atomic` `_Complex` takes a position per half, and at the fourth position its
  /// second half goes on the stack.
  mutating func placeWindowsX64(_ shape: ABIShape, slot: (size: Int, alignment: Int)) -> ArgumentPlacement.Place? {
    let index = position
    let registers = registerCounts.general
    if case .floatingPoint(_, 2) = shape.passing {
      position += 2
      if index + 2 <= registers { return .registers(general: 0..<0, floatingPoint: index..<index + 2) }
      guard let place = onStack((index < registers ? 8 : 16, 8)) else { return nil }
      guard index < registers, case .stack(let offset, let size) = place else { return place }
      return .split(general: 0..<0, floatingPoint: index..<index + 1, stackOffset: offset, stackSize: size)
    }
    position += 1
    if index < registers {
      if case .floatingPoint = shape.passing { return .registers(general: 0..<0, floatingPoint: index..<index + 1) }
      return .registers(general: index..<index + 1, floatingPoint: 0..<0)
    }
    return onStack(slot)
  }
}
