import BlockSignature
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

extension CompatibilityTests {
  /// The table: one row per check, with every diagnostic it must give.
  static let cases = valueCases + placementAndLibraryCases

  /// Rows for the identical and equivalent levels, and the abi level's rules for one value.
  static let valueCases: [CompatibilityCase] = [
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
  ]
}
