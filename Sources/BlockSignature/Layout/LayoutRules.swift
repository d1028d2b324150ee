// The one set of layout rules. Both layout paths call these functions: the tree-based engine
// (`LayoutEngine`, behind `TypeEncoding.layout(for:)` and `SignatureEncoding.layout(for:)`) and
// the single-pass byte scanner behind `SignatureFrame`. A rule changed here changes both, and the
// differential tests against clang cover both.

/// The facts of a ``DataModel`` the rules read, without its name: trivially copyable, so the
/// engines carry it around without reference counting.
struct LayoutRules {
  var pointerSize: Int
  var longDoubleSize: Int
  var longDoubleAlignment: Int
  var eightByteAlignment: Int
  var hasInt128: Bool
  var maximumAtomicPromotion: Int
  var usesMicrosoftBitfields: Bool
  var zeroWidthBitfieldRaisesAlignment: Bool

  @inline(__always)
  init(_ model: DataModel) {
    pointerSize = model.pointerSize
    longDoubleSize = model.longDoubleSize
    longDoubleAlignment = model.longDoubleAlignment
    eightByteAlignment = model.eightByteAlignment
    hasInt128 = model.hasInt128
    maximumAtomicPromotion = model.maximumAtomicPromotion
    usesMicrosoftBitfields = model.usesMicrosoftBitfields
    zeroWidthBitfieldRaisesAlignment = model.zeroWidthBitfieldRaisesAlignment
  }

  /// Size and alignment of a one-byte primitive code.
  @inline(__always)
  func primitive(_ code: TypeCode) -> (size: Int, alignment: Int) {
    switch code {
    case .char, .unsignedChar, .bool: (1, 1)
    case .short, .unsignedShort: (2, 2)
    case .int, .unsignedInt, .long, .unsignedLong, .float: (4, 4)
    case .longLong, .unsignedLongLong, .double: (8, eightByteAlignment)
    case .longDouble: (longDoubleSize, longDoubleAlignment)
    case .int128, .unsignedInt128: (16, 16)
    case .otherFloat: (2, 2)
    case .void: (0, 1)
    case .cString, .class, .selector, .atom: (pointerSize, pointerSize)
    case .unknown: (0, 1)
    }
  }

  /// The caveats a primitive code brings.
  @inline(__always)
  func caveats(of code: TypeCode) -> LayoutCaveats {
    switch code {
    case .otherFloat: .ambiguousFloatingPoint
    case .unknown: .unknownSize
    case .int128, .unsignedInt128: hasInt128 ? LayoutCaveats() : .unsupportedOnTarget
    default: LayoutCaveats()
    }
  }

  /// The storage unit of a bitfield: its declared type, or `int` (`long long` above 32 bits).
  @inline(__always)
  func bitfieldUnit(declaredType: TypeCode?, width: UInt64) -> (size: Int, alignment: Int) {
    if let declaredType { return primitive(declaredType) }
    return width > 32 ? (8, eightByteAlignment) : (4, 4)
  }

  /// `[count T]`: the element's size times the count; `nil` on overflow.
  @inline(__always)
  func array(count: UInt64, element: (size: Int, alignment: Int)) -> (size: Int, alignment: Int)? {
    guard count <= UInt64(Int.max) else { return nil }
    let (total, overflowed) = element.size.multipliedReportingOverflow(by: Int(count))
    return overflowed ? nil : (total, element.alignment)
  }

  /// `jT`: twice the element; `nil` on overflow.
  @inline(__always)
  func complex(_ inner: (size: Int, alignment: Int)) -> (size: Int, alignment: Int)? {
    let (total, overflowed) = inner.size.multipliedReportingOverflow(by: 2)
    return overflowed ? nil : (total, inner.alignment)
  }

  /// `AT`: promoted to a power of two up to clang's `MaxAtomicPromoteWidth`.
  @inline(__always)
  func atomic(_ inner: (size: Int, alignment: Int)) -> (size: Int, alignment: Int) {
    if inner.size == 0 { return (1, inner.alignment) }
    if inner.size <= maximumAtomicPromotion {
      var promoted = 1
      while promoted < inner.size { promoted <<= 1 }
      return (promoted, promoted)
    }
    return inner
  }

  /// The bytes clang reserves for a parameter: arrays decay to pointers, integral types are
  /// promoted to `int`, anything else takes its size.
  @inline(__always)
  func parameterSlot(size: Int, shape: TypeShape) -> Int {
    switch shape {
    case .array: pointerSize
    case .integral where size > 0: max(size, 4)
    default: size
    }
  }
}

/// What the signature-level rules need to know about a type's outermost node (qualifiers
/// stripped).
enum TypeShape: UInt8 {
  case other
  /// `[N T]`: passed as a pointer.
  case array
  /// An integral primitive: promoted to `int`.
  case integral
  /// `' '`: 2 or 16 bytes, decided by the offsets.
  case otherFloat
  /// A structure, union or `_Atomic` type: its size may hide packing.
  case aggregate
  /// An empty parameter encoding.
  case unencodable
  /// A bitfield (placed by ``AggregateLayout`` inside an aggregate).
  case bitfield

  init(_ type: borrowing TypeEncoding) {
    // A switch on the borrowed `type` itself: `unqualified` would copy the value (a retain and
    // a release) for every argument laid out.
    switch type {
    case .qualified(_, let inner): self.init(inner)
    case .array: self = .array
    case .primitive(let code) where code.isIntegral: self = .integral
    case .primitive(.otherFloat): self = .otherFloat
    case .structure, .union, .atomic: self = .aggregate
    case .unencodable: self = .unencodable
    case .bitfield: self = .bitfield
    default: self = .other
    }
  }
}

/// Places the fields of one structure or union in order (Itanium/System V natural layout, or
/// the Microsoft bitfield rules), one field at a time.
///
/// It holds no copy of the rules (the bitfield method takes them), so that the single-pass
/// scanner can keep one per open aggregate on a small stack.
/// Every method returns `nil` (or `false`) when a size, offset or bit count overflows `Int`.
struct AggregateLayout {
  let isUnion: Bool
  /// Caveats met while placing the fields.
  private(set) var caveats = LayoutCaveats()
  private(set) var alignment = 1
  private var bitEnd = 0
  /// Microsoft layout: the unit a run of bitfields is being packed into (no unit when its
  /// `openUnitBits` is 0: a unit is at least 8 bits).
  private var openUnitStart = 0
  private var openUnitBits = 0

  @inline(__always)
  init(isUnion: Bool) {
    self.isUnion = isUnion
  }

  /// Places a bitfield; returns its bit offset.
  mutating func addBitfield(_ bitfield: TypeEncoding.Bitfield, rules: LayoutRules) -> Int? {
    addBitfield(bitOffset: bitfield.bitOffset, declaredType: bitfield.declaredType, width: bitfield.width, rules: rules)
  }

  /// Places a bitfield from its parts; returns its bit offset.
  mutating func addBitfield(
    bitOffset: UInt64?, declaredType: TypeCode?, width rawWidth: UInt64, rules: LayoutRules
  ) -> Int? {
    guard rawWidth <= UInt64(Int.max / 2), (bitOffset ?? 0) <= UInt64(Int.max / 2) else { return nil }
    let width = Int(rawWidth)
    let unit = rules.bitfieldUnit(declaredType: declaredType, width: rawWidth)
    let unitBits = unit.size * 8
    if bitOffset == nil {
      caveats.insert(.bitfieldUnitAssumed)
    } else if rules.usesMicrosoftBitfields {
      caveats.insert(.microsoftBitfields)
    }
    if rules.usesMicrosoftBitfields, width == 0, isUnion || (bitOffset == nil && openUnitBits == 0) {
      // Microsoft: a zero-width bitfield in a union, or one that does not follow a bitfield
      // (`{?=cb0c}` is 2 bytes on x86_64-windows), is ignored. (With written offsets, one that
      // follows a bitfield has its place written.)
      return isUnion ? 0 : bitOffset.map { Int($0) } ?? bitEnd
    }
    var start: Int
    if let offset = bitOffset {
      start = Int(offset)
    } else {
      start = isUnion ? 0 : bitEnd
      if rules.usesMicrosoftBitfields && !isUnion {
        if openUnitBits != 0, openUnitBits == unitBits, width > 0, bitEnd + width <= openUnitStart + openUnitBits {
          start = bitEnd
        } else {
          let base = openUnitBits != 0 ? openUnitStart + openUnitBits : bitEnd
          // The open unit's end is added later unchecked: a unit that would end past Int.max
          // is a size overflow now.
          guard let rounded = roundUp(max(base, bitEnd), to: unit.alignment * 8),
            !rounded.addingReportingOverflow(unitBits).overflow
          else { return nil }
          start = rounded
          openUnitStart = rounded
          openUnitBits = width == 0 ? 0 : unitBits
        }
      } else if width == 0 || (unitBits > 0 && start % (unit.alignment * 8) + width > unitBits) {
        // Clang's test (Itanium): the bits before the field within its type's alignment, plus
        // its width, must fit in the type's size — on i386 `long long` is 8 bytes aligned to 4,
        // so a `long long : 48` at bit 48 stays there (16 + 48 ≤ 64).
        guard let rounded = roundUp(start, to: unit.alignment * 8) else { return nil }
        start = rounded
      }
    }
    // A zero-width bitfield leaves the alignment alone but where the target says otherwise
    // (AAPCS64 on Linux); Microsoft layout ignores a bitfield's alignment in a union.
    if width > 0 || rules.zeroWidthBitfieldRaisesAlignment, !(isUnion && rules.usesMicrosoftBitfields) {
      alignment = max(alignment, unit.alignment)
    }
    var (end, overflowed) = start.addingReportingOverflow(width)
    if rules.usesMicrosoftBitfields, isUnion, !overflowed { end = max(end, unitBits) }
    if overflowed { return nil }
    bitEnd = max(bitEnd, end)
    return start
  }

  /// Places a field that is not a bitfield; returns its bit offset.
  @inline(__always)
  mutating func addField(size: Int, alignment fieldAlignment: Int) -> Int? {
    if openUnitBits != 0 {
      bitEnd = max(bitEnd, openUnitStart + openUnitBits)
      openUnitBits = 0
    }
    guard let byteStart = isUnion ? 0 : roundUp(bytes(ofBits: bitEnd), to: fieldAlignment) else { return nil }
    alignment = max(alignment, fieldAlignment)
    let (end, o1) = byteStart.addingReportingOverflow(size)
    let (endBits, o2) = end.multipliedReportingOverflow(by: 8)
    if o1 || o2 { return nil }
    bitEnd = max(bitEnd, endBits)
    return byteStart * 8
  }

  /// The size (rounded up to the alignment) and alignment once every field is placed.
  ///
  /// Microsoft layout (`usesMicrosoftBitfields`) gives a structure or union whose fields take
  /// no bytes 4 of them, whatever its alignment: clang lays out `struct { }` as 4 bytes aligned
  /// to 1 and `struct { long long a[0]; }` as 4 bytes aligned to 8 for x86_64-windows in C.
  @inline(__always)
  func finish(rules: LayoutRules) -> (size: Int, alignment: Int)? {
    var end = bitEnd
    if openUnitBits != 0 { end = max(end, openUnitStart + openUnitBits) }
    guard let size = roundUp(bytes(ofBits: end), to: alignment) else { return nil }
    if size == 0, rules.usesMicrosoftBitfields { return (4, alignment) }
    return (size, alignment)
  }
}

/// The signature-level rule that reconciles one argument's computed slot with the offsets
/// written around it (clang's own answer).
enum ArgumentOffsets {
  /// What the written offsets revealed about an argument.
  enum Finding {
    case none
    /// The encoding has no size (unencodable, `?`, `' '`, `{S}`); the slot comes from the offsets.
    case sizeFromOffsets(observed: Int)
    /// An aggregate occupies more or fewer bytes than its encoding gives (packing, alignment).
    case hiddenLayout(observed: Int)
  }

  /// Adjusts `slot`, `size`, `alignment` and `caveats` from the written offsets of the argument
  /// and the next one (or the frame), and says what was found.
  @inline(__always)
  static func reconcile(
    slot: inout Int, size: inout Int, alignment: inout Int, caveats: inout LayoutCaveats, shape: TypeShape,
    written: Int?, nextWritten: Int?
  ) -> Finding {
    guard let written, let nextWritten, nextWritten >= written else { return .none }
    // Signed offsets can be as far apart as 2 × Int.max: a gap that does not fit is no slot.
    let (observed, overflowed) = nextWritten.subtractingReportingOverflow(written)
    if overflowed { return .none }
    if observed == slot {
      if shape == .otherFloat, observed == 16 {
        size = 16
        alignment = 16
      }
      return .none
    }
    // An aggregate whose slot is smaller than the encoding gives it, even with its unknown parts
    // at their smallest (a space as 2 bytes, `{S}` as none), is packed: a hidden layout, as for
    // one whose encoding says everything (`{P=d c}` packed in 11 bytes, not 16).
    let isPacked = shape == .aggregate && observed < size
    if !isPacked, !caveats.isDisjoint(with: [.unknownSize, .ambiguousFloatingPoint, .fieldsNotEncoded]) {
      slot = observed
      if shape == .otherFloat, observed == 2 || observed == 16 {
        size = observed
        alignment = observed
      } else if size == 0 {
        size = observed
      } else if observed > size && (observed > 4 || shape == .aggregate) {
        // clang's slot is the size, or 4 bytes for an integer smaller than an `int` (which
        // `?` or an unencodable parameter may be): past 4, or for a structure, union or
        // `_Atomic` type, which are never promoted, it is the size itself, where the encoding
        // knew only part of it (`{T=i{S}}` in 12 bytes, `A{AR3}` in 4), with an alignment that
        // divides it.
        alignment = hiddenAlignment(size: observed, encodedSize: size, encodedAlignment: alignment)
        size = observed
      }
      return .sizeFromOffsets(observed: observed)
    }
    if shape == .aggregate {
      // The frame is clang's own answer: use it, and say the alignment is a guess.
      slot = observed
      alignment = hiddenAlignment(size: observed, encodedSize: size, encodedAlignment: alignment)
      size = observed
      caveats.insert(.layoutHidden)
      return .hiddenLayout(observed: observed)
    }
    return .none
  }

  /// The alignment of an aggregate the frame shows to take `size` bytes where its encoding
  /// gives `encodedSize` bytes aligned to `encodedAlignment`: one C allows (a size is a multiple
  /// of the alignment), so at most the largest power of two dividing `size`. A smaller size
  /// (packing: `{Packed=ci}` in 5 bytes) keeps no more than the encoded alignment, which
  /// packing only lowers (1 for 5 bytes); a larger one (over-alignment: `{Aligned=c}` in 32
  /// bytes, a `long long` bitfield where `int` was assumed: `{Z4=cb5}` in 8) takes that largest
  /// power of two, the most the frame allows (32; 8). 0 bytes keep the encoded alignment.
  @inline(__always)
  static func hiddenAlignment(size: Int, encodedSize: Int, encodedAlignment: Int) -> Int {
    guard size > 0 else { return encodedAlignment }
    let largest = size & (0 &- size)
    return size < encodedSize ? min(encodedAlignment, largest) : largest
  }

  /// The offset the written offsets imply for argument `index`: 0 for the first, the previous
  /// written offset plus its slot, or the computed offset when the previous one is not written.
  @inline(__always)
  static func expectedOffset(index: Int, previousWritten: Int?, previousSlot: Int, computed: Int) -> Int {
    if index == 0 { return 0 }
    if let previousWritten { return previousWritten &+ previousSlot }
    return computed
  }

  /// The frame length the written offsets imply: the last written offset plus its slot, or the
  /// computed frame when the last offset is not written.
  @inline(__always)
  static func expectedFrameLength(lastWritten: Int?, lastSlot: Int, computed: Int) -> Int {
    if let lastWritten { return lastWritten &+ lastSlot }
    return computed
  }
}
