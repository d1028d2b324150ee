// How a value is passed or returned on a data model: the abi level compares these.
// Computed without allocating (the layout engine's measuring walk, no field arrays).

/// A System V x86_64 eightbyte class.
package enum RegisterClass: UInt8, Hashable, Sendable {
  case none, integer, sse, x87, memory

  package var name: String {
    switch self {
    case .none: "none"
    case .integer: "integer"
    case .sse: "sse"
    case .x87: "x87"
    case .memory: "memory"
    }
  }

  /// The System V merge rule for two classes sharing an eightbyte: MEMORY stays MEMORY, INTEGER
  /// wins over the rest, X87 (or X87UP) with SSE is MEMORY. It is not associative, so the
  /// order counts as in clang and GCC: a union's members one after another, each classified
  /// whole before it is merged (`(?=Df[4i])` is memory, `(?=D[4i]f)` INTEGER, INTEGER).
  func merged(with other: RegisterClass) -> RegisterClass {
    if self == other || other == .none { return self }
    if self == .none { return other }
    if self == .memory || other == .memory { return .memory }
    if self == .integer || other == .integer { return .integer }
    if self == .x87 || other == .x87 { return .memory }
    return .sse
  }
}

/// How a value travels between caller and callee.
package enum ParameterPassing: Hashable, Sendable {
  /// `void`.
  case void
  /// System V: the classes of the (at most two) eightbytes.
  case eightbytes(RegisterClass, RegisterClass)
  /// Through memory (on the stack, or through a hidden pointer for a return value).
  case memory
  /// In floating-point registers: `count` values of `size` bytes (AAPCS64 homogeneous
  /// aggregates; scalar floats elsewhere).
  case floatingPoint(size: Int, count: Int)
  /// In `count` general-purpose registers (or stack words).
  case integer(count: Int)
  /// AAPCS64 arguments: in two general-purpose registers but aligned to 16 (`__int128`, clang's
  /// `i128`), which AArch64 Linux starts at an even-numbered register and both AArch64 targets
  /// put in a 16-byte-aligned stack slot, unlike two registers aligned to 8 (`[2 x i64]`).
  case alignedIntegerPair
  /// Whole in one vector register (Windows x64: a 16-byte integer returned in XMM0).
  case vector(size: Int)
  /// The encoding does not say (unencodable, `?`, unexpanded structure).
  case unknown

  package var name: String {
    switch self {
    case .void: "void"
    case .eightbytes(let a, .none): a.name
    case .eightbytes(let a, let b): "\(a.name), \(b.name)"
    case .memory: "memory"
    case .floatingPoint(let size, 1): "floating point (\(size) bytes)"
    case .floatingPoint(let size, let count): "floating point (\(count) × \(size) bytes)"
    case .integer(1): "integer"
    case .integer(let count): "integer (\(count) registers)"
    case .alignedIntegerPair: "integer (2 registers aligned to 16)"
    case .vector(let size): "vector (\(size) bytes)"
    case .unknown: "unknown"
    }
  }
}

/// The calling-convention family of a data model: Apple's arm64 is an AAPCS64.
enum ConventionFamily {
  case systemV, aapcs64, windowsX64, i386

  init(_ model: DataModel) {
    switch model.callingConvention {
    case .systemV: self = .systemV
    case .aapcs64, .appleARM64: self = .aapcs64
    case .windowsX64: self = .windowsX64
    case .i386: self = .i386
    }
  }
}

/// What a scalar is, for the abi level's warnings.
enum ScalarKind: Hashable {
  case signedInteger, unsignedInteger, bool, pointer, floatingPoint, other
}

/// Size, alignment and passing of one type on one model.
package struct ABIShape: Hashable {
  package var size: Int
  package var alignment: Int
  /// ``ParameterPassing/unknown`` when the encoding leaves the layout an estimate.
  package var passing: ParameterPassing
  /// Whether ``size`` is certain: the encoding's, or an argument's slot in the frame.
  package var isSizeKnown: Bool
}

extension TypeEncoding {
  /// The scalar kind, qualifiers (and an `_Atomic` around a scalar) removed.
  var scalarKind: ScalarKind {
    switch unqualified {
    case .primitive(let code):
      switch code {
      case .char, .short, .int, .long, .longLong, .int128: .signedInteger
      case .unsignedChar, .unsignedShort, .unsignedInt, .unsignedLong, .unsignedLongLong, .unsignedInt128:
        .unsignedInteger
      case .bool: .bool
      case .cString, .class, .selector, .atom: .pointer
      case .float, .double, .longDouble, .otherFloat: .floatingPoint
      default: .other
      }
    case .object, .block, .pointer, .array: .pointer
    // An `_Atomic` scalar is passed as the scalar: `Ai` against `I` differs in signedness.
    case .atomic(let inner) where inner.unqualified.isScalar: inner.scalarKind
    default: .other
    }
  }

  /// How the type is passed on `model`; `asParameter` makes an array a pointer.
  ///
  /// Where the encoding leaves the layout an estimate the passing is ``ParameterPassing/unknown``:
  /// fields not encoded or no size (`{S}`, `?`), NeXT bitfields (`b5` may be a `char`, `int` or
  /// `long long` unit: `{?=b1}` is 1 byte for a `_Bool : 1`, not 4), a space where the target
  /// has `__float128` (`_Float16` or `__bf16`, 2 bytes, or `__float128`, 16, on x86-64 System V
  /// and i386). An argument's `writtenSlot`, the bytes its offsets give it, is clang's own size
  /// for it: it settles a space or a record with spaces when it agrees with the 2 bytes assumed,
  /// and shows a hidden layout (packed, over-aligned) when an aggregate's differs; the size is
  /// then known, the passing not (`{P=ci}` in 5 bytes is packed, its `int` unaligned).
  /// `assumingHalfPrecision` reads every space as the 2-byte `_Float16`, one of its readings.
  package func abiShape(
    for model: DataModel, asParameter: Bool, writtenSlot: Int? = nil, assumingHalfPrecision: Bool = false
  ) -> ABIShape {
    var type = unqualified
    if asParameter, case .array = type { type = .pointer(.primitive(.void)) }
    // An `_Atomic` scalar is passed and returned as the scalar on every target (clang: `float`
    // and `double` in floating-point registers, `x86_fp80`); an atomic aggregate keeps rules of
    // its own (``systemVPassing(size:model:asParameter:)``, ``windowsPassing(size:asParameter:)``).
    if case .atomic(let inner) = type, inner.unqualified.isScalar { type = inner.unqualified }
    var engine = LayoutEngine(model: model)
    guard let (size, alignment) = try? engine.measure(type) else {
      return ABIShape(size: 0, alignment: 1, passing: .unknown, isSizeKnown: false)
    }
    if case .primitive(.void) = type {
      return ABIShape(size: 0, alignment: 1, passing: .void, isSizeKnown: true)
    }
    let unknown = !engine.caveats.isDisjoint(with: [.unknownSize, .fieldsNotEncoded])
    let convention = ConventionFamily(model)
    var caveats = engine.caveats
    // clang has no `__float128` for AArch64 or Windows x64: a space there is a 2-byte
    // `_Float16` or `__bf16`, passed alike (`[2 x half]` for both in a structure on AArch64).
    if convention == .aapcs64 || convention == .windowsX64 || assumingHalfPrecision {
      caveats.remove(.ambiguousFloatingPoint)
    }
    var estimate = !caveats.isDisjoint(with: Self.estimatedLayouts)
    var isSizeKnown = !estimate
    // The frame shows the size of a type whose encoding may hide it: an aggregate (packing,
    // alignment, bitfield units, fields not written) or a type with a space. (An integer's slot is
    // rounded up to an `int`, an array's is a pointer's.)
    let shape = TypeShape(type)
    if asParameter, let slot = writtenSlot, shape == .aggregate || shape == .otherFloat || !caveats.isEmpty {
      // Where a record's size alone decides, its slot settles what its encoding leaves open:
      // i386 copies it to a 4-aligned stack slot (clang: `byval … align 4` for a packed or
      // over-aligned record too), Windows x64 passes one of 1, 2, 4 or 8 bytes in a register
      // (not an `_Atomic` one: clang passes its members one by one).
      if shape == .aggregate, !type.isAtomic {
        if convention == .i386 { return ABIShape(size: slot, alignment: 4, passing: .memory, isSizeKnown: true) }
        if convention == .windowsX64, [1, 2, 4, 8].contains(slot) {
          return ABIShape(size: slot, alignment: alignment, passing: .integer(count: 1), isSizeKnown: true)
        }
      }
      // An `_Atomic` structure (`A{AR3}`: clang writes no fields) of at most 16 bytes is
      // promoted to a power of two and aligned to it, so its slot gives its alignment: x86_64
      // System V passes it as a stack copy (`byval … align 8`, 16 for 16 bytes), AArch64 as an
      // integer (`i64`, or `i128` in an aligned register pair), whatever its fields.
      if case .atomic(let inner) = type, inner.unqualified.isAggregate, slot <= model.maximumAtomicPromotion,
        slot > 0, slot & (slot - 1) == 0
      {
        switch convention {
        case .systemV:
          return ABIShape(size: slot, alignment: max(slot, 8), passing: .memory, isSizeKnown: true)
        case .aapcs64:
          let passing: ParameterPassing = slot == 16 ? .alignedIntegerPair : .integer(count: 1)
          return ABIShape(size: slot, alignment: slot, passing: passing, isSizeKnown: true)
        default: break
        }
      }
      // A lone space in a 16-byte slot on x86_64 System V is a `__float128` (clang: `fp128`),
      // class SSE, SSEUP: one XMM register, or 16 stack bytes aligned to 16.
      if convention == .systemV, shape == .otherFloat, slot == 16 {
        return ABIShape(size: 16, alignment: 16, passing: .eightbytes(.sse, .none), isSizeKnown: true)
      }
      if unknown || slot != size {
        return ABIShape(size: slot, alignment: alignment, passing: .unknown, isSizeKnown: true)
      }
      // A space whose size the frame confirms is a 2-byte `_Float16` or `__bf16`, both in
      // floating-point registers; bitfield units stay unknown, but not the size.
      let open = caveats.subtracting(.ambiguousFloatingPoint).intersection(Self.estimatedLayouts)
      estimate = !open.isEmpty
      isSizeKnown = true
      // A record whose only open question is a NeXT bitfield's unit (`char` to `long long`, so
      // aligned to at most 8), of the size the frame confirms: on x86_64 System V one of more
      // than 16 bytes is a stack copy aligned to 8 (16 if a member is), whatever the units, and
      // one of integers alone is INTEGER in each eightbyte; on AArch64 it is never a homogeneous
      // aggregate, so its size decides (general-purpose registers, or a pointer to a copy, whose
      // alignment is certain from 8 up).
      if open == .bitfieldUnitAssumed, shape == .aggregate {
        switch convention {
        case .systemV where size > 16:
          return ABIShape(size: size, alignment: max(alignment, 8), passing: .memory, isSizeKnown: true)
        // Where every leaf is an integer or a pointer, every eightbyte is INTEGER wherever the
        // units fall (none is padding alone: that takes a zero-length array aligned to 16).
        case .systemV where hasOnlyIntegerLeaves:
          return ABIShape(
            size: size, alignment: max(alignment, 8), passing: .eightbytes(.integer, size > 8 ? .integer : .none),
            isSizeKnown: true)
        // (A zero-width bitfield, `b0`, is no member: `{?=Db0}` is a homogeneous aggregate.)
        case .aapcs64 where hasBitfieldWithBits && (size <= 16 || alignment >= 8):
          let passing = type.aapcs64Passing(size: size, alignment: alignment, model: model, asParameter: true)
          return ABIShape(size: size, alignment: alignment, passing: passing, isSizeKnown: true)
        default: break
        }
      }
    }
    if unknown || estimate {
      return ABIShape(size: size, alignment: alignment, passing: .unknown, isSizeKnown: isSizeKnown && !unknown)
    }
    let passing: ParameterPassing
    // The alignment of a copy in memory: the type's (a hidden pointer's buffer, the caller's
    // copy behind a pointer), or that of the stack slot an argument is copied to.
    var memoryAlignment = alignment
    switch convention {
    case .systemV:
      passing = type.systemVPassing(size: size, model: model, asParameter: asParameter)
      // clang: `byval … align 8` for a structure of 24 `char`s as for one of three `long long`s.
      if asParameter { memoryAlignment = max(alignment, 8) }
    case .aapcs64:
      passing = type.aapcs64Passing(size: size, alignment: alignment, model: model, asParameter: asParameter)
    case .windowsX64: passing = type.windowsPassing(size: size, asParameter: asParameter)
    case .i386:
      passing = type.i386Passing(size: size, asParameter: asParameter)
      // clang: `byval … align 4` for every record, scalars in 4-byte slots.
      if asParameter { memoryAlignment = 4 }
    }
    return ABIShape(size: size, alignment: memoryAlignment, passing: passing, isSizeKnown: true)
  }

  /// The caveats under which a layout, and so how the type is passed, is a guess.
  private static let estimatedLayouts: LayoutCaveats = [
    .bitfieldUnitAssumed, .ambiguousFloatingPoint, .microsoftBitfields, .unsupportedOnTarget,
  ]

  /// A primitive other than `void`, or a pointer: what an `_Atomic` at the top level leaves as it is.
  package var isScalar: Bool {
    switch self {
    case .primitive(let code): code != .void
    case .object, .block, .pointer: true
    default: false
    }
  }

  /// Whether every leaf is an integer, a pointer or a bitfield, in records with fields and
  /// arrays with elements (no `_Atomic`, `_Complex` or floating point): what System V classes
  /// INTEGER throughout.
  var hasOnlyIntegerLeaves: Bool {
    switch self {
    case .primitive, .object, .block, .pointer: scalarKind != .floatingPoint && scalarKind != .other
    case .bitfield: true
    case .structure(_, let fields?), .union(_, let fields?):
      !fields.isEmpty && fields.allSatisfy { $0.type.hasOnlyIntegerLeaves }
    case .array(let count, let element): count > 0 && element.hasOnlyIntegerLeaves
    case .qualified(_, let inner): inner.hasOnlyIntegerLeaves
    default: false
    }
  }

  /// Whether a bitfield of at least one bit is somewhere inside (not in a zero-length array):
  /// an integer member, so no homogeneous floating-point aggregate.
  var hasBitfieldWithBits: Bool {
    switch self {
    case .bitfield(let bitfield): bitfield.width > 0
    case .structure(_, let fields?), .union(_, let fields?): fields.contains { $0.type.hasBitfieldWithBits }
    case .array(let count, let element): count > 0 && element.hasBitfieldWithBits
    case .qualified(_, let inner), .atomic(let inner): inner.hasBitfieldWithBits
    default: false
    }
  }

  /// A structure, union, array or `_Complex`, an `_Atomic` one included (for a type whose
  /// qualifiers are removed).
  var isAggregate: Bool {
    switch self {
    case .structure, .union, .array, .complex: true
    case .atomic(let inner): inner.unqualified.isAggregate
    default: false
    }
  }

  // MARK: System V x86_64

  /// System V classes. An argument of class X87 goes in memory, `long double` too (clang:
  /// `x86_fp80` parameters live on the stack, `struct { long double x; }` is `byval`); a return
  /// value of class X87 comes back on the x87 stack, for a `long double` and for an aggregate
  /// that holds one `long double` alone, members without bytes aside (clang returns both as
  /// `x86_fp80`); a union that mixes one with anything else is memory, unless an INTEGER member
  /// covers both its halves before any SSE one joins it (`(?=D[4i]f)` is INTEGER, INTEGER: the
  /// merge goes in order).
  private func systemVPassing(size: Int, model: DataModel, asParameter: Bool) -> ParameterPassing {
    if case .primitive(.longDouble) = self { return asParameter ? .memory : .eightbytes(.x87, .x87) }
    // A `_Complex long double` (class COMPLEX_X87) is returned in ST0 and ST1 (clang:
    // `{ x86_fp80, x86_fp80 }`), a structure holding one through a hidden pointer; both are
    // arguments in memory. Its 32 bytes tell it from a `long double`'s x87 pair.
    if !asParameter, case .complex(let inner) = self, case .primitive(.longDouble) = inner.unqualified {
      return .eightbytes(.x87, .x87)
    }
    guard size <= 16 else { return .memory }
    var classes: (RegisterClass, RegisterClass) = (.none, .none)
    var engine = LayoutEngine(model: model)
    guard classifySystemV(at: 0, into: &classes, engine: &engine), classes.0 != .memory, classes.1 != .memory
    else { return .memory }
    if classes.0 == .x87 || classes.1 == .x87 {
      // X87 and X87UP (this engine's x87 in both halves) is a `long double` at offset 0 and
      // nothing else with bytes: returned on the x87 stack (`union { long double x; int z[0]; }`
      // too). Anything else with an x87 class is memory.
      if !asParameter, size == 16, classes == (.x87, .x87) { return .eightbytes(.x87, .x87) }
      return .memory
    }
    return .eightbytes(classes.0, classes.1)
  }

  /// Adds this type's leaves at byte `offset` to the eightbyte classes; false means memory.
  private func classifySystemV(
    at offset: Int, into classes: inout (RegisterClass, RegisterClass), engine: inout LayoutEngine
  ) -> Bool {
    func add(_ registerClass: RegisterClass, from start: Int, size: Int) {
      let end = start + max(size, 1) - 1
      for eightbyte in (start / 8)...(end / 8) {
        if eightbyte == 0 { classes.0 = classes.0.merged(with: registerClass) }
        if eightbyte == 1 { classes.1 = classes.1.merged(with: registerClass) }
      }
    }
    let type = unqualified
    guard let (size, alignment) = try? engine.measure(type) else { return false }
    if size > 0, offset % alignment != 0 { return false }  // unaligned field: memory
    switch type {
    case .primitive(let code):
      switch code {
      case .float, .double, .otherFloat: add(.sse, from: offset, size: size)
      case .longDouble: add(.x87, from: offset, size: size)
      case .void: break
      default: add(.integer, from: offset, size: size)
      }
    case .object, .block, .pointer, .bitfield:
      add(.integer, from: offset, size: size)
    case .array(let count, let element):
      guard let (elementSize, _) = try? engine.measure(element) else { return false }
      guard elementSize > 0 else { return true }
      var position = offset
      for _ in 0..<min(count, 16) {
        guard element.classifySystemV(at: position, into: &classes, engine: &engine) else { return false }
        position += elementSize
      }
    case .complex(let inner):
      guard let (elementSize, _) = try? engine.measure(inner) else { return false }
      // Both halves at one offset add the same classes twice: once is enough, and nested
      // zero-sized `_Complex` (`jjj…jv`) costs one call per level, not 2^depth.
      if elementSize == 0 { return inner.classifySystemV(at: offset, into: &classes, engine: &engine) }
      guard inner.classifySystemV(at: offset, into: &classes, engine: &engine),
        inner.classifySystemV(at: offset + elementSize, into: &classes, engine: &engine)
      else { return false }
    case .atomic:
      // clang gives no class to an `_Atomic` type: a record holding one, and an atomic
      // `_Complex` or record at the top level, are MEMORY (`byval`, `sret`); an atomic scalar at
      // the top level was passed as the scalar before classification.
      return false
    case .structure(_, let fields?), .union(_, let fields?):
      // Each member is classified whole and merged into the record's own classes, in order, and
      // those into the enclosing ones only then, as clang and GCC do: the merge is not
      // associative (X87 with SSE is MEMORY, X87 with INTEGER is INTEGER).
      let isUnion = if case .union = type { true } else { false }
      var own: (RegisterClass, RegisterClass) = (.none, .none)
      var position = offset
      for field in fields {
        var member: (RegisterClass, RegisterClass) = (.none, .none)
        if case .bitfield = field.type.unqualified {
          member.0 = position < 8 ? .integer : .none
          member.1 = position >= 8 ? .integer : .none
        } else {
          guard let (fieldSize, fieldAlignment) = try? engine.measure(field.type),
            let start = isUnion ? offset : roundUp(position, to: fieldAlignment)
          else { return false }
          guard field.type.classifySystemV(at: start, into: &member, engine: &engine) else { return false }
          if !isUnion { position = start + fieldSize }
        }
        own = (own.0.merged(with: member.0), own.1.merged(with: member.1))
        if own.0 == .memory || own.1 == .memory { return false }
      }
      // The post-merge cleanup of every record, a member one too: the upper half of a
      // `long double` (X87UP) without its lower half is MEMORY
      // (`union { union { long double x; int i; } u; int c[4]; }`).
      if own.1 == .x87, own.0 != .x87 { return false }
      classes = (classes.0.merged(with: own.0), classes.1.merged(with: own.1))
    default:
      return false
    }
    return true
  }

  // MARK: AAPCS64

  /// Homogeneous floating-point aggregates of up to four members (structures, arrays, `_Complex`
  /// and unions whose members all are, with one base, leaving out empty records; an array of no
  /// elements makes a record not homogeneous) in SIMD registers, other values of up to
  /// 16 bytes in general-purpose registers, larger records through a pointer to the caller's
  /// copy. An argument of 16 bytes aligned to 16 (`__int128`,
  /// `struct { __int128 t; }`) is an ``ParameterPassing/alignedIntegerPair``, not two registers
  /// like `struct { long long a, b; }` (clang: `i128` against `[2 x i64]`); as a return value
  /// both come back in X0 and X1.
  private func aapcs64Passing(size: Int, alignment: Int, model: DataModel, asParameter: Bool) -> ParameterPassing {
    var base = 0
    var count = 0
    var engine = LayoutEngine(model: model)
    // A homogeneous aggregate has no padding: an empty member's alignment may add some
    // (`{?=f{?=[0d]}}` is 8 bytes, an integer).
    if collectFloatingLeaves(base: &base, count: &count, engine: &engine), count >= 1, count <= 4,
      base * count == size
    {
      // clang returns a homogeneous aggregate as its LLVM type, which for a union with an empty
      // member aligned above its floating-point ones is that member and bytes: each byte comes
      // back in a general-purpose register (`union { float f[2]; struct { long long z[0]; } e; }`
      // in W0–W7), which this level does not model.
      if !asParameter, hasUnionStoredAsBytes(base: base, engine: &engine) { return .unknown }
      return .floatingPoint(size: base, count: count)
    }
    if isAggregate || scalarKind == .floatingPoint, size > 16 { return .memory }
    if asParameter, size == 16, alignment == 16 { return .alignedIntegerPair }
    return .integer(count: max(1, (size + 7) / 8))
  }

  /// Whether every leaf is a floating-point value of one size (a homogeneous aggregate).
  private func collectFloatingLeaves(base: inout Int, count: inout Int, engine: inout LayoutEngine) -> Bool {
    let type = unqualified
    switch type {
    case .primitive(.float), .primitive(.double), .primitive(.longDouble), .primitive(.otherFloat):
      guard let (size, _) = try? engine.measure(type) else { return false }
      if base != 0 && base != size { return false }
      base = size
      count += 1
      return count <= 4
    case .complex(let inner):
      // The imaginary half has the real half's leaves: collect them once and count them twice
      // (walking both cost 2^depth calls on nested `_Complex` without leaves, `jjj…j[0d]`).
      let before = count
      guard inner.collectFloatingLeaves(base: &base, count: &count, engine: &engine) else { return false }
      count += count - before
      return count <= 4
    case .array(let elements, let element):
      // An array of no elements is not homogeneous (clang).
      guard elements <= 4, elements > 0 else { return false }
      // Every element has the first one's leaves: collect them once and count them `elements`
      // times (walking each element cost 4^depth calls on nested arrays without leaves).
      let before = count
      guard element.collectFloatingLeaves(base: &base, count: &count, engine: &engine) else { return false }
      count += (count - before) * Int(elements - 1)
      return count <= 4
    case .structure(_, let fields?):
      for field in fields {
        switch field.type.homogeneousMember {
        case .zeroLength: return false
        case .empty: continue
        case .other:
          guard field.type.collectFloatingLeaves(base: &base, count: &count, engine: &engine) else {
            return false
          }
        }
      }
      return count > 0
    case .union(_, let fields?):
      // A union is homogeneous when every member is, with one base: its members overlap, so it
      // counts as many leaves as its largest member (clang: `union { float a; float b[2]; }` is
      // `[2 x float]`).
      let before = count
      var widest = 0
      for field in fields {
        switch field.type.homogeneousMember {
        case .zeroLength: return false
        case .empty: continue
        case .other:
          var fieldCount = 0
          guard field.type.collectFloatingLeaves(base: &base, count: &fieldCount, engine: &engine) else {
            return false
          }
          widest = max(widest, fieldCount)
        }
      }
      count = before + widest
      return widest > 0 && count <= 4
    default:
      return false
    }
  }

  /// Whether a union in this homogeneous aggregate has an empty member aligned above the
  /// aggregate's floating-point base (whose alignment is its size): clang's LLVM type for the
  /// union is then the empty member and bytes.
  private func hasUnionStoredAsBytes(base: Int, engine: inout LayoutEngine) -> Bool {
    switch unqualified {
    case .structure(_, let fields?):
      return fields.contains { $0.type.hasUnionStoredAsBytes(base: base, engine: &engine) }
    case .union(_, let fields?):
      return fields.contains { field in
        if field.type.homogeneousMember == .empty {
          guard let (_, alignment) = try? engine.measure(field.type) else { return false }
          return alignment > base
        }
        return field.type.hasUnionStoredAsBytes(base: base, engine: &engine)
      }
    case .array(_, let element):
      return element.hasUnionStoredAsBytes(base: base, engine: &engine)
    default:
      return false
    }
  }

  /// How a member of a record counts towards a homogeneous aggregate, as clang has it: an array
  /// of no elements at any depth makes the record not homogeneous (`{?=f[0f]}` is an integer),
  /// an empty record in arrays of any length is left out (`{?={?=[0i]}ff}` is `[2 x float]`).
  private enum HomogeneousMember { case zeroLength, empty, other }

  private var homogeneousMember: HomogeneousMember {
    var type = unqualified
    while case .array(let count, let element) = type {
      if count == 0 { return .zeroLength }
      type = element.unqualified
    }
    return type.isEmptyRecord ? .empty : .other
  }

  /// A structure or union whose every field is empty: an array of no elements, or an empty
  /// record in arrays of any length (`{?=}`, `{?=[0i]}`, `{?=[2{?=[0c]}]}`).
  private var isEmptyRecord: Bool {
    switch self {
    case .structure(_, let fields?), .union(_, let fields?):
      return fields.allSatisfy { field in
        var type = field.type.unqualified
        while case .array(let count, let element) = type {
          if count == 0 { return true }
          type = element.unqualified
        }
        return type.isEmptyRecord
      }
    default:
      return false
    }
  }

  // MARK: Windows x64 and i386

  /// Windows x64: scalars of up to 8 bytes and records of 1, 2, 4 or 8 in a register, anything
  /// else by reference; a 16-byte integer return value (`__int128`, which clang allows) comes
  /// back in XMM0 (`<2 x i64>`), where a 16-byte structure is returned through a hidden pointer;
  /// an atomic `_Complex` goes as its two halves, each in an XMM register.
  private func windowsPassing(size: Int, asParameter: Bool) -> ParameterPassing {
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

  /// i386 (cdecl): every argument on the stack at the next 4-byte-aligned offset, so arguments
  /// differ only in size (clang: `byval … align 4` copies, and scalars and the fields of records
  /// it expands in 4-byte slots). Return values: a `_Complex` of 2, 4 or 8 bytes in EAX or
  /// EDX:EAX like an integer (clang: `i16`, `i32`, `i64`), every other aggregate through a hidden
  /// pointer, floating point on the x87 stack, integers and pointers in EAX (EDX:EAX).
  private func i386Passing(size: Int, asParameter: Bool) -> ParameterPassing {
    if asParameter { return .memory }
    if case .complex = self, size == 2 || size == 4 || size == 8 { return .integer(count: (size + 3) / 4) }
    if isAggregate { return .memory }
    if scalarKind == .floatingPoint { return .floatingPoint(size: size, count: 1) }
    return .integer(count: max(1, (size + 3) / 4))
  }
}
