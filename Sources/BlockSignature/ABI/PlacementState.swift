// The placement state machine: the registers and stack bytes a call has used so far, advanced
// one argument at a time by each convention's rules (SystemVPlacement.swift,
// AAPCS64Placement.swift, WindowsX64Passing.swift; i386 puts every argument on the stack).

/// The argument registers and stack bytes a call has used so far: what the placement rules
/// advance, one argument after another. It allocates nothing.
struct PlacementState {
  /// The target.
  let model: DataModel
  /// Its calling convention.
  let convention: ConventionFamily
  /// AArch64 only: Apple's arm64 (packed stack arguments, no even-register rule).
  let isApple: Bool
  /// The next general-purpose register (AAPCS64's NGRN).
  var general = 0
  /// The next floating-point or vector register (AAPCS64's NSRN).
  var floatingPoint = 0
  /// x86_64 System V: the general-purpose and SSE registers clang has counted, which leaves out
  /// those of `_Atomic` scalars (LLVM still passes each in one): an argument that fits in what
  /// clang believes is left is split into its eightbytes, each placed on its own.
  var countedGeneral = 0
  var countedFloatingPoint = 0
  /// The next stack byte, from the first stack argument (AAPCS64's NSAA).
  var stack = 0
  /// Windows x64: the next argument position.
  var position = 0

  /// The state before the first argument of a call on `model`.
  init(model: DataModel) {
    self.model = model
    convention = ConventionFamily(model)
    isApple = model.callingConvention == .appleARM64
  }

  /// The registers of each kind the convention passes arguments in.
  var registerCounts: (general: Int, floatingPoint: Int) {
    switch convention {
    case .systemV: (6, 8)
    case .aapcs64: (8, 8)
    case .windowsX64: (4, 4)
    case .i386: (0, 0)
    }
  }

  /// Whether a return value of `type` goes to a buffer the caller passes a pointer to; nil when
  /// its size is not known and decides it. A lone space on x86_64 System V is a `_Float16`, a
  /// `__bf16` or a `__float128`, all three returned in XMM0.
  static func returnsInMemory(_ type: TypeEncoding, model: DataModel) -> Bool? {
    let shape = type.returnShape(for: model)
    guard shape.isSizeKnown || shape.passing != .unknown else { return nil }
    return shape.passing == .memory
  }

  /// Takes the place of the hidden pointer to a return value in memory: RDI on x86_64 System V,
  /// position 0 on Windows x64, the first 4 stack bytes on i386; nothing on AArch64 (X8).
  /// Returns false when whether it is in memory is not known (`inMemory` nil) and it could
  /// matter.
  mutating func placeReturn(inMemory: Bool?) -> Bool {
    guard let inMemory else { return convention == .aapcs64 }
    guard inMemory else { return true }
    switch convention {
    case .systemV: (general, countedGeneral) = (1, 1)
    case .windowsX64: position = 1
    case .i386: stack = 4
    case .aapcs64: break
    }
    return true
  }

  /// Places the next argument, of type `type` and the slot its offsets give it (if any); nil
  /// when its size is not known.
  mutating func place(_ type: TypeEncoding, writtenSlot: Int? = nil) -> ArgumentPlacement.Place? {
    let shape = type.abiShape(for: model, asParameter: true, writtenSlot: writtenSlot)
    return place(type, shape: shape)
  }

  /// Whether every later argument would land in the same place after this state as after
  /// `other` (of the same model).
  func isAtSamePoint(as other: PlacementState) -> Bool {
    general == other.general && floatingPoint == other.floatingPoint && stack == other.stack
      && position == other.position && countedGeneral == other.countedGeneral
      && countedFloatingPoint == other.countedFloatingPoint
  }

  /// Places the next argument, of type `type` and shape `shape` (as
  /// ``TypeEncoding/abiShape(for:asParameter:)`` gives it for a parameter); nil when its size is
  /// not known, or its stack offset overflows.
  mutating func place(_ type: TypeEncoding, shape: ABIShape) -> ArgumentPlacement.Place? {
    // The shape knows where a space is settled (AArch64 and Windows x64 have no `__float128`: it
    // is a 2-byte `_Float16` or `__bf16` there) and where it is not (x86-64 System V, i386).
    // Where only the size decides the place, a layout the encoding hides does not matter once
    // the size is known (from the offsets): i386 copies every argument to a 4-aligned slot of its
    // size, and Windows x64 gives every record one position, in a general-purpose register or
    // a stack slot, by value or through a pointer; but not an `_Atomic` structure, which clang
    // passes there as its members, one position each (`_Atomic(struct { char a, b, c; })` takes
    // four: `%struct.AR3 %0, [1 x i8] %1`), and whose members its encoding (`A{AR3}`) omits.
    guard shape.isSizeKnown,
      shape.passing != .unknown || convention == .i386
        || (convention == .windowsX64 && type.isCompositeArgument && !type.isAtomic),
      let slot = stackSlot(type, shape: shape)
    else { return nil }
    if convention == .windowsX64 { return placeWindowsX64(shape, slot: slot) }
    if shape.size == 0 { return ArgumentPlacement.Place.none }
    switch convention {
    case .systemV: return placeSystemV(type, shape: shape, slot: slot)
    case .aapcs64: return placeAAPCS64(shape, slot: slot)
    case .i386, .windowsX64: return onStack(slot)
    }
  }

  /// `count` registers from `first`; none is `0..<0`, wherever the next register is.
  static func registers(_ first: Int, _ count: Int) -> Range<Int> { count == 0 ? 0..<0 : first..<first + count }

  /// The next stack bytes for `slot`; nil when the offset overflows.
  mutating func onStack(_ slot: (size: Int, alignment: Int)) -> ArgumentPlacement.Place? {
    guard let offset = roundUp(stack, to: slot.alignment) else { return nil }
    let (end, overflowed) = offset.addingReportingOverflow(slot.size)
    if overflowed { return nil }
    stack = end
    return .stack(offset: offset, size: slot.size)
  }

  /// The stack bytes an argument takes when it goes on the stack, and their alignment; nil when
  /// they overflow.
  ///
  /// Two arguments the abi level passes the same way in registers can still differ here: on
  /// x86_64 System V `t` (aligned to 16) and `{?=qq}` (to 8); on Apple's arm64 `s` (2 bytes
  /// aligned to 2) and `{?=cc}` (8 aligned to 8).
  func stackSlot(_ type: TypeEncoding, shape: ABIShape) -> (size: Int, alignment: Int)? {
    switch convention {
    case .systemV:
      // `shape.alignment` is already 8 at least for a parameter; kept so if it changes.
      return roundUp(shape.size, to: 8).map { ($0, max(shape.alignment, 8)) }
    case .aapcs64:
      if shape.passing == .memory { return (8, 8) }  // the pointer to the copy
      if isApple {
        if case .floatingPoint = shape.passing { return (shape.size, shape.alignment) }
        if !type.isCompositeArgument { return (shape.size, shape.alignment) }
      }
      return roundUp(shape.size, to: 8).map { ($0, shape.alignment >= 16 ? 16 : 8) }
    case .windowsX64:
      return (8, 8)
    case .i386:
      return roundUp(shape.size, to: 4).map { ($0, 4) }
    }
  }
}
