// Where a call puts each argument: which registers, or which stack bytes. `PlacementState`
// advances one argument at a time without allocating (the abi level walks two signatures with two
// of them: CompatibilityChecker+Placement.swift); `SignatureEncoding.argumentPlacement(for:)`
// lists every argument's place.

/// Where a call puts each argument of a signature on a data model: in which argument registers,
/// or at which offset on the stack once the registers run out.
///
///     let signature = try SignatureEncoding(parsing: "q@?qqqqqqt")
///     let placement = signature.argumentPlacement(for: .x86_64SysV)
///     placement.arguments[5]  // .registers(general: 5..<6, floatingPoint: 0..<0): R9
///     placement.arguments[6]  // .stack(offset: 0, size: 8)
///     placement.arguments[7]  // .stack(offset: 16, size: 16): __int128 is aligned to 16
///
/// Every argument is walked in order, the block (or `self` and `_cmd`) included: they are
/// ordinary pointer arguments. The rules are those of clang for each calling convention:
///
/// - x86_64 System V: six general-purpose registers (RDI, RSI, RDX, RCX, R8, R9) and eight SSE
///   registers (XMM0–XMM7), numbered from 0 in that order. An argument takes one register per
///   eightbyte of its class; when the registers left cannot take all of it, it goes whole on
///   the stack and later arguments still take the registers left. Stack arguments are aligned to
///   8, or to 16 for a type aligned to 16 (`t`, `D`, a structure holding one), and take their
///   size rounded up to 8. A return value in memory takes RDI for its hidden pointer. clang
///   counts no register for an `_Atomic` scalar (`Ai`, `Ad`), which LLVM still passes in one:
///   after one, an argument of two eightbytes that clang believes fits in the registers left
///   but does not is passed in two halves, each in a register of its class while one is left,
///   else in an 8-byte stack slot (``Place/split(general:floatingPoint:stackOffset:stackSize:)``
///   when they part: `long f(long, long, long, long, _Atomic(int), __int128 y, long m)` has `y`
///   in R9 and at stack offset 0, `m` at 8).
/// - AArch64 (AAPCS64): eight general-purpose registers (X0–X7) and eight SIMD registers
///   (V0–V7). A homogeneous floating-point aggregate that does not fit in the SIMD registers left
///   goes on the stack and uses them all up (later floating-point arguments go on the stack too);
///   an argument that does not fit in the general-purpose registers left does the same with
///   those. On AArch64 Linux an argument of 16 bytes aligned to 16 starts at an even-numbered
///   register, and stack arguments take 8-byte slots (16 aligned to 16 for a type aligned to 16);
///   on Apple's arm64 there is no even-register rule, and scalars and homogeneous floating-point
///   aggregates take their own size and alignment on the stack (a `short` takes 2 bytes), while
///   other structures and unions are rounded up to 8 bytes aligned to 8 (16 for one aligned to
///   16). A value passed through a pointer to a copy (a record of more than 16 bytes) takes the
///   pointer's place. A return value in memory takes X8, which is not an argument register.
/// - Windows x64: the first four arguments in RCX, RDX, R8, R9 or XMM0–XMM3 by position (a
///   general-purpose register numbered as its position, 0 to 3, and so for XMM), the others in
///   8-byte stack slots after the 32-byte home area (offset 0 is the first byte after it); a
///   value larger than 8 bytes, or not of 1, 2, 4 or 8, goes through a pointer to a copy. An
///   `_Atomic` `_Complex` takes two positions, one per half. A return value in memory takes
///   position 0 (RCX).
/// - i386: every argument on the stack, aligned to 4, taking its size rounded up to 4. A return
///   value in memory takes the first 4 bytes (offset 0) for its hidden pointer.
///
/// An argument without bytes (`{?=[0i]}`) takes no place on every convention but Windows x64,
/// as clang drops it in C. An argument whose size the encoding does not give (an unexpanded
/// structure, an unencodable parameter, a single space on x86-64 System V and i386, which may
/// be 2 or 16 bytes there; on AArch64 and Windows x64 it is a 2-byte `_Float16` or `__bf16`),
/// whose layout the signature's offsets show hidden (a packed or over-aligned record: `{?=s}`
/// in a 16-byte slot) on x86_64 System V and AArch64, or leave open there (a NeXT bitfield's
/// unit, in a record of at most 16 bytes on x86_64 System V), or whose stack offset would
/// overflow, has an ``Place/unknown`` place, and so has every argument after it. The offsets
/// also settle a space (in a 2-byte slot it is a `_Float16`; in a 16-byte slot on x86_64
/// System V a `__float128`, in one XMM register), a record with NeXT bitfields
/// whose size they confirm (elsewhere), and on i386 and Windows x64, where a record's place
/// depends on its size alone, any record of a known size (but an `_Atomic` one on Windows).
///
/// The corresponding clang and LLVM code is `X86_64ABIInfo::computeInfo` (which counts the free
/// registers), `AArch64ABIInfo::classifyArgumentType` (Darwin's packed stack arguments), and
/// the calling-convention tables `X86CallingConv.td` and `AArch64CallingConvention.td`.
public struct ArgumentPlacement: Hashable, Sendable {
  /// Where one argument goes.
  public enum Place: Hashable, Sendable {
    /// In argument registers: the numbers of the general-purpose and of the floating-point or
    /// vector registers it takes (`0..<0` for none), numbered from 0 in the convention's
    /// order (X0, V0; RDI, XMM0 on x86_64 System V; on Windows x64 the argument's position).
    /// An argument passed through a pointer to a copy takes the pointer's register.
    case registers(general: Range<Int>, floatingPoint: Range<Int>)
    /// On the stack, `size` bytes from `offset`, counted from the first byte of the stack
    /// arguments (on Windows x64, from the first byte after the 32-byte home area).
    case stack(offset: Int, size: Int)
    /// Its first half in a register, its second on the stack (or, on x86_64 System V, the
    /// other way round when only the second half's kind has a register left): what clang and
    /// LLVM make of an argument of two eightbytes after an `_Atomic` scalar on x86_64 System V,
    /// and of an `_Atomic` `_Complex` at the fourth position on Windows x64.
    case split(general: Range<Int>, floatingPoint: Range<Int>, stackOffset: Int, stackSize: Int)
    /// Neither: an argument without bytes, which clang drops.
    case none
    /// Not known from the encoding: the argument's size is not given, or an earlier argument's
    /// is not (or a stack offset would overflow).
    case unknown
  }

  /// The data model the places were computed for.
  public var model: DataModel
  /// Whether the return value goes to a buffer the caller passes a pointer to (whose register or
  /// stack slot is then taken, except on AArch64); nil when the return type's size is not known.
  public var returnsInMemory: Bool?
  /// One place per argument, the block (or `self` and `_cmd`) included.
  public var arguments: [Place]
  /// The bytes of stack the arguments take, before any final padding; nil when a place is
  /// unknown.
  public var stackSize: Int?

  /// Where the pointer to the buffer of a return value in memory goes, named as
  /// ``Place/locations(for:)`` names places (`rdi`; `x8`, which is not an argument register;
  /// `rcx`; `stack+0` on i386); nil when the return value is not in memory or that is not known.
  ///
  ///     try SignatureEncoding(parsing: "{?=qqq}@?").argumentPlacement(for: .aarch64Linux)
  ///       .returnBufferLocation  // "x8"
  public var returnBufferLocation: String? {
    guard returnsInMemory == true else { return nil }
    switch ConventionFamily(model) {
    case .systemV: return "rdi"
    case .aapcs64: return "x8"
    case .windowsX64: return "rcx"
    case .i386: return "stack+0"
    }
  }

  /// Creates a placement from its parts.
  public init(model: DataModel, returnsInMemory: Bool?, arguments: [Place], stackSize: Int?) {
    self.model = model
    self.returnsInMemory = returnsInMemory
    self.arguments = arguments
    self.stackSize = stackSize
  }
}

extension ArgumentPlacement.Place: CustomStringConvertible {
  /// The place in words, registers numbered as in ``registers(general:floatingPoint:)``:
  ///
  ///     ArgumentPlacement.Place.split(general: 5..<6, floatingPoint: 0..<0, stackOffset: 0, stackSize: 8)
  ///       .description  // "general-purpose register 5 and 8 stack bytes at offset 0"
  public var description: String {
    func registers(_ general: Range<Int>, _ floatingPoint: Range<Int>) -> String {
      func named(_ kind: String, _ range: Range<Int>) -> String? {
        switch range.count {
        case 0: nil
        case 1: "\(kind) register \(range.lowerBound)"
        default: "\(kind) registers \(range.lowerBound)–\(range.upperBound - 1)"
        }
      }
      let parts = [named("general-purpose", general), named("floating-point", floatingPoint)].compactMap { $0 }
      return parts.isEmpty ? "no register" : parts.joined(separator: " and ")
    }
    switch self {
    case .registers(let general, let floatingPoint): return registers(general, floatingPoint)
    case .stack(let offset, let size): return "\(size) stack bytes at offset \(offset)"
    case .split(let general, let floatingPoint, let offset, let size):
      return "\(registers(general, floatingPoint)) and \(size) stack bytes at offset \(offset)"
    case .none: return "no place"
    case .unknown: return "an unknown place"
    }
  }
}

extension ArgumentPlacement.Place {
  /// The place as an assembly listing for `model`'s calling convention names it: registers in
  /// lower case (`rdi`, `xmm0`; `x0`, `v0`; on Windows x64 `rcx`, `rdx`, `r8`, `r9` or `xmm0`–`xmm3`
  /// by position), stack bytes as `stack+offset` from the first stack argument, joined by
  /// `, `; `?` where the place is not known, `-` for none.
  ///
  ///     ArgumentPlacement.Place.split(general: 5..<6, floatingPoint: 0..<0, stackOffset: 0, stackSize: 8)
  ///       .locations(for: .x86_64SysV)  // "r9, stack+0"
  public func locations(for model: DataModel) -> String {
    switch self {
    case .registers: return registerNames(for: model).joined(separator: ", ")
    case .stack(let offset, _): return "stack+\(offset)"
    case .split(_, _, let offset, _): return (registerNames(for: model) + ["stack+\(offset)"]).joined(separator: ", ")
    case .none: return "-"
    case .unknown: return "?"
    }
  }

  /// The names of the registers the place takes on `model` (general-purpose first), as
  /// ``locations(for:)`` writes them; none for a place on the stack alone.
  ///
  ///     ArgumentPlacement.Place.registers(general: 1..<2, floatingPoint: 0..<1).registerNames(for: .aarch64Linux)
  ///     // ["x1", "v0"]
  public func registerNames(for model: DataModel) -> [String] {
    let (general, floatingPoint): (Range<Int>, Range<Int>)
    switch self {
    case .registers(let g, let f), .split(let g, let f, _, _): (general, floatingPoint) = (g, f)
    case .stack, .none, .unknown: return []
    }
    let (integers, floats): ([String], String) =
      switch ConventionFamily(model) {
      case .systemV: (["rdi", "rsi", "rdx", "rcx", "r8", "r9"], "xmm")
      case .aapcs64: ((0..<8).map { "x\($0)" }, "v")
      case .windowsX64: (["rcx", "rdx", "r8", "r9"], "xmm")
      case .i386: ([], "xmm")
      }
    return general.map { integers.indices.contains($0) ? integers[$0] : "gpr\($0)" }
      + floatingPoint.map { "\(floats)\($0)" }
  }
}

extension TypeEncoding {
  /// Where a value of this type comes back from a call on `model`, named as an assembly listing
  /// names the registers (`rax, rdx`, `rax, xmm0`, `xmm0, xmm1`, `st0, st1` on x86_64 System V;
  /// `x0, x1`, `v0, v1, v2` on AArch64; `rax`, `xmm0` on Windows x64; `eax, edx`, `st0` on i386);
  /// `memory` for a buffer the caller passes (see ``ArgumentPlacement/returnBufferLocation``),
  /// `-` for `void`, `?` where the encoding does not say.
  ///
  ///     try TypeEncoding(parsing: "{?=qd}").returnLocation(for: .x86_64SysV)  // "rax, xmm0"
  public func returnLocation(for model: DataModel) -> String {
    let family = ConventionFamily(model)
    let shape = returnShape(for: model)
    func numbered(_ prefix: String, _ count: Int) -> String {
      (0..<count).map { "\(prefix)\($0)" }.joined(separator: ", ")
    }
    switch (family, shape.passing) {
    case (_, .void): return "-"
    case (_, .memory): return "memory"
    case (_, .unknown): return "?"
    case (.systemV, .eightbytes(let first, let second)):
      if first == .x87 { return shape.size > 16 ? "st0, st1" : "st0" }
      var (integers, vectors) = (["rax", "rdx"][...], ["xmm0", "xmm1"][...])
      let names = [first, second].compactMap { registerClass -> String? in
        switch registerClass {
        case .integer: integers.popFirst()
        case .sse: vectors.popFirst()
        default: nil
        }
      }
      // A record without bytes comes back in no register.
      return names.isEmpty ? "-" : names.joined(separator: ", ")
    case (.aapcs64, .integer(let count)): return numbered("x", count)
    case (.aapcs64, .alignedIntegerPair): return "x0, x1"
    case (.aapcs64, .floatingPoint(_, let count)): return numbered("v", count)
    case (.windowsX64, .integer): return "rax"
    case (.windowsX64, .floatingPoint), (.windowsX64, .vector): return "xmm0"
    case (.i386, .integer(let count)): return count > 1 ? "eax, edx" : "eax"
    case (.i386, .floatingPoint): return "st0"
    default: return "?"
    }
  }
}

extension SignatureEncoding {
  /// Where a call puts each argument on `model`: in which registers, or where on the stack.
  ///
  ///     try SignatureEncoding(parsing: "s@?qqqqqqqsc").argumentPlacement(for: .arm64Apple).arguments[8...]
  ///     // [.stack(offset: 0, size: 2), .stack(offset: 2, size: 1)]: Apple packs stack arguments
  ///
  /// See ``ArgumentPlacement`` for the rules of each calling convention.
  /// - Complexity: O(*n*) in the size of the signature.
  public func argumentPlacement(for model: DataModel = .x86_64SysV) -> ArgumentPlacement {
    var state = PlacementState(model: model)
    let returnsInMemory = PlacementState.returnsInMemory(returnType, model: model)
    var places: [ArgumentPlacement.Place] = []
    places.reserveCapacity(arguments.count)
    var known = state.placeReturn(inMemory: returnsInMemory)
    for (index, argument) in arguments.enumerated() {
      guard known, let place = state.place(argument.type, writtenSlot: writtenSlot(ofArgument: index)) else {
        known = false
        places.append(.unknown)
        continue
      }
      places.append(place)
    }
    return ArgumentPlacement(
      model: model, returnsInMemory: returnsInMemory, arguments: places, stackSize: known ? state.stack : nil)
  }
}

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
  private var registerCounts: (general: Int, floatingPoint: Int) {
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
    if convention == .windowsX64 {
      let index = position
      let registers = registerCounts.general
      // An `_Atomic` `_Complex` takes a position per half.
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
    if shape.size == 0 { return ArgumentPlacement.Place.none }
    let counts = registerCounts
    switch (convention, shape.passing) {
    case (.i386, _):
      return onStack(slot)
    case (.systemV, .memory):
      return onStack(slot)
    case (.systemV, .eightbytes(let first, let second)):
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
    case (.aapcs64, .floatingPoint(_, let count)):
      guard floatingPoint + count <= counts.floatingPoint else {
        floatingPoint = counts.floatingPoint
        return onStack(slot)
      }
      defer { floatingPoint += count }
      return .registers(general: 0..<0, floatingPoint: floatingPoint..<floatingPoint + count)
    case (.aapcs64, .integer(let count)):
      return inGeneralRegisters(count, slot: slot)
    case (.aapcs64, .memory):
      return inGeneralRegisters(1, slot: slot)
    case (.aapcs64, .alignedIntegerPair):
      if !isApple { general += general & 1 }
      return inGeneralRegisters(2, slot: slot)
    default:
      return nil
    }
  }

  /// `count` registers from `first`; none is `0..<0`, wherever the next register is.
  private static func registers(_ first: Int, _ count: Int) -> Range<Int> { count == 0 ? 0..<0 : first..<first + count }

  /// x86_64 System V: an argument clang believes fits in the registers left, which LLVM places
  /// one eightbyte at a time, each in the next register of its class while one is left, else in
  /// the next 8-byte stack slot (clang's `i64 %4, i64 %5` for an `__int128`).
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

  /// The next stack bytes for `slot`; nil when the offset overflows.
  private mutating func onStack(_ slot: (size: Int, alignment: Int)) -> ArgumentPlacement.Place? {
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

extension TypeEncoding {
  /// How a value of this type is returned on `model`: its ``abiShape(for:asParameter:writtenSlot:assumingHalfPrecision:)``,
  /// except for a lone space on x86_64 System V, whose size is open but whose register is not:
  /// `_Float16`, `__bf16` and `__float128` all come back in XMM0.
  func returnShape(for model: DataModel) -> ABIShape {
    let shape = abiShape(for: model, asParameter: false)
    if !shape.isSizeKnown, ConventionFamily(model) == .systemV, case .primitive(.otherFloat) = unqualified {
      return ABIShape(
        size: shape.size, alignment: shape.alignment, passing: .eightbytes(.sse, .none), isSizeKnown: false)
    }
    return shape
  }

  /// Whether this is an `_Atomic` type, qualifiers removed.
  var isAtomic: Bool {
    if case .atomic = unqualified { return true }
    return false
  }

  /// Whether this is an `_Atomic` scalar (`Ai`, `A^v`), which clang passes as the scalar but
  /// counts no register for on x86_64 System V.
  var isAtomicScalar: Bool {
    if case .atomic(let inner) = unqualified { return inner.unqualified.isScalar }
    return false
  }

  /// Whether an argument of this type is a structure, union or `_Complex` (what clang passes as
  /// an aggregate), an `_Atomic` one included; an array parameter is a pointer.
  var isCompositeArgument: Bool {
    let type = unqualified
    if case .array = type { return false }
    return type.isAggregate
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
