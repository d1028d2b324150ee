/// How strictly a compatibility check compares two signatures, strictest first.
///
///     CompatibilityChecker(level: .equivalent).check(candidate, against: expected).isCompatible
///
/// Every level compares the return type and the explicit arguments (those after the block, or
/// after `self` and `_cmd`), so a block can be checked against a block, a method or a C function:
/// method arguments 2… map to block arguments 1….
public enum CompatibilityLevel: String, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
  /// The same types; offsets and register markers ignored.
  ///
  /// `v16@?0@"NSString"8` and `v@?@"NSString"` are identical; `@"NSString"` and `@` are not.
  case identical
  /// The same types up to what no caller can observe: qualifiers (`r*` ≈ `*`), class and
  /// protocol names (`@"NSString"` ≈ `@`), objects of any kind (`@` ≈ `#` ≈ `@?` ≈ `@?<v@?>`),
  /// `*` ≈ `^c` (and `^C`: clang writes every `char *` as `*`), anonymous structures against
  /// named ones (`{?=dd}` ≈ `{P=dd}`), opaque against expanded (`^^{S}` ≈ `^^{S=dd}`) and field
  /// names.
  ///
  /// `{A=ii}` and `{B=ii}` are not equivalent (different names); `i` and `I` are not either.
  case equivalent
  /// Passed and returned the same way on the checker's ``DataModel``: the same size and
  /// register class. On x86_64 System V: `i` ≈ `l` (4-byte integers), `^i` ≈ `^d` ≈ `@` ≈ `*`
  /// (pointers), `[4i]` ≈ `^i` (an array parameter is a pointer), `{?=ff}` ≈ `d` (one SSE
  /// eightbyte); `{?=dd}` and `{?=qq}` differ (SSE against INTEGER), `q` and `l` differ (8
  /// against 4 bytes); the classes of a union's members are merged in order, as clang and GCC
  /// merge them, so `(?=D[4i]f)` is two INTEGER eightbytes ≈ `{?=qq}` but `(?=Df[4i])` is
  /// passed and returned in memory (X87 with SSE is MEMORY). Values in memory must also agree
  /// in alignment: a hidden pointer's buffer or the caller's copy behind a pointer is aligned as
  /// its type, an argument copied to the stack as its slot (8 at least on x86_64 System V, so
  /// `{?=[24c]}` ≈ `{?=qqq}` as arguments; 4 on i386, where every argument is on the stack, so
  /// `q` ≈ `d` ≈ `{?=ii}` as arguments but not as return values). On AArch64 an argument of 16
  /// bytes aligned to 16 (`t`) differs from `{?=qq}`, and a union of floating-point members of
  /// one size is a homogeneous aggregate like a structure (`(?=f[2f])` ≈ `{?=ff}`, in two SIMD
  /// registers); on i386 `jf` is returned like `q`. An `_Atomic` scalar is passed as the scalar
  /// (`Af` ≈ `f`); System V passes a record holding an `_Atomic` member in memory. Where the
  /// encoding leaves a layout an estimate (a NeXT bitfield's unit: `{?=b1}` is 1 byte for a
  /// `_Bool : 1`, 4 for an `int`; a space where clang has `__float128` besides `_Float16`, on
  /// x86-64 System V and i386; fields not written, `{S}`) the pair is not compared, a warning,
  /// unless the sizes certainly differ (a lone space is 2 or 16 bytes, so ` ` is not `i` either
  /// way): an argument's slot in the frame is clang's size for it,
  /// which also shows packed and over-aligned records (`{P=ci}` in 5 bytes is not `{P=ci}` in
  /// 8), and a return value spelled like an argument takes its slot. Where a record's size alone
  /// decides how it is passed (any argument on i386, a record of 1, 2, 4 or 8 bytes on Windows
  /// x64, not an `_Atomic` one), its slot settles what its encoding leaves open; so it does for
  /// a record whose only open question is a NeXT bitfield's unit, of more than 16 bytes on
  /// x86_64 System V (a stack copy aligned to 8) and of any size on AArch64 (never a
  /// homogeneous aggregate). Differences in signedness,
  /// bool-ness, or integer against pointer are warnings; a returned value where `void` is
  /// expected is a warning.
  ///
  /// Arguments must also land in the same places once the argument registers run out. Two
  /// types passed alike in registers can take different stack slots (see
  /// ``ArgumentPlacement``): on x86_64 System V `t` is aligned to 16 on the stack and `{?=qq}`
  /// to 8, though both are two INTEGER eightbytes; on Apple's arm64 a `s` takes 2 bytes of stack
  /// and a `{?=cc}` 8, though both go in one register. The first argument then read from a
  /// different offset, that one or a later one, is an error, given once at the argument whose
  /// slot caused it (the offsets count from the first stack argument; the fix-it replaces that
  /// argument's type). A slot of another size that moves no later argument is harmless and not
  /// reported. On x86_64 System V an `_Atomic` scalar against the plain one (`Ai` against `i`)
  /// is the other cause: clang counts no register for the `_Atomic` one, which LLVM still
  /// passes in one, so a later argument of two eightbytes may be split between the last
  /// register and the stack on one side and go whole on the stack on the other. On AArch64
  /// Linux (8-byte slots, 16-aligned types already told apart), Windows x64 (one 8-byte slot
  /// per position) and i386 (4-byte slots) arguments that pass the checks above cannot land
  /// apart. Where an argument's place after such a pair is not known from its encoding (a NeXT
  /// bitfield's unit, a hidden layout), the pair is not compared, a warning. Only signatures
  /// with the same hidden arguments are compared this way: between a block and a method
  /// something re-marshals the arguments.
  ///
  ///     let checker = CompatibilityChecker(level: .abi)
  ///     // The block pointer and five q take RDI to R9: t comes first on the stack, at offset 0.
  ///     try checker.check("v@?qqqqqt", against: "v@?qqqqq{?=qq}").isCompatible    // true
  ///     // With a sixth q at offset 0, t is at 16 and {?=qq} at 8.
  ///     try checker.check("v@?qqqqqqt", against: "v@?qqqqqq{?=qq}").diagnostics[0].message
  ///     // argument 7: once the argument registers are used up, t takes 16 stack bytes aligned
  ///     // to 16 but {?=qq} takes 16 aligned to 8, so it is at stack offset 16 in the candidate
  ///     // and 8 in the expected signature
  case abi
  /// BlocksKit's `+[A2BlockInvocation isSignature:compatibleWithSignature:]`, for parity:
  /// equal signatures pass; otherwise the longer signature is taken as the method, return
  /// types and method arguments 2… against block arguments 1… are compared by first character.
  ///
  /// Known flaws, kept: `{A=i}` passes for `{B=d}` and `^i` for `^d` (first character only);
  /// `r*` fails against `*`; two different signatures with the same argument count always
  /// fail. BlocksKit's flaw that lets any two types pass is *not* reproduced: method
  /// `v@:d` against block `v@?i` is incompatible. Passes that the equivalent level would reject
  /// come with warnings.
  case blocksKit = "blockskit"
  /// Aspects' `aspect_isCompatibleBlockSignature`, for parity: the block may take fewer
  /// arguments than the method; its argument 1 receives the aspect info and must be an object;
  /// block arguments 2… are compared with method arguments 2… by first character; the return
  /// type is ignored.
  ///
  /// Known flaws, kept: first characters only (`^i` passes for `^d`), and a block returning a
  /// value for a `void` method passes. Passes the equivalent level would reject come with
  /// warnings.
  case aspects

  /// The level's name, as the CLI spells it.
  public var description: String { rawValue }
}
