import BlockSignature
import Foundation
import TestSupport
import Testing

/// One row of the compatibility table: two signatures, a level, and every diagnostic expected.
struct CompatibilityCase: CustomTestStringConvertible, Sendable {
  var level: CompatibilityLevel
  var model: DataModel = .x86_64SysV
  var candidate: String
  var expected: String
  var compatible: Bool
  /// `severity: message` of every diagnostic, in order.
  var diagnostics: [String]

  var testDescription: String { "\(level) \(model.name): \(candidate) vs \(expected)" }
}

@Suite struct CompatibilityTests {
  static let cases: [CompatibilityCase] = [
    // identical: offsets ignored, names not.
    .init(
      level: .identical, candidate: "v16@?0@\"NSString\"8", expected: "v@?@\"NSString\"", compatible: true,
      diagnostics: []),
    .init(
      level: .identical, candidate: "v16@?0@\"NSString\"8", expected: "v16@?0@8", compatible: false,
      diagnostics: ["error: argument 1: type @\"NSString\" does not match @"]),
    .init(
      level: .identical, candidate: "v16@?0i8", expected: "v20@0:8i16", compatible: true, diagnostics: []),
    .init(
      level: .identical, candidate: "v16@?0i8", expected: "v24@0:8i16i20", compatible: false,
      diagnostics: [
        "error: signature: argument count 1 does not match 2 (arguments after the block, self and _cmd)"
      ]),
    .init(level: .identical, candidate: "v12@?0i+8", expected: "v12@?0i8", compatible: true, diagnostics: []),
    // equivalent: qualifiers, class names, objects, char pointers, anonymous and opaque structures.
    .init(
      level: .equivalent, candidate: "v16@?0r*8", expected: "v16@?0^c8", compatible: true, diagnostics: []),
    .init(
      level: .equivalent, candidate: "v24@?0@\"NSString\"8#16", expected: "v24@?0@8@?<v@?>16",
      compatible: true, diagnostics: []),
    .init(
      level: .equivalent, candidate: "v16@?0^^{S}8", expected: "v16@?0^^{S=dd}8", compatible: true,
      diagnostics: []),
    .init(
      level: .equivalent, candidate: "v24@?0{?=dd}8", expected: "v24@?0{P=\"x\"d\"y\"d}8", compatible: true,
      diagnostics: []),
    .init(
      level: .equivalent, candidate: "v24@?0{P=dd}8", expected: "v24@?0{?=dd}8", compatible: true,
      diagnostics: []),
    .init(
      level: .equivalent, candidate: "v16@?0r*8", expected: "v16@?0^C8", compatible: true, diagnostics: []),
    .init(
      level: .equivalent, candidate: "v16@?0{S=q}8", expected: "v16@?0(S=q)8", compatible: false,
      diagnostics: ["error: argument 1: {S=q} is not equivalent to (S=q): a structure is not a union"]),
    .init(
      level: .equivalent, candidate: "v16@?0(S=q)8", expected: "v16@?0{S=q}8", compatible: false,
      diagnostics: ["error: argument 1: (S=q) is not equivalent to {S=q}: a union is not a structure"]),
    .init(level: .equivalent, candidate: "v16@?0Ai8", expected: "v16@?0Ai8", compatible: true, diagnostics: []),
    .init(
      level: .equivalent, candidate: "v24@?0Ai8", expected: "v24@?0jf8", compatible: false,
      diagnostics: ["error: argument 1: Ai is not equivalent to jf"]),
    .init(
      level: .equivalent, candidate: "v16@?0{S=b3}8", expected: "v16@?0{S=b5}8", compatible: false,
      diagnostics: ["error: argument 1: {S=b3} is not equivalent to {S=b5}: bitfield width 3 does not match 5"]),
    // A structure written without fields ({S=}, as in a pointee) against its expansion.
    .init(
      level: .equivalent, candidate: "v16@?0^{S=}8", expected: "v16@?0^{S=i}8", compatible: true, diagnostics: []),
    .init(
      level: .equivalent, candidate: "v16@?0^{A=ii}8", expected: "v16@?0^{B=ii}8", compatible: false,
      diagnostics: ["error: argument 1: ^{A=ii} is not equivalent to ^{B=ii}: name A does not match B"]),
    .init(
      level: .equivalent, candidate: "v12@?0I8", expected: "v12@?0i8", compatible: false,
      diagnostics: ["error: argument 1: I is not equivalent to i"]),
    .init(
      level: .equivalent, candidate: "v20@?0{S=id}8", expected: "v16@?0{S=ii}8", compatible: false,
      diagnostics: ["error: argument 1: {S=id} is not equivalent to {S=ii}: d is not i"]),
    .init(
      level: .equivalent, candidate: "v24@?0[3i]8[2i]16", expected: "v24@?0[3i]8[4i]16", compatible: false,
      diagnostics: ["error: argument 2: [2i] is not equivalent to [4i]: element count 2 does not match 4"]),
    .init(
      level: .equivalent, candidate: "v24@?08", expected: "v24@?08", compatible: true,
      diagnostics: [
        "warning: argument 1: neither type has an encoding (a vector, member pointer or _BitInt); not compared"
      ]),
    // abi on x86_64 System V.
    .init(level: .abi, candidate: "v12@?0i8", expected: "v12@?0l8", compatible: true, diagnostics: []),
    .init(
      level: .abi, candidate: "v16@?0q8", expected: "v12@?0l8", compatible: false,
      diagnostics: ["error: argument 1: size 8 does not match size 4 (q vs l)"]),
    .init(
      level: .abi, candidate: "v20@?0i8q12", expected: "v16@?0i8i12", compatible: false,
      diagnostics: ["error: argument 2: size 8 does not match size 4 (q vs i)"]),
    .init(
      level: .abi, candidate: "v32@?0^i8^d16@24", expected: "v32@?0^d8@16*24", compatible: true,
      diagnostics: []),
    .init(level: .abi, candidate: "i16@?0[4i]8", expected: "i16@?0^i8", compatible: true, diagnostics: []),
    .init(
      level: .abi, candidate: "v24@?0{?=dd}8", expected: "v24@?0{?=qq}8", compatible: false,
      diagnostics: [
        "error: argument 1: register class sse, sse does not match integer, integer ({?=dd} vs {?=qq})"
      ]),
    .init(level: .abi, candidate: "v16@?0{?=ff}8", expected: "v16@?0d8", compatible: true, diagnostics: []),
    .init(
      level: .abi, candidate: "v12@?0f8", expected: "v12@?0i8", compatible: false,
      diagnostics: ["error: argument 1: register class sse does not match integer (f vs i)"]),
    .init(
      level: .abi, candidate: "v12@?0I8", expected: "v12@?0i8", compatible: true,
      diagnostics: ["warning: argument 1: unsigned integer does not match signed integer of size 4 (I vs i)"]),
    .init(
      level: .abi, candidate: "v12@?0B8", expected: "v12@?0C8", compatible: true,
      diagnostics: [
        "warning: argument 1: bool does not match a non-bool integer of size 1 (B vs C); a bool must be 0 or 1"
      ]),
    .init(
      level: .abi, candidate: "v16@?0q8", expected: "v16@?0^v8", compatible: true,
      diagnostics: [
        "warning: argument 1: an integer and a pointer share size 8 and the integer class (q vs ^v)"
      ]),
    .init(
      level: .abi, candidate: "i8@?0", expected: "v8@?0", compatible: true,
      diagnostics: ["warning: return: the candidate returns i where void is expected; the value is ignored"]),
    .init(
      level: .abi, candidate: "v8@?0", expected: "i8@?0", compatible: false,
      diagnostics: ["error: return: size 0 does not match size 4 (v vs i)"]),
    .init(
      level: .abi, candidate: "{?=qqq}8@?0", expected: "v8@?0", compatible: false,
      diagnostics: ["error: return: size 24 does not match size 0 ({?=qqq} vs v)"]),
    .init(
      level: .abi, candidate: "v48@?0{?=qqq}8D32", expected: "v48@?0{?=ddd}8{?=qq}32", compatible: false,
      diagnostics: [
        "error: argument 2: register class memory does not match integer, integer (D vs {?=qq})"
      ]),
    // abi on other models.
    .init(
      level: .abi, model: .aarch64Linux, candidate: "v16@?0{?=ff}8", expected: "v16@?0d8", compatible: false,
      diagnostics: [
        "error: argument 1: register class floating point (2 × 4 bytes) does not match floating point (8 bytes) ({?=ff} vs d)"
      ]),
    .init(
      level: .abi, model: .aarch64Linux, candidate: "v24@?0{?=dd}8", expected: "v24@?0{P=dd}8",
      compatible: true, diagnostics: []),
    .init(
      level: .abi, model: .windowsX64, candidate: "v12@?0l8", expected: "v12@?0i8", compatible: true,
      diagnostics: []),
    .init(
      level: .abi, model: .windowsX64, candidate: "v20@?0{?=iii}8", expected: "v20@?0{?=fff}8",
      compatible: true, diagnostics: []),
    // _Atomic double is a double (clang lowers it so); on Windows a 16-byte scalar and a 16-byte
    // structure both go by reference (clang: ptr).
    .init(level: .abi, candidate: "v16@?0Ad8", expected: "v16@?0d8", compatible: true, diagnostics: []),
    .init(
      level: .abi, candidate: "v16@?0Ad8", expected: "v16@?0q8", compatible: false,
      diagnostics: ["error: argument 1: register class sse does not match integer (Ad vs q)"]),
    .init(
      level: .abi, model: .windowsX64, candidate: "v24@?0t8", expected: "v24@?0{S=t}8", compatible: true,
      diagnostics: []),
    // Where the encoding hides a layout: an argument's slot is clang's size for it (a packed P
    // of 5 bytes is not P of 8, a _Bool : 1 in 1 byte not a bitfield in an int's 4); a return
    // value takes the slot of an argument of the same encoding; what neither shows is not
    // compared (b3 may be a char, int or long long bitfield, whatever the names).
    .init(
      level: .abi, candidate: "v13@?0{P=ci}8", expected: "v16@?0{P=ci}8", compatible: false,
      diagnostics: ["error: argument 1: size 5 does not match size 8 ({P=ci} vs {P=ci})"]),
    .init(
      level: .abi, candidate: "{P=ci}13@?0{P=ci}8", expected: "{Q=ci}16@?0{Q=ci}8", compatible: false,
      diagnostics: [
        "error: return: size 5 does not match size 8 ({P=ci} vs {Q=ci})",
        "error: argument 1: size 5 does not match size 8 ({P=ci} vs {Q=ci})",
      ]),
    .init(
      level: .abi, candidate: "v12@?0{?=b1}8", expected: "v9@?0{T=b1}8", compatible: false,
      diagnostics: ["error: argument 1: size 4 does not match size 1 ({?=b1} vs {T=b1})"]),
    .init(
      level: .abi, candidate: "{?=b3}8@?0", expected: "{T=b3}8@?0", compatible: true,
      diagnostics: ["warning: return: the size of {?=b3} or {T=b3} is not known from its encoding; not compared"]),
    // Slots of the same size, layouts not known (the bitfield's unit decides whether the float
    // shares an eightbyte with it): the message says so (not "the size").
    .init(
      level: .abi, candidate: "v16@?0{?=b3f}8", expected: "v16@?0{T=b3f}8", compatible: true,
      diagnostics: [
        "warning: argument 1: the layout of {?=b3f} or {T=b3f} is not known from its encoding, so neither is how it is passed; not compared"
      ]),
    // Of integers alone, every eightbyte is INTEGER wherever the unit falls.
    .init(level: .abi, candidate: "v12@?0{?=b3}8", expected: "v12@?0{T=b3}8", compatible: true, diagnostics: []),
    // A lone space with no slot to size it is a 2-byte _Float16 or a 16-byte __float128 on
    // x86-64: an int matches neither, nor does a short (an integer, where a _Float16 is SSE), a
    // structure holding a _Float16 may (not compared).
    .init(
      level: .abi, candidate: " 8@?0", expected: "i8@?0", compatible: false,
      diagnostics: [
        "error: return: a space is 2 bytes (_Float16, sse) or 16 (__float128) here, and neither matches size 4, integer (' ' vs i)"
      ]),
    .init(
      level: .abi, candidate: "v16@?0q8", expected: "v@? ", compatible: false,
      diagnostics: [
        "error: argument 1: a space is 2 bytes (_Float16, sse) or 16 (__float128) here, and neither matches size 8, integer (q vs ' ')"
      ]),
    .init(
      level: .abi, candidate: " 8@?0", expected: "s8@?0", compatible: false,
      diagnostics: [
        "error: return: a space is 2 bytes (_Float16, sse) or 16 (__float128) here, and neither matches size 2, integer (' ' vs s)"
      ]),
    .init(
      level: .abi, candidate: " 8@?0", expected: "{?= }8@?0", compatible: true,
      diagnostics: ["warning: return: the size of ' ' or '{?= }' is not known from its encoding; not compared"]),
    // i386: as arguments a _Float16 and a short take the same 4-byte stack slot; the 16-byte
    // reading differs: not compared. As return values XMM0 against AX: incompatible.
    .init(
      level: .abi, model: .i386Linux, candidate: "v@? ", expected: "v@?s", compatible: true,
      diagnostics: ["warning: argument 1: the size of ' ' or s is not known from its encoding; not compared"]),
    .init(
      level: .abi, model: .i386Linux, candidate: " 4@?0", expected: "s4@?0", compatible: false,
      diagnostics: [
        "error: return: a space is 2 bytes (_Float16, floating point (2 bytes)) or 16 (__float128) here, and neither matches size 2, integer (' ' vs s)"
      ]),
    // A type with a space is quoted in the text (a bare space would read as nothing).
    .init(
      level: .abi, candidate: "v10@?0 8", expected: "v10@?0s8", compatible: false,
      diagnostics: ["error: argument 1: register class sse does not match integer (' ' vs s)"]),
    // i386: a long long comes back in EDX:EAX, a double on the x87 stack; as arguments both
    // take the same 8 bytes of the stack (clang: i64 and double, 4-byte-aligned slots).
    .init(
      level: .abi, model: .i386Linux, candidate: "q4@?0", expected: "d4@?0", compatible: false,
      diagnostics: [
        "error: return: register class integer (2 registers) does not match floating point (8 bytes) (q vs d)"
      ]),
    .init(
      level: .abi, model: .i386Linux, candidate: "v12@?0q4", expected: "v12@?0d4", compatible: true,
      diagnostics: []),
    // abi: where arguments land once the argument registers run out (ABIPlacementTests has
    // clang's offsets). On x86_64 `t` and `{?=qq}` are both INTEGER, INTEGER, but `t` is aligned
    // to 16 on the stack: with RDI to R9 taken, it lands at offset 16 after one 8-byte argument.
    .init(level: .abi, candidate: "v@?qqqqqt", expected: "v@?qqqqq{?=qq}", compatible: true, diagnostics: []),
    .init(
      level: .abi, candidate: "v@?qqqqqqt", expected: "v@?qqqqqq{?=qq}", compatible: false,
      diagnostics: [
        "error: argument 7: once the argument registers are used up, t takes 16 stack bytes aligned to 16 but {?=qq} takes 16 aligned to 8, so it is at stack offset 16 in the candidate and 8 in the expected signature"
      ]),
    // A return value in memory takes RDI.
    .init(
      level: .abi, candidate: "{?=qqq}@?qqqqqt", expected: "{?=qqq}@?qqqqq{?=qq}", compatible: false,
      diagnostics: [
        "error: argument 6: once the argument registers are used up, t takes 16 stack bytes aligned to 16 but {?=qq} takes 16 aligned to 8, so it is at stack offset 16 in the candidate and 8 in the expected signature"
      ]),
    // Once, at the first divergence, in signature order with the other findings.
    .init(
      level: .abi, candidate: "v@?qqqqqqtq", expected: "v@?qqqqqq{?=qq}i", compatible: false,
      diagnostics: [
        "error: argument 7: once the argument registers are used up, t takes 16 stack bytes aligned to 16 but {?=qq} takes 16 aligned to 8, so it is at stack offset 16 in the candidate and 8 in the expected signature",
        "error: argument 8: size 8 does not match size 4 (q vs i)",
      ]),
    // An error that leaves both calls in step does not stop the walk; one that puts them out of
    // step (d in XMM0 where q takes RSI) does, and what follows from it is not reported.
    .init(
      level: .abi, candidate: "v@?iqqqqqt", expected: "v@?qqqqqq{?=qq}", compatible: false,
      diagnostics: [
        "error: argument 1: size 4 does not match size 8 (i vs q)",
        "error: argument 7: once the argument registers are used up, t takes 16 stack bytes aligned to 16 but {?=qq} takes 16 aligned to 8, so it is at stack offset 16 in the candidate and 8 in the expected signature",
      ]),
    .init(
      level: .abi, candidate: "v@?dqqqqqqt", expected: "v@?qqqqqqq{?=qq}", compatible: false,
      diagnostics: ["error: argument 1: register class sse does not match integer (d vs q)"]),
    // A block against a method: their arguments are re-marshalled (NSInvocation, a trampoline),
    // so their stack places are not compared.
    .init(level: .abi, candidate: "v@?qqqqqqt", expected: "v@:qqqqqq{?=qq}", compatible: true, diagnostics: []),
    // x86_64: clang counts no register for an `_Atomic(int)`, which LLVM passes in R8, so the
    // `struct QQ` after it is split between R9 and the stack and `m` is at stack offset 8
    // (`16(%rsp)` in the -O2 assembly); after a plain `int`, QQ is whole on the stack and `m` in
    // R9. With a `long` in QQ's place both read `m` from the stack at 0 (`8(%rsp)`).
    .init(
      level: .abi, candidate: "q60@?0q8q16q24Ai32{QQ=qq}36q52", expected: "q60@?0q8q16q24i32{QQ=qq}36q52",
      compatible: false,
      diagnostics: [
        "error: argument 4: Ai and i are passed alike, but clang counts no register for the _Atomic Ai, so argument 5 is passed in r9, stack+0 in the candidate and in stack+0 in the expected signature"
      ]),
    .init(
      level: .abi, candidate: "q60@?0q8q16q24i32{QQ=qq}36q52", expected: "q60@?0q8q16q24Ai32{QQ=qq}36q52",
      compatible: false,
      diagnostics: [
        "error: argument 4: Ai and i are passed alike, but clang counts no register for the _Atomic Ai, so argument 5 is passed in stack+0 in the candidate and in r9, stack+0 in the expected signature"
      ]),
    .init(
      level: .abi, candidate: "q52@?0q8q16q24Ai32q36q44", expected: "q52@?0q8q16q24i32q36q44", compatible: true,
      diagnostics: []),
    // Where a later argument's place is not known (a NeXT bitfield's unit), whether the pair
    // moves anything is not known either: said, not passed over in silence.
    .init(
      level: .abi, candidate: "q@?qqqAi{?=b5}q", expected: "q@?qqqi{?=b5}q", compatible: true,
      diagnostics: [
        "warning: argument 4: Ai and i are passed alike but can move the arguments after them, and the place of argument 5 is not known from its encoding; not compared"
      ]),
    // Where a record's size alone decides, its slot settles a layout the encoding leaves open:
    // on i386 the over-aligned `struct R { short s; }` (16 bytes) and `struct { long long a, b; }`
    // are both copied to 16 stack bytes aligned to 4 (clang: `byval … align 4`); on Windows x64
    // a 4-byte record with a bitfield goes in a register as `{?=i}` does. An `_Atomic` structure
    // does not: clang passes its members one position each.
    .init(
      level: .abi, model: .i386Linux, candidate: "v20@?0{R=s}4", expected: "v20@?0{?=qq}4", compatible: true,
      diagnostics: []),
    .init(
      level: .abi, model: .windowsX64, candidate: "v12@?0{B=b5}8", expected: "v12@?0{?=i}8", compatible: true,
      diagnostics: []),
    .init(
      level: .abi, model: .windowsX64, candidate: "v12@?0A{AR3}8", expected: "v12@?0{?=i}8", compatible: true,
      diagnostics: [
        "warning: argument 1: the layout of A{AR3} or {?=i} is not known from its encoding, so neither is how it is passed; not compared"
      ]),
    // A NeXT bitfield's unit is the only open question and the frame confirms the size: more
    // than 16 bytes is a stack copy aligned to 8 on x86-64 and a pointer to a copy on AArch64,
    // and 8 bytes one general-purpose register on AArch64, and on x86-64 when every leaf is an
    // integer; with a float beside the bitfield, the class of its eightbyte depends on the unit.
    .init(level: .abi, candidate: "v32@?0{B3=b5qq}8", expected: "v32@?0{?=qqq}8", compatible: true, diagnostics: []),
    .init(
      level: .abi, model: .aarch64Linux, candidate: "v32@?0{B3=b5qq}8", expected: "v32@?0{?=qqq}8", compatible: true,
      diagnostics: []),
    .init(
      level: .abi, model: .aarch64Linux, candidate: "v16@?0{B=b5i}8", expected: "v16@?0{?=q}8", compatible: true,
      diagnostics: []),
    .init(level: .abi, candidate: "v16@?0{B=b5i}8", expected: "v16@?0{?=q}8", compatible: true, diagnostics: []),
    .init(
      level: .abi, candidate: "v16@?0{B=b5f}8", expected: "v16@?0{?=q}8", compatible: true,
      diagnostics: [
        "warning: argument 1: the layout of {B=b5f} or {?=q} is not known from its encoding, so neither is how it is passed; not compared"
      ]),
    // A space in a 16-byte slot is a `__float128` on x86-64: one XMM register (clang: `fp128`),
    // where `struct { float a[4]; }` takes two (`<2 x float>, <2 x float>`).
    .init(
      level: .abi, candidate: "v24@?0 8", expected: "v24@?0{?=[4f]}8", compatible: false,
      diagnostics: ["error: argument 1: register class sse does not match sse, sse (' ' vs {?=[4f]})"]),
    // An `_Atomic` scalar is its scalar for the warnings too.
    .init(
      level: .abi, candidate: "v@?Ai", expected: "v@?I", compatible: true,
      diagnostics: ["warning: argument 1: signed integer does not match unsigned integer of size 4 (Ai vs I)"]),
    .init(
      level: .abi, model: .aarch64Linux, candidate: "q60@?0q8q16q24Ai32{QQ=qq}36q52",
      expected: "q60@?0q8q16q24i32{QQ=qq}36q52", compatible: true, diagnostics: []),
    // Apple's arm64 packs stack arguments: `s` takes 2 bytes, `{?=cc}` 8; harmless unless a later
    // argument is on the stack where that changes its offset (not a `q`, aligned to 8 anyway).
    .init(
      level: .abi, model: .arm64Apple, candidate: "v@?qqqqqqqs", expected: "v@?qqqqqqq{?=cc}", compatible: true,
      diagnostics: []),
    .init(
      level: .abi, model: .arm64Apple, candidate: "v@?qqqqqqqsq", expected: "v@?qqqqqqq{?=cc}q", compatible: true,
      diagnostics: []),
    .init(
      level: .abi, model: .arm64Apple, candidate: "v@?qqqqqqqsc", expected: "v@?qqqqqqq{?=cc}c", compatible: false,
      diagnostics: [
        "error: argument 8: once the argument registers are used up, s takes 2 stack bytes aligned to 2 but {?=cc} takes 8 aligned to 8, so argument 9 is at stack offset 2 in the candidate and 8 in the expected signature"
      ]),
    // AArch64 Linux gives both 8-byte slots.
    .init(
      level: .abi, model: .aarch64Linux, candidate: "v@?qqqqqqqsc", expected: "v@?qqqqqqq{?=cc}c", compatible: true,
      diagnostics: []),
    // blockskit: first characters, the longer signature is the method; different types fail.
    .init(
      level: .blocksKit, candidate: "v@?i", expected: "v@:d", compatible: false,
      diagnostics: ["error: argument 1: type code 'i' does not match 'd' (i vs d)"]),
    .init(
      level: .blocksKit, candidate: "v12@?0i8", expected: "v20@0:8i16", compatible: true, diagnostics: []),
    .init(
      level: .blocksKit, candidate: "v@?{A=i}", expected: "v@:{B=d}", compatible: true,
      diagnostics: ["warning: argument 1: blockskit accepts {A=i} for {B=d} by first character only"]),
    .init(
      level: .blocksKit, candidate: "v@?i", expected: "v@?d", compatible: false,
      diagnostics: [
        "error: signature: both signatures have 2 arguments, so blockskit cannot tell the block from the method"
      ]),
    .init(level: .blocksKit, candidate: "v@?i", expected: "v@?i", compatible: true, diagnostics: []),
    .init(
      level: .blocksKit, candidate: "v@?r*", expected: "v@:*", compatible: false,
      diagnostics: ["error: argument 1: type code 'r' does not match '*' (r* vs *)"]),
    .init(
      level: .blocksKit, candidate: "v@?", expected: "v@:ii", compatible: false,
      diagnostics: [
        "error: signature: the block takes 1 argument; blockskit needs exactly 3 for a method with 4"
      ]),
    // A shorter candidate whose arguments match the start of the expected ones is no match.
    .init(
      level: .blocksKit, candidate: "v@?i", expected: "v@?id", compatible: false,
      diagnostics: ["error: argument 1: type code 'i' does not match 'd' (i vs d)"]),
    .init(
      level: .blocksKit, candidate: "i@?i", expected: "v@:i", compatible: false,
      diagnostics: ["error: return: type code 'i' does not match 'v' (i vs v)"]),
    // aspects: argument 1 is the aspect info, fewer arguments allowed, return ignored.
    .init(level: .aspects, candidate: "v@?@i", expected: "v@:i", compatible: true, diagnostics: []),
    .init(
      level: .aspects, candidate: "v@?@i", expected: "v@:d", compatible: false,
      diagnostics: ["error: argument 2: type code 'i' does not match 'd' (i vs d)"]),
    .init(level: .aspects, candidate: "v@?", expected: "v@:id", compatible: true, diagnostics: []),
    .init(
      level: .aspects, candidate: "v@?i", expected: "v@:i", compatible: false,
      diagnostics: [
        "error: argument 1: aspects passes its aspect info object (@) here, but the block takes i"
      ]),
    .init(
      level: .aspects, candidate: "v@?@ii", expected: "v@:i", compatible: false,
      diagnostics: ["error: signature: the block takes 4 arguments but the method passes 3"]),
    .init(
      level: .aspects, candidate: "i@?@", expected: "v@:", compatible: true,
      diagnostics: ["warning: return: not compared at level aspects (i vs v)"]),
    // Returns that differ only in what the equivalent level ignores are not worth a warning.
    .init(level: .aspects, candidate: "r*@?@", expected: "*@:", compatible: true, diagnostics: []),
    // Against a block: the aspect info takes the block's argument 1 slot, so argument 2 meets 1.
    .init(
      level: .aspects, candidate: "v@?@i", expected: "v@?d", compatible: false,
      diagnostics: ["error: argument 2: type code 'i' does not match 'd' (i vs d)"]),
    .init(
      level: .aspects, candidate: "v@?@^i", expected: "v@:^d", compatible: true,
      diagnostics: ["warning: argument 2: aspects accepts ^i for ^d by first character only"]),
  ]

  @Test(arguments: cases)
  func table(_ row: CompatibilityCase) throws {
    let report = try CompatibilityChecker(level: row.level, model: row.model).check(
      row.candidate, against: row.expected)
    #expect(report.isCompatible == row.compatible)
    #expect(report.diagnostics.map(\.description) == row.diagnostics)
    #expect(report.level == row.level)
    for diagnostic in report.diagnostics {
      #expect(diagnostic.id.domain == "BlockSignature")
      if diagnostic.severity == .error, diagnostic.location.position != .signature || row.level != .blocksKit {
        // Errors carry the encoding that would match, except where nothing would.
        if diagnostic.id.id != "aspectsFirstArgumentNotObject"
          && diagnostic.id.id != "aspectsTooManyArguments"
        {
          #expect(!diagnostic.fixIts.isEmpty, "\(diagnostic)")
        }
      }
    }
  }

  @Test func locationsNameBothEncodingsAndTheirBytes() throws {
    let report = try CompatibilityChecker(level: .identical).check(
      "v16@?0@\"NSString\"8", against: "v16@?0@8")
    let diagnostic = try #require(report.diagnostics.first)
    #expect(diagnostic.location.position == .argument(1))
    #expect(diagnostic.location.candidate == "@\"NSString\"")
    #expect(diagnostic.location.expected == "@")
    #expect(diagnostic.location.candidateRange == 6..<17)
    #expect(diagnostic.location.expectedRange == 6..<7)
    #expect(diagnostic.id == MessageID(domain: "BlockSignature", id: "typeMismatch"))
    let fixIt = try #require(diagnostic.fixIts.first)
    #expect(fixIt.replacement == "@")
    #expect(fixIt.range == 6..<17)
    #expect(fixIt.message == "replace @\"NSString\" with @")
  }

  /// The byte ranges of an argument after a nested block signature and after a GNU bitfield
  /// (whose bit offset and type are part of its encoding): where the type sits in the input.
  @Test func rangesAfterNestedSignaturesAndBitfields() throws {
    for (candidate, expected) in [
      ("v24@?0@?<v@?>8i16", "v24@?0@?<v@?>8q16"), ("v20@?0{S=b0i3}8i16", "v20@?0{S=b0i3}8f16"),
    ] {
      let report = try CompatibilityChecker(level: .identical).check(candidate, against: expected)
      let diagnostic = try #require(report.diagnostics.first)
      let start = Array(candidate.utf8).lastIndex(of: UInt8(ascii: "i"))!
      #expect(diagnostic.location.candidateRange == start..<start + 1, "\(candidate)")
      #expect(diagnostic.location.expectedRange == start..<start + 1, "\(expected)")
    }
  }

  /// The byte ranges of an argument after numbers with one more digit than the one before
  /// (9 → 10, 99 → 100): each range is where the type sits in the input.
  @Test func rangesAfterNumbersOfEveryLength() throws {
    for count in [9, 10, 99, 100, 999, 1000] {
      let candidate = "v20@?0[\(count)i]8I16"
      let expected = "v20@?0[\(count)i]8i16"
      let report = try CompatibilityChecker(level: .identical).check(candidate, against: expected)
      let diagnostic = try #require(report.diagnostics.first)
      let start = Array(candidate.utf8).firstIndex(of: UInt8(ascii: "I"))!
      #expect(diagnostic.location.candidateRange == start..<start + 1, "\(candidate)")
      #expect(diagnostic.location.expectedRange == start..<start + 1, "\(expected)")
      #expect(diagnostic.fixIts.first?.range == start..<start + 1, "\(candidate)")
    }
  }

  /// The notes and fix-its say which argument of which form meets which, and name the
  /// function form (`.types`) as a function.
  @Test func notesAndFixItsNameTheForms() throws {
    func first(_ level: CompatibilityLevel, _ candidate: String, _ expected: String) throws -> Diagnostic {
      try #require(try CompatibilityChecker(level: level).check(candidate, against: expected).diagnostics.first)
    }
    #expect(
      try first(.blocksKit, "v@:ii", "v@?").notes.map(\.message) == [
        "blockskit takes the longer signature (candidate, 4 arguments) as the method"
      ])
    #expect(
      try first(.aspects, "v@?@i", "v@?d").notes.map(\.message) == [
        "candidate argument 2 is argument 1 of the expected block"
      ])
    #expect(
      try first(.identical, "v16@?0I8", "v4i0").notes.map(\.message) == [
        "candidate argument 1 is argument 0 of the expected function"
      ])
    #expect(
      try first(.equivalent, "v4i0", "v16@?0i8i12").fixIts.map(\.message) == [
        "use the expected signature in function form: v8i0i4"
      ])
  }

  @Test func blockAgainstMethodMapsArguments() throws {
    let report = try CompatibilityChecker(level: .abi).check("v20@?0i8q12", against: "v24@0:8i16i20")
    let diagnostic = try #require(report.diagnostics.first)
    #expect(diagnostic.message == "argument 2: size 8 does not match size 4 (q vs i)")
    #expect(diagnostic.location.expectedRange == 10..<11)
    #expect(diagnostic.notes.map(\.message) == ["candidate argument 2 is argument 3 of the expected method"])
    #expect(diagnostic.fixIts.first?.replacement == "i")
  }

  @Test func countMismatchOffersTheWholeSignature() throws {
    let report = try CompatibilityChecker(level: .equivalent).check("v16@?0i8", against: "v24@0:8i16i20")
    let diagnostic = try #require(report.diagnostics.first)
    #expect(diagnostic.location.position == .signature)
    #expect(diagnostic.fixIts.first?.replacement == "v16@?0i8i12")
  }

  @Test func malformedInputThrowsWithItsOffset() throws {
    let error = try #require(throws: SignatureError.self) {
      try CompatibilityChecker().check("v16@?0i8", against: "v16@?0[4i8")
    }
    #expect(error.kind == .malformedEncoding)
    #expect(error.encodingError?.offset == 9)  // the `8` inside `[4i8`
  }

  @Test func everyLevelHasADistinctCLIName() {
    #expect(
      CompatibilityLevel.allCases.map(\.rawValue) == [
        "identical", "equivalent", "abi", "blockskit", "aspects",
      ])
  }
}

/// Swift function types mapped to encodings, against what `swiftc` writes for them (live
/// closures of those types: SwiftClosureSignatureTests, in the Runtime's tests).
@Suite struct SwiftFunctionTypeTests {
  /// Swift closures as a block's parameters and result are passed as blocks: the signatures
  /// `swiftc -emit-ir` writes for such blocks (closures of them cannot be linked on Linux: the
  /// bridging calls the Objective-C runtime) are the ones the types give.
  @Test func closuresAsParametersAndResultsAreBlocks() throws {
    let types = [
      ("(((Int32) -> Int32)?) -> Void", "{ _ in }"), ("(@escaping (Double) -> Void) -> Int8", "{ _ in 0 }"),
      ("() -> ((Int16) -> Int16)?", "{ nil }"), ("(((((Float) -> Float)?) -> Void)?) -> Void", "{ _ in }"),
      ("((@convention(block) (UInt8) -> UInt8)?, Int) -> UInt16", "{ _, _ in 0 }"),
    ]
    var source = "@inline(never) func keep(_ value: Any) { print(value) }\n"
    for (index, (type, body)) in types.enumerated() {
      source += "let b\(index): @convention(block) \(type) = \(body)\nkeep(b\(index))\n"
    }
    let folder = try Toolchain.temporaryDirectory("blocksig-closures")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("main.swift")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let compiled = try Toolchain.run(Toolchain.tool("swiftc"), ["-emit-ir", "-o", "-", file.path])
    #expect(compiled.status == 0, "\(compiled.stderr)")
    // The signature strings in the IR: `c"v16@?0@?<i@?i>8\00"`.
    let emitted = Set(
      compiled.stdout.components(separatedBy: "c\"").dropFirst().compactMap { piece -> String? in
        guard let end = piece.range(of: "\\00\"") else { return nil }
        let string = String(piece[..<end.lowerBound])
        return string.contains("@?0") ? string : nil
      })
    let ours = Set(try types.map { try SwiftFunctionType(parsing: $0.0).blockEncoding.description })
    // The IR also holds the signatures of the closures' own thunks (`s12@?0s8`).
    #expect(ours.isSubset(of: emitted), "\(ours.subtracting(emitted)) not in \(emitted)")
    #expect(ours.count == types.count)
  }

  @Test func classObjects() throws {
    // A closure taking AnyClass needs the Objective-C runtime to exist; `swiftc -emit-ir` of one
    // shows `#` on Linux too.
    #expect(
      try SwiftFunctionType(parsing: "(AnyClass?) -> AnyObject").blockEncoding.description == "@16@?0#8")
  }

  @Test func modelDependentTypes() throws {
    #expect(
      try SwiftFunctionType(parsing: "(Int, CLong, CChar) -> Void", model: .i386Linux).blockEncoding
        .description == "v16@?0i4l8c12")
    #expect(
      try SwiftFunctionType(parsing: "(CLong, CChar) -> Void", model: .aarch64Linux).blockEncoding.description
        == "v20@?0q8C16")
    // Implicitly unwrapped optionals are optionals; unsigned short is `S`; `inout` is a
    // mutable pointer (what swiftc encodes for an UnsafeMutablePointer<Int32> parameter).
    #expect(
      try SwiftFunctionType(parsing: "(UnsafeRawPointer!) -> AnyObject!").blockEncoding.description == "@16@?0^v8")
    #expect(
      try SwiftFunctionType(parsing: "(CUnsignedShort, UInt16) -> Void").blockEncoding.description == "v16@?0S8S12")
    #expect(try SwiftFunctionType(parsing: "(inout Int32) -> Void").blockEncoding.description == "v16@?0^i8")
    #expect(try SwiftFunctionType(parsing: "(CChar16) -> CChar16").blockEncoding.description == "S12@?0S8")
    // A pointer to Void has no C spelling: the error points at its pointee (the `<`).
    for (text, offset) in [("(Int32, UnsafeMutablePointer<Void>) -> Void", 28), ("(UnsafePointer<Void>) -> Void", 14)] {
      let error = try #require(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: text) }
      #expect(error.offset == offset, "\(text)")
    }
    // `Int` is as wide as a pointer (`CLong` is 4 bytes on Windows, `Int` is not).
    #expect(
      try SwiftFunctionType(parsing: "(Int, CLong) -> Int", model: .windowsX64).blockEncoding.description
        == "q20@?0q8l16")
  }

  @Test(
    arguments: zip(
      [
        "(String) -> Void", "(Int32?) -> Void", "(Int32, Int32)", "(Int32) throws -> Void",
        "(UnsafePointer<(Int32) -> Void>) -> Void", "(Void) -> Void", "(Int32) -> Int32 x",
        "(UnsafePointer<((Int32) -> Void)>) -> Void",
      ],
      [
        ("type String has no C encoding", 1), ("an optional i has no C encoding", 1),
        ("expected a function type '(…) -> …'", 0),
        ("a throwing function has no C representation", 8),
        ("a Swift closure has no C encoding; use @convention(block) or @convention(c)", 15),
        ("a parameter cannot be Void", 1), ("unexpected text after the function type", 17),
        // A closure inside another type is not a block (only a block's parameters and result are).
        ("a Swift closure has no C encoding; use @convention(block) or @convention(c)", 16),
      ]))
  func unrepresentableTypes(_ text: String, _ expected: (String, Int)) throws {
    let error = try #require(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: text) }
    #expect(error.message == expected.0)
    #expect(error.offset == expected.1)
  }

  @Test func deepNestingIsAnError() throws {
    let text =
      "(" + String(repeating: "UnsafePointer<", count: 200) + "Int32" + String(repeating: ">", count: 200)
      + ") -> Void"
    let error = try #require(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: text) }
    #expect(error.kind == .nestingTooDeep)
  }

  /// A parenthesized type was parsed twice at every level (as a parameter list, then again as
  /// the type in parentheses): `((…(Int32)…)) -> Void` cost 2^depth (20 levels: 3.3 s). Now the
  /// first parse is kept; at depth 60 a regression does not finish. Beyond the nesting limit it
  /// is a typed error, and the parentheses still mean what they meant.
  @Test func nestedParenthesesAreParsedOnce() throws {
    for depth in [1, 2, 60] {
      let text =
        "(" + String(repeating: "(", count: depth) + "Int32" + String(repeating: ")", count: depth) + ") -> Void"
      #expect(try SwiftFunctionType(parsing: text).blockEncoding.description == "v12@?0i8", "\(depth)")
      let spaced =
        "( " + String(repeating: "( ", count: depth) + "Int32 " + String(repeating: ") ", count: depth)
        + ", Double) -> Void"
      #expect(try SwiftFunctionType(parsing: spaced).blockEncoding.description == "v20@?0i8d12", "\(depth)")
    }
    // A label or `inout` inside the parentheses is not a parenthesized type (read again from the
    // label, as before), nor is a list.
    for (text, message, offset) in [
      ("((x: Int32)) -> Void", "type x has no C encoding", 2),
      ("((inout Int32)) -> Void", "type inout has no C encoding", 2),
      ("((Int32, Int32)) -> Void", "a tuple has no C encoding", 1),
    ] {
      let error = try #require(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: text) }
      #expect(error.message == message, "\(text)")
      #expect(error.offset == offset, "\(text)")
    }
    let deep =
      "(" + String(repeating: "(", count: 100_000) + "Int32" + String(repeating: ")", count: 100_000) + ") -> Void"
    let error = try #require(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: deep) }
    #expect(error.kind == .nestingTooDeep)
  }

  /// `_Complex` classified both halves at every level: nested around a type without bytes or
  /// leaves (`jjj…jv`, `jjj…j[0d]`) that is 2^depth calls (FuzzCompatibility found a 13 s input
  /// at depth 30). At depth 64 a regression does not finish.
  @Test func nestedTypesWithoutBytesAreClassifiedOnce() throws {
    // And arrays inside a structure (a parameter array is a pointer): `[4[4…[0d]]]` walked every
    // element, 4^depth calls in AAPCS64's floating-point leaf count.
    let arrays = "{S=" + String(repeating: "[4", count: 32) + "[0d]" + String(repeating: "]", count: 32) + "}"
    for type in ["v", "[0d]", "{S=}", "[0{S=}]"].map({ String(repeating: "j", count: 64) + $0 }) + [arrays] {
      let nested = "v16@?0" + type + "8"
      // Against another type without bytes, so that the levels that compare register classes do.
      let empty = "v16@?0{E=}8"
      for model in DataModel.allBuiltIn {
        for level in CompatibilityLevel.allCases {
          let report = try CompatibilityChecker(level: level, model: model).check(nested, against: empty)
          #expect(report.level == level, "\(nested) on \(model.name)")
        }
      }
    }
  }

  /// The halves of a `_Complex` still count twice as floating-point leaves: on AArch64 clang passes
  /// `struct { _Complex float a, b; }` as `[4 x float]`, like four floats, and two longs as
  /// `[2 x i64]` (clang -target aarch64-linux-gnu -S -emit-llvm).
  @Test func complexHalvesCountAsTwoFloatingPointLeaves() throws {
    let model = try #require(DataModel(named: "aarch64-linux"))
    let checker = CompatibilityChecker(level: .abi, model: model)
    #expect(try checker.check("v24@?0{C2=jfjf}8", against: "v24@?0{F4=ffff}8").isCompatible)
    #expect(try !checker.check("v24@?0{C2=jfjf}8", against: "v24@?0{Q2=qq}8").isCompatible)
    #expect(try checker.check("v16@?0jf8", against: "v16@?0{F2=ff}8").isCompatible)
    #expect(try !checker.check("v16@?0jf8", against: "v16@?0q8").isCompatible)
  }

  /// Array elements count as often as there are elements: `struct { double a[2][2]; }` is
  /// `[4 x double]` like four doubles; four longs and `float[5]` go by reference (clang
  /// -target aarch64-linux-gnu -S -emit-llvm).
  @Test func arrayElementsCountAsFloatingPointLeaves() throws {
    let model = try #require(DataModel(named: "aarch64-linux"))
    let checker = CompatibilityChecker(level: .abi, model: model)
    #expect(try checker.check("v40@?0{A22=[2[2d]]}8", against: "v40@?0{D4=dddd}8").isCompatible)
    #expect(try !checker.check("v40@?0{A22=[2[2d]]}8", against: "v40@?0{Q4=qqqq}8").isCompatible)
    // Five leaves are not a homogeneous aggregate, counted whole or per element.
    #expect(try checker.check("v28@?0{F5=[5f]}8", against: "v28@?0{F5=fffff}8").isCompatible)
  }
}
