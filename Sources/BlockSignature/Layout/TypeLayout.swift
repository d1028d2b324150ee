/// The size, alignment and field offsets of one type on one data model.
///
///     let layout = try TypeEncoding(parsing: "{P=dic}").layout(for: .x86_64SysV)
///     layout.size        // 16
///     layout.alignment   // 8
///     layout.offsets     // [0, 8, 12]
///     layout.isExact     // true
///
/// When the encoding cannot decide the layout (a NeXT bitfield does not say which unit it sits
/// in; `{S}` does not list its fields; a single space may be a 2- or 16-byte float) the layout
/// holds the engine's estimate and ``caveats`` says why it is one. Packed and over-aligned
/// structures leave no trace in an encoding at all: the engine always assumes natural
/// alignment; a signature's own offsets reveal the difference (see ``SignatureLayout``).
public struct TypeLayout: Hashable, Sendable {
  /// `sizeof`, in bytes.
  public var size: Int
  /// `_Alignof`, in bytes.
  public var alignment: Int
  /// Byte offsets of the fields of a structure or union (for a bitfield, the byte holding its
  /// first bit); empty for other types.
  public var offsets: [Int]
  /// Bit offsets of the fields, in the same order as ``offsets``.
  public var bitOffsets: [Int]
  /// Why the result is an estimate; empty when it is exact.
  public var caveats: LayoutCaveats

  /// Creates a layout.
  public init(size: Int, alignment: Int, offsets: [Int] = [], bitOffsets: [Int] = [], caveats: LayoutCaveats = []) {
    self.size = size
    self.alignment = alignment
    self.offsets = offsets
    self.bitOffsets = bitOffsets
    self.caveats = caveats
  }

  /// Whether the encoding fully determines the layout (natural alignment assumed).
  public var isExact: Bool { caveats.isEmpty }
}

/// The reasons a layout is an estimate.
///
///     if layout.caveats.contains(.bitfieldUnitAssumed) { … }
public struct LayoutCaveats: OptionSet, Hashable, Sendable, CustomStringConvertible {
  /// The raw bits.
  public var rawValue: UInt32
  /// Creates a set from raw bits.
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// A NeXT bitfield `b<w>` does not record its declared type; `int` units were assumed
  /// (`long long` for widths above 32).
  public static let bitfieldUnitAssumed = LayoutCaveats(rawValue: 1 << 0)
  /// A structure or union written without fields (`{S}`); its size is unknown (0 is reported).
  public static let fieldsNotEncoded = LayoutCaveats(rawValue: 1 << 1)
  /// `?`, an unencodable parameter or another type without a size (0 is reported).
  public static let unknownSize = LayoutCaveats(rawValue: 1 << 2)
  /// A single space: `_Float16` or `__bf16` (2 bytes, assumed) or `__float128` (16).
  public static let ambiguousFloatingPoint = LayoutCaveats(rawValue: 1 << 3)
  /// A type the target does not have (`__int128` on i386); the LP64 layout was used.
  public static let unsupportedOnTarget = LayoutCaveats(rawValue: 1 << 4)
  /// A GNU-form bitfield under Microsoft layout rules, which this engine only approximates.
  public static let microsoftBitfields = LayoutCaveats(rawValue: 1 << 5)

  /// A signature's offsets show a size the encoding does not explain (packed, over-aligned or
  /// unencodable fields); the size comes from the frame and the alignment is a guess.
  public static let layoutHidden = LayoutCaveats(rawValue: 1 << 6)

  /// One phrase per caveat, in declaration order.
  public var messages: [String] {
    var result: [String] = []
    if contains(.bitfieldUnitAssumed) {
      result.append("bitfield units assumed to be int: NeXT bitfields do not record their declared type")
    }
    if contains(.fieldsNotEncoded) { result.append("structure fields are not encoded; size unknown") }
    if contains(.unknownSize) { result.append("type has no known size") }
    if contains(.ambiguousFloatingPoint) {
      result.append("' ' may be _Float16, __bf16 (2 bytes, assumed) or __float128 (16 bytes)")
    }
    if contains(.unsupportedOnTarget) { result.append("type does not exist on this target") }
    if contains(.microsoftBitfields) { result.append("Microsoft bitfield layout is an estimate") }
    if contains(.layoutHidden) {
      result.append("size taken from the frame; packing or alignment is not encoded, alignment is a guess")
    }
    return result
  }

  /// The messages joined with "; ".
  public var description: String { messages.joined(separator: "; ") }
}

/// A layout that cannot be represented, such as an array whose size overflows.
///
///     try TypeEncoding(parsing: "[99999999999999999999q]")  // parses
///       .layout(for: .x86_64SysV)                         // throws .sizeOverflow
public struct LayoutError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public var kind: Kind
  /// The encoding of the type whose layout failed.
  public var encoding: String

  /// Creates an error.
  public init(kind: Kind, encoding: String) {
    self.kind = kind
    self.encoding = encoding
  }

  /// "size overflow in [99999999999999999999q]".
  public var description: String { "\(kind.rawValue == "sizeOverflow" ? "size overflow" : kind.rawValue) in \(encoding)" }

  /// The kind of a ``LayoutError``.
  public struct Kind: RawRepresentable, Hashable, Sendable {
    /// The identifier.
    public var rawValue: String
    /// Creates a kind.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A size, offset or bit count does not fit in `Int`.
    public static var sizeOverflow: Kind { Kind(rawValue: "sizeOverflow") }
  }
}

extension TypeEncoding {
  /// The size, alignment and field offsets of the type on `model`.
  ///
  ///     try TypeEncoding(parsing: "[3D]").layout(for: .i386Linux).size  // 36
  ///
  /// - Throws: ``LayoutError`` when a size overflows.
  /// - Complexity: O(*n*) in the number of nodes.
  public func layout(for model: DataModel = .x86_64SysV) throws(LayoutError) -> TypeLayout {
    var engine = LayoutEngine(model: model)
    switch unqualified {
    case .structure(_, let fields?), .union(_, let fields?):
      var offsets: [Int] = []
      var bitOffsets: [Int] = []
      offsets.reserveCapacity(fields.count)
      bitOffsets.reserveCapacity(fields.count)
      let isUnion = if case .union = unqualified { true } else { false }
      let (size, alignment) = try engine.aggregate(
        fields, isUnion: isUnion, of: self, recordOffset: { offsets.append($0 / 8); bitOffsets.append($0) })
      return TypeLayout(
        size: size, alignment: alignment, offsets: offsets, bitOffsets: bitOffsets, caveats: engine.caveats)
    default:
      let (size, alignment) = try engine.measure(self)
      return TypeLayout(size: size, alignment: alignment, caveats: engine.caveats)
    }
  }
}

extension TypeEncoding {
  /// Whether the type certainly occupies no bytes on every data model (`{S=[0s]}`, `[0i]`,
  /// `{E=}`), as opposed to a type whose size is unknown (`{S}`, `?`).
  var hasKnownZeroSize: Bool {
    var engine = LayoutEngine(model: .x86_64SysV)
    guard let (size, _) = try? engine.measure(self) else { return false }
    return size == 0 && engine.caveats.isDisjoint(with: [.unknownSize, .fieldsNotEncoded])
  }
}

/// The recursive size/alignment computation (Itanium/System V natural layout).
struct LayoutEngine {
  let model: DataModel
  var caveats: LayoutCaveats = []

  init(model: DataModel) { self.model = model }

  func overflow(_ type: TypeEncoding) -> LayoutError {
    LayoutError(kind: .sizeOverflow, encoding: type.description)
  }

  func primitive(_ code: TypeCode) -> (size: Int, alignment: Int) {
    switch code {
    case .char, .unsignedChar, .bool: (1, 1)
    case .short, .unsignedShort: (2, 2)
    case .int, .unsignedInt, .long, .unsignedLong, .float: (4, 4)
    case .longLong, .unsignedLongLong, .double: (8, model.eightByteAlignment)
    case .longDouble: (model.longDoubleSize, model.longDoubleAlignment)
    case .int128, .unsignedInt128: (16, 16)
    case .otherFloat: (2, 2)
    case .void: (0, 1)
    case .cString, .class, .selector, .atom: (model.pointerSize, model.pointerSize)
    case .unknown: (0, 1)
    }
  }

  mutating func measure(_ type: TypeEncoding) throws(LayoutError) -> (size: Int, alignment: Int) {
    switch type {
    case .primitive(let code):
      switch code {
      case .otherFloat: caveats.insert(.ambiguousFloatingPoint)
      case .unknown: caveats.insert(.unknownSize)
      case .int128, .unsignedInt128:
        if !model.hasInt128 { caveats.insert(.unsupportedOnTarget) }
      default: break
      }
      return primitive(code)
    case .object, .block, .pointer:
      return (model.pointerSize, model.pointerSize)
    case .array(let count, let element):
      let (size, alignment) = try measure(element)
      guard count <= UInt64(Int.max) else { throw overflow(type) }
      let (total, overflowed) = size.multipliedReportingOverflow(by: Int(count))
      if overflowed { throw overflow(type) }
      return (total, alignment)
    case .structure(_, let fields), .union(_, let fields):
      guard let fields else {
        caveats.insert(.fieldsNotEncoded)
        return (0, 1)
      }
      let isUnion = if case .union = type { true } else { false }
      return try aggregate(fields, isUnion: isUnion, of: type, recordOffset: { _ in })
    case .bitfield(let bitfield):
      if bitfield.declaredType == nil { caveats.insert(.bitfieldUnitAssumed) }
      let unit = bitfieldUnit(bitfield)
      return (unit.size, unit.alignment)
    case .complex(let inner):
      let (size, alignment) = try measure(inner)
      let (total, overflowed) = size.multipliedReportingOverflow(by: 2)
      if overflowed { throw overflow(type) }
      return (total, alignment)
    case .atomic(let inner):
      let (size, alignment) = try measure(inner)
      if size == 0 { return (1, alignment) }
      if size <= model.maximumAtomicPromotion {
        var promoted = 1
        while promoted < size { promoted <<= 1 }
        return (promoted, promoted)
      }
      return (size, alignment)
    case .qualified(_, let inner):
      return try measure(inner)
    case .unencodable:
      caveats.insert(.unknownSize)
      return (0, 1)
    }
  }

  /// The storage unit of a bitfield: its declared type, or `int` (`long long` above 32 bits).
  func bitfieldUnit(_ bitfield: TypeEncoding.Bitfield) -> (size: Int, alignment: Int) {
    if let declared = bitfield.declaredType { return primitive(declared) }
    return bitfield.width > 32 ? (8, model.eightByteAlignment) : (4, 4)
  }

  /// Lays out fields in order (or all at 0 for a union); reports each field's bit offset.
  mutating func aggregate(
    _ fields: [TypeEncoding.Field], isUnion: Bool, of type: TypeEncoding, recordOffset: (Int) -> Void
  ) throws(LayoutError) -> (size: Int, alignment: Int) {
    var bitEnd = 0  // first free bit
    var alignment = 1
    // Microsoft rules: the open bitfield unit (start bit, size in bits), closed by any
    // non-bitfield member or by a bitfield of another unit size or one that does not fit.
    var openUnit: (start: Int, bits: Int)? = nil
    for field in fields {
      if case .bitfield(let bitfield) = field.type.unqualified {
        guard bitfield.width <= UInt64(Int.max / 2), (bitfield.bitOffset ?? 0) <= UInt64(Int.max / 2) else {
          throw overflow(type)
        }
        let width = Int(bitfield.width)
        let unit = bitfieldUnit(bitfield)
        let unitBits = unit.size * 8
        var start: Int
        if let offset = bitfield.bitOffset {
          if model.usesMicrosoftBitfields { caveats.insert(.microsoftBitfields) }
          start = Int(offset)
        } else {
          caveats.insert(.bitfieldUnitAssumed)
          start = isUnion ? 0 : bitEnd
          if model.usesMicrosoftBitfields && !isUnion {
            if let open = openUnit, open.bits == unitBits, width > 0, bitEnd + width <= open.start + open.bits {
              start = bitEnd
            } else {
              let base = openUnit.map { $0.start + $0.bits } ?? bitEnd
              guard let rounded = roundUp(max(base, bitEnd), to: unit.alignment * 8) else { throw overflow(type) }
              start = rounded
              openUnit = width == 0 ? nil : (rounded, unitBits)
            }
          } else if width == 0 || (unitBits > 0 && start % unitBits + width > unitBits) {
            guard let rounded = roundUp(start, to: unit.alignment * 8) else { throw overflow(type) }
            start = rounded
          }
        }
        recordOffset(start)
        if width > 0 { alignment = max(alignment, unit.alignment) }
        var (end, overflowed) = start.addingReportingOverflow(width)
        if model.usesMicrosoftBitfields, isUnion, !overflowed { end = max(end, unitBits) }
        if overflowed { throw overflow(type) }
        bitEnd = max(bitEnd, end)
        continue
      }
      if let open = openUnit {
        bitEnd = max(bitEnd, open.start + open.bits)
        openUnit = nil
      }
      let (size, fieldAlignment) = try measure(field.type)
      guard let byteStart = isUnion ? 0 : roundUp(bytes(ofBits: bitEnd), to: fieldAlignment) else {
        throw overflow(type)
      }
      recordOffset(byteStart * 8)
      alignment = max(alignment, fieldAlignment)
      let (end, o1) = byteStart.addingReportingOverflow(size)
      let (endBits, o2) = end.multipliedReportingOverflow(by: 8)
      if o1 || o2 { throw overflow(type) }
      bitEnd = max(bitEnd, endBits)
    }
    if let open = openUnit { bitEnd = max(bitEnd, open.start + open.bits) }
    guard let size = roundUp(bytes(ofBits: bitEnd), to: alignment) else { throw overflow(type) }
    return (size, alignment)
  }
}

/// `value` rounded up to a multiple of `alignment`, or `nil` on overflow.
@inline(__always)
func roundUp(_ value: Int, to alignment: Int) -> Int? {
  guard alignment > 1 else { return value }
  let (sum, overflowed) = value.addingReportingOverflow(alignment - 1)
  if overflowed { return nil }
  return sum - sum % alignment
}

@inline(__always)
func bytes(ofBits bits: Int) -> Int { bits / 8 + (bits % 8 == 0 ? 0 : 1) }
