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
  /// registers); on i386 `jf` is returned like `q`. Differences in signedness, bool-ness, or
  /// integer against pointer are warnings; a returned value where `void` is expected is a
  /// warning.
  case abi
  /// BlocksKit's `+[A2BlockInvocation isSignature:compatibleWithSignature:]`, for parity:
  /// equal signatures pass; otherwise the longer signature is taken as the method, return
  /// types and method arguments 2… against block arguments 1… are compared by first character.
  ///
  /// Known flaws, kept: `{A=i}` passes for `{B=d}` and `^i` for `^d` (first character only);
  /// `r*` fails against `*`; two different signatures with the same argument count always
  /// fail. BlocksKit issue 348, where any two types passed, is *not* reproduced: method
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
