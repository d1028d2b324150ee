// What an argument's slot in the frame settles that its encoding leaves open: the size of a
// record whose encoding may hide packing, alignment or bitfield units, a space's width, an
// `_Atomic` record's promotion. (An integer's slot is rounded up to an `int`, an array's is a
// pointer's, so the slot tells nothing about those.)

extension ABIMeasurement {
  /// Whether the frame's slot can tell more than the encoding: an aggregate (packing,
  /// alignment, bitfield units, fields not written), a space, or a type with caveats.
  var isOpenToWrittenSlot: Bool {
    let shape = TypeShape(type)
    return shape == .aggregate || shape == .otherFloat || !caveats.isEmpty
  }

  /// The shape of an argument whose offsets give it `slot` bytes.
  func parameterShape(writtenSlot slot: Int) -> ABIShape {
    if let shape = recordShape(decidedBySize: slot) ?? atomicRecordShape(slot: slot) ?? float128Shape(slot: slot) {
      return shape
    }
    if isUnknown || slot != size {
      return ABIShape(size: slot, alignment: alignment, passing: .unknown, isSizeKnown: true)
    }
    // A space whose size the frame confirms is a 2-byte `_Float16` or `__bf16`, both in
    // floating-point registers; bitfield units stay unknown, but not the size.
    let open = caveats.subtracting(.ambiguousFloatingPoint).intersection(Self.estimatedLayouts)
    if open == .bitfieldUnitAssumed, TypeShape(type) == .aggregate, let shape = bitfieldRecordShape() {
      return shape
    }
    return shape(isEstimate: !open.isEmpty, isSizeKnown: true, asParameter: true)
  }

  /// Where a record's size alone decides, its slot settles what its encoding leaves open:
  /// i386 copies it to a 4-aligned stack slot (clang: `byval … align 4` for a packed or
  /// over-aligned record too), Windows x64 passes one of 1, 2, 4 or 8 bytes in a register
  /// (not an `_Atomic` one: clang passes its members one by one).
  private func recordShape(decidedBySize slot: Int) -> ABIShape? {
    guard TypeShape(type) == .aggregate, !type.isAtomic else { return nil }
    if convention == .i386 { return ABIShape(size: slot, alignment: 4, passing: .memory, isSizeKnown: true) }
    if convention == .windowsX64, [1, 2, 4, 8].contains(slot) {
      return ABIShape(size: slot, alignment: alignment, passing: .integer(count: 1), isSizeKnown: true)
    }
    return nil
  }

  /// An `_Atomic` structure (`A{AR3}`: clang writes no fields) of at most 16 bytes is
  /// promoted to a power of two and aligned to it, so its slot gives its alignment: x86_64
  /// System V passes it as a stack copy (`byval … align 8`, 16 for 16 bytes), AArch64 as an
  /// integer (`i64`, or `i128` in an aligned register pair), whatever its fields.
  private func atomicRecordShape(slot: Int) -> ABIShape? {
    guard case .atomic(let inner) = type, inner.unqualified.isAggregate, slot <= model.maximumAtomicPromotion,
      slot > 0, slot & (slot - 1) == 0
    else { return nil }
    switch convention {
    case .systemV:
      return ABIShape(size: slot, alignment: max(slot, 8), passing: .memory, isSizeKnown: true)
    case .aapcs64:
      let passing: ParameterPassing = slot == 16 ? .alignedIntegerPair : .integer(count: 1)
      return ABIShape(size: slot, alignment: slot, passing: passing, isSizeKnown: true)
    default: return nil
    }
  }

  /// A lone space in a 16-byte slot on x86_64 System V is a `__float128` (clang: `fp128`),
  /// class SSE, SSEUP: one XMM register, or 16 stack bytes aligned to 16.
  private func float128Shape(slot: Int) -> ABIShape? {
    guard convention == .systemV, TypeShape(type) == .otherFloat, slot == 16 else { return nil }
    return ABIShape(size: 16, alignment: 16, passing: .eightbytes(.sse, .none), isSizeKnown: true)
  }

  /// A record whose only open question is a NeXT bitfield's unit (`char` to `long long`, so
  /// aligned to at most 8), of the size the frame confirms: on x86_64 System V one of more
  /// than 16 bytes is a stack copy aligned to 8 (16 if a member is), whatever the units, and
  /// one of integers alone is INTEGER in each eightbyte; on AArch64 it is never a homogeneous
  /// aggregate, so its size decides (general-purpose registers, or a pointer to a copy, whose
  /// alignment is certain from 8 up).
  private func bitfieldRecordShape() -> ABIShape? {
    switch convention {
    case .systemV where size > 16:
      return ABIShape(size: size, alignment: max(alignment, 8), passing: .memory, isSizeKnown: true)
    // Where every leaf is an integer or a pointer, every eightbyte is INTEGER wherever the
    // units fall (none is padding alone: that takes a zero-length array aligned to 16).
    case .systemV where encoding.hasOnlyIntegerLeaves:
      return ABIShape(
        size: size, alignment: max(alignment, 8), passing: .eightbytes(.integer, size > 8 ? .integer : .none),
        isSizeKnown: true)
    // (A zero-width bitfield, `b0`, is no member: `{?=Db0}` is a homogeneous aggregate.)
    case .aapcs64 where encoding.hasBitfieldWithBits && (size <= 16 || alignment >= 8):
      let passing = type.aapcs64Passing(size: size, alignment: alignment, model: model, asParameter: true)
      return ABIShape(size: size, alignment: alignment, passing: passing, isSizeKnown: true)
    default: return nil
    }
  }
}
