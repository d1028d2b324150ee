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
  /// unencodable fields); the size comes from the frame and the alignment is a guess, but one C
  /// allows: the largest power of two dividing the size, no more than the encoding's when the
  /// size is smaller (`{Packed=ci}` in 5 bytes: 5/1; `{Aligned=c}` in 32 bytes: 32/32).
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
///     try TypeEncoding(parsing: "[9999999999999999999q]")  // parses
///       .layout(for: .x86_64SysV)                        // throws .sizeOverflow
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

  /// What went wrong, in words: "size overflow in [9999999999999999999q]" (a long type
  /// shortened as every message quotes input).
  public var message: String { "\(kind) in \(shortened(encoding))" }

  /// Where the problem is: the type whose layout failed, as a type encoding of its own (where
  /// it sits in a larger signature is the caller's to find).
  public var location: InputLocation { InputLocation(.typeEncoding, text: encoding, bytes: 0..<encoding.utf8.count) }

  /// ``message``.
  public var description: String { message }

  /// The kind of a ``LayoutError``.
  public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// A size, offset or bit count does not fit in `Int`.
    case sizeOverflow

    /// What the kind means, in a few words.
    public var description: String {
      switch self {
      case .sizeOverflow: "size overflow"
      }
    }
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
        fields, isUnion: isUnion, of: self,
        recordOffset: {
          offsets.append($0 / 8); bitOffsets.append($0)
        })
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
    return Self.isKnownZeroSize(size, caveats: engine.caveats)
  }

  /// The rule of ``hasKnownZeroSize``, given a measured size and its caveats: no bytes, and
  /// nothing whose size is unknown.
  @inline(__always)
  static func isKnownZeroSize(_ size: Int, caveats: LayoutCaveats) -> Bool {
    size == 0 && caveats.isDisjoint(with: [.unknownSize, .fieldsNotEncoded])
  }

  /// ``hasKnownZeroSize`` for the fast path, which measured the type (`bytes`, one
  /// whole type) with `rules` as `size` (-1 for an overflow) and `caveats`: the same answer as
  /// the parser's, which splits the runs of offsets before any model is known. The measured
  /// size decides it but under Microsoft layout, where a structure without bytes takes 4 and
  /// the type is parsed again (call it from the splitter's closure, which asks only when a run
  /// of offsets needs the answer: rare).
  /// `maximumNestingDepth` is the caller's limit, within which the scanner read the type.
  static func hasKnownZeroSize(
    encodedBy bytes: UnsafeBufferPointer<UInt8>, size: Int, caveats: LayoutCaveats, rules: LayoutRules,
    maximumNestingDepth: Int
  ) -> Bool {
    if !rules.usesMicrosoftBitfields {
      return isKnownZeroSize(size, caveats: caveats)
    }
    let type = try? TypeEncoding(parsingBytes: bytes, options: ParseOptions(maximumNestingDepth: maximumNestingDepth))
    return type?.hasKnownZeroSize ?? false
  }
}

/// The recursive size/alignment computation over a parsed tree (Itanium/System V natural
/// layout). The rules themselves live in ``LayoutRules`` and ``AggregateLayout``, shared with the
/// single-pass scanner behind ``SignatureFrame``.
struct LayoutEngine {
  let rules: LayoutRules
  var caveats = LayoutCaveats()

  init(model: DataModel) { self.rules = LayoutRules(model) }

  init(rules: LayoutRules) { self.rules = rules }

  func overflow(_ type: TypeEncoding) -> LayoutError {
    LayoutError(kind: .sizeOverflow, encoding: type.description)
  }

  func primitive(_ code: TypeCode) -> (size: Int, alignment: Int) { rules.primitive(code) }

  mutating func measure(_ type: TypeEncoding) throws(LayoutError) -> (size: Int, alignment: Int) {
    switch type {
    case .primitive(let code):
      caveats.formUnion(rules.caveats(of: code))
      return rules.primitive(code)
    case .object, .block, .pointer:
      return (rules.pointerSize, rules.pointerSize)
    case .array(let count, let element):
      guard let result = rules.array(count: count, element: try measure(element)) else { throw overflow(type) }
      return result
    case .structure(_, let fields), .union(_, let fields):
      guard let fields else {
        caveats.insert(.fieldsNotEncoded)
        return (0, 1)
      }
      let isUnion = if case .union = type { true } else { false }
      return try aggregate(fields, isUnion: isUnion, of: type, recordOffset: { _ in })
    case .bitfield(let bitfield):
      if bitfield.declaredType == nil { caveats.insert(.bitfieldUnitAssumed) }
      return rules.bitfieldUnit(declaredType: bitfield.declaredType, width: bitfield.width)
    case .complex(let inner):
      guard let result = rules.complex(try measure(inner)) else { throw overflow(type) }
      return result
    case .atomic(let inner):
      return rules.atomic(try measure(inner))
    case .qualified(_, let inner):
      return try measure(inner)
    case .unencodable:
      caveats.insert(.unknownSize)
      return (0, 1)
    }
  }

  /// Lays out fields in order (or all at 0 for a union); reports each field's bit offset.
  mutating func aggregate(
    _ fields: [TypeEncoding.Field], isUnion: Bool, of type: TypeEncoding, recordOffset: (Int) -> Void
  ) throws(LayoutError) -> (size: Int, alignment: Int) {
    var builder = AggregateLayout(isUnion: isUnion)
    for field in fields {
      let start: Int?
      if let bitfield = field.type.bitfieldUnderQualifiers {
        start = builder.addBitfield(bitfield, rules: rules)
      } else {
        let (size, alignment) = try measure(field.type)
        start = builder.addField(size: size, alignment: alignment)
      }
      guard let start else { throw overflow(type) }
      recordOffset(start)
    }
    caveats.formUnion(builder.caveats)
    guard let result = builder.finish(rules: rules) else { throw overflow(type) }
    return result
  }
}

extension TypeEncoding {
  /// The bitfield this type is, under any qualifiers; `nil` for any other type. Unlike
  /// `unqualified`, it copies nothing (the layout engine asks it of every field).
  var bitfieldUnderQualifiers: Bitfield? {
    switch self {
    case .bitfield(let bitfield): bitfield
    case .qualified(_, let inner): inner.bitfieldUnderQualifiers
    default: nil
    }
  }
}

/// `value` rounded up to a multiple of `alignment`, or `nil` on overflow.
@inline(__always)
func roundUp(_ value: Int, to alignment: Int) -> Int? {
  guard alignment > 1 else { return value }
  let (sum, overflowed) = value.addingReportingOverflow(alignment - 1)
  if overflowed { return nil }
  // Alignments are powers of two but for sizes recovered from a frame: no division for those.
  if alignment & (alignment &- 1) == 0 { return sum & ~(alignment &- 1) }
  return sum - sum % alignment
}

/// The bytes `bits` (never negative: a bit end or offset) occupy, rounded up; unsigned, so
/// that it is an add and a shift, without the sign fix-ups of a signed division.
@inline(__always)
func bytes(ofBits bits: Int) -> Int { Int(bitPattern: (UInt(bitPattern: bits) &+ 7) &>> 3) }
