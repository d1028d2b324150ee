// Where a call puts each argument: which registers, or which stack bytes. `PlacementState`
// advances one argument at a time without allocating (the abi level walks two signatures with two
// of them: CheckRun+Placement.swift); `SignatureEncoding.argumentPlacement(for:)`
// lists every argument's place (SignatureEncoding+ArgumentPlacement.swift).

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
