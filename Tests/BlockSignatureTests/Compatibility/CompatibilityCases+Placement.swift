import BlockSignature

extension CompatibilityTests {
  /// Rows for the abi level's argument places, and for the blockskit and aspects levels.
  static let placementAndLibraryCases: [CompatibilityCase] = [
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
}
