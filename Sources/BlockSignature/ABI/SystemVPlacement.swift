// System V x86_64: where an argument goes in a call, from its eightbyte classes
// (SystemVClassification.swift): one register of its class per eightbyte, or the stack whole;
// after an `_Atomic` scalar, which clang counts no register for, an argument clang believes
// fits is split into its eightbytes.

extension PlacementState {
  /// System V: a register per eightbyte while enough of each class are left, else the stack
  /// whole (later arguments still take the registers left).
  mutating func placeSystemV(_ type: TypeEncoding, shape: ABIShape, slot: (size: Int, alignment: Int))
    -> ArgumentPlacement.Place?
  {
    switch shape.passing {
    case .memory: return onStack(slot)
    case .eightbytes(let first, let second): return placeEightbytes(first, second, type: type, slot: slot)
    default: return nil
    }
  }

  /// An argument of eightbyte classes `first` and `second`.
  private mutating func placeEightbytes(
    _ first: RegisterClass, _ second: RegisterClass, type: TypeEncoding, slot: (size: Int, alignment: Int)
  ) -> ArgumentPlacement.Place? {
    let counts = registerCounts
    var needed = EightbyteRegisters()
    guard needed.add(first), needed.add(second) else { return onStack(slot) }
    let isAtomicScalar = type.isAtomicScalar
    if general + needed.general <= counts.general, floatingPoint + needed.floatingPoint <= counts.floatingPoint {
      defer {
        general += needed.general
        floatingPoint += needed.floatingPoint
        if !isAtomicScalar {
          countedGeneral += needed.general
          countedFloatingPoint += needed.floatingPoint
        }
      }
      return .registers(
        general: Self.registers(general, needed.general),
        floatingPoint: Self.registers(floatingPoint, needed.floatingPoint))
    }
    // clang passes an `_Atomic` scalar as one LLVM value (`i128` whole), and an argument it
    // believes does not fit in memory: on the stack, whole.
    guard !isAtomicScalar, countedGeneral + needed.general <= counts.general,
      countedFloatingPoint + needed.floatingPoint <= counts.floatingPoint
    else { return onStack(slot) }
    countedGeneral += needed.general
    countedFloatingPoint += needed.floatingPoint
    return splitIntoEightbytes(first, second)
  }

  /// An argument clang believes fits in the registers left, which LLVM places one eightbyte at
  /// a time, each in the next register of its class while one is left, else in the next 8-byte
  /// stack slot (clang's `i64 %4, i64 %5` for an `__int128`).
  private mutating func splitIntoEightbytes(_ first: RegisterClass, _ second: RegisterClass)
    -> ArgumentPlacement.Place?
  {
    let counts = registerCounts
    let (generalStart, floatingPointStart) = (general, floatingPoint)
    var stackStart: Int?
    /// Places one eightbyte; false when the stack offset overflows.
    func place(_ registerClass: RegisterClass) -> Bool {
      if registerClass == .none { return true }
      if registerClass == .integer, general < counts.general {
        general += 1
      } else if registerClass == .sse, floatingPoint < counts.floatingPoint {
        floatingPoint += 1
      } else {
        guard case .stack(let offset, _) = onStack((8, 8)) else { return false }
        stackStart = stackStart ?? offset
      }
      return true
    }
    guard place(first), place(second) else { return nil }
    let registers = (
      general: Self.registers(generalStart, general - generalStart),
      floatingPoint: Self.registers(floatingPointStart, floatingPoint - floatingPointStart)
    )
    guard let stackStart else { return .registers(general: registers.general, floatingPoint: registers.floatingPoint) }
    if registers.general.isEmpty, registers.floatingPoint.isEmpty {
      return .stack(offset: stackStart, size: stack - stackStart)
    }
    return .split(
      general: registers.general, floatingPoint: registers.floatingPoint, stackOffset: stackStart,
      stackSize: stack - stackStart)
  }
}

/// System V: the registers of each kind an argument's eightbytes take.
private struct EightbyteRegisters {
  var general = 0
  var floatingPoint = 0

  /// Counts one eightbyte; false for X87 or MEMORY, which put the argument on the stack.
  mutating func add(_ registerClass: RegisterClass) -> Bool {
    switch registerClass {
    case .integer: general += 1
    case .sse: floatingPoint += 1
    case .none: break
    case .x87, .memory: return false
    }
    return true
  }
}
