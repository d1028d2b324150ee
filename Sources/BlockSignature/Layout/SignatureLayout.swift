/// Sizes, parameter slots and offsets of a signature on one data model, as clang computes them.
///
///     let signature = try SignatureEncoding(parsing: "i20@?0i8r*12")
///     let layout = try signature.layout(for: .x86_64SysV)
///     layout.arguments.map(\.offset)   // [0, 8, 12]
///     layout.frameLength               // 20
///     layout.notes                     // [] — the written offsets agree with clang
///
/// Each parameter's slot is its size, except that integral and enum types are rounded up to
/// `sizeof(int)` and arrays count as a pointer; slots follow each other with no alignment.
/// The corresponding clang routine is `ASTContext::getObjCEncodingTypeSize`.
public struct SignatureLayout: Hashable, Sendable {
  /// The data model the layout was computed for.
  public var model: DataModel
  /// The size, alignment and caveats of the return type (field offsets are not computed here:
  /// ask `returnType.layout(for:)` for them).
  public var returnLayout: TypeLayout
  /// One entry per argument, the block (or `self` and `_cmd`) included.
  public var arguments: [ArgumentLayout]
  /// The frame length clang would write: the sum of all slots.
  public var frameLength: Int
  /// Disagreements between the written offsets and clang's, and facts the encoding hides.
  public var notes: [LayoutNote]

  /// The offsets clang would write, one per argument.
  public var offsets: [Int] { arguments.map(\.offset) }

  /// Whether the written offsets (if any) agree with clang's.
  public var offsetsMatch: Bool { !notes.contains { $0.kind == .offsetMismatch || $0.kind == .frameMismatch } }
}

/// The layout of one argument of a signature.
public struct ArgumentLayout: Hashable, Sendable {
  /// The size, alignment and caveats of the argument's type (field offsets are not computed
  /// here: ask the type's `layout(for:)` for them).
  public var layout: TypeLayout
  /// The bytes the argument occupies in the frame.
  public var slotSize: Int
  /// The offset clang would write for it.
  public var offset: Int
  /// The offset written in the signature, if any.
  public var writtenOffset: Int?
}

/// A finding about a signature's offsets; lower-case text naming the numbers.
///
///     note.message  // "argument 2 is at 12; clang would write 16"
///
/// A note stores its kind and numbers; the text is built when ``message`` is read.
public struct LayoutNote: Hashable, Sendable, CustomStringConvertible {
  /// The finding's category.
  public var kind: Kind
  /// The argument index (0 is the block or `self`; in a list of types, 0 is the second type),
  /// or `nil` for the frame or return value. ``message`` names it as the signature's form
  /// does: `argument 1` for a block's first explicit argument and for a C function's
  /// (`i12i0r*4`) first one, `type 2` in a list of types.
  public var argument: Int?
  /// What the text is made from.
  var details: Details

  /// The numbers and types a note's text names.
  enum Details: Hashable, Sendable {
    case offsetMismatch(written: Int, expected: Int)
    case frameMismatch(written: Int, expected: Int)
    case unencodableSlot(observed: Int)
    case sizeFromOffsets(type: TypeEncoding, observed: Int)
    case hiddenLayout(type: TypeEncoding, observed: Int, encoded: Int)
    case hiddenReturn(type: TypeEncoding, observed: Int, encoded: Int)
    case estimate(LayoutCaveats)
    /// A single space whose slot the written offsets give: 2 or 16 bytes.
    case floatingPointSlot(observed: Int)
    case text(String)
  }

  /// How the text names positions: as a block's or method's arguments (0 is the block or
  /// `self`), a C function's (`i12i0r*4`: 1 is the first after the return value), or a list of
  /// types (`type 1` is the first type).
  enum Numbering: Hashable, Sendable { case arguments, function, types }
  var numbering = Numbering.arguments

  init(kind: Kind, argument: Int?, details: Details) {
    self.kind = kind
    self.argument = argument
    self.details = details
  }

  /// `argument 2`, `type 3` or `return value`, as ``numbering`` says.
  var position: String {
    guard let argument else { return numbering == .types ? "type 1" : "return value" }
    switch numbering {
    case .arguments: return "argument \(argument)"
    case .function: return "argument \(argument + 1)"
    case .types: return "type \(argument + 2)"
    }
  }

  /// The text.
  public var message: String {
    get {
      let position = position
      switch details {
      case .offsetMismatch(let written, let expected):
        return "\(position) is at \(written); clang would write \(expected)"
      case .frameMismatch(let written, let expected):
        return "frame length is \(written); clang would write \(expected)"
      case .unencodableSlot(let observed):
        return
          "\(position) has no encoding (a vector, member pointer or _BitInt); its slot is \(counted(observed, "byte"))"
      case .sizeFromOffsets(let type, let observed):
        return
          "\(position) (\(type.visibleDescription)) has no size in its encoding; its slot is \(counted(observed, "byte"))"
      case .hiddenLayout(let type, let observed, let encoded):
        return
          "\(position) occupies \(counted(observed, "byte")) but \(type.visibleDescription) gives \(encoded); "
          + "the encoding hides packing, over-alignment or unencodable fields"
      case .hiddenReturn(let type, let observed, let encoded):
        return
          "\(position): \(type.visibleDescription) occupies \(counted(observed, "byte")) as an argument but its encoding gives \(encoded)"
      case .estimate(let caveats):
        return "\(position): \(caveats.description)"
      case .floatingPointSlot(16):
        return "\(position): ' ' is __float128 (16 bytes in the frame)"
      case .floatingPointSlot(let observed):
        return "\(position): ' ' is _Float16 or __bf16 (\(counted(observed, "byte")) in the frame), "
          + "which the encoding does not tell apart"
      case .text(let text):
        return text
      }
    }
    set { details = .text(newValue) }
  }

  /// The message.
  public var description: String { message }

  /// Categories of ``LayoutNote``.
  public struct Kind: RawRepresentable, Hashable, Sendable {
    /// The identifier.
    public var rawValue: String
    /// Creates a kind.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A written offset differs from the one clang would write.
    public static var offsetMismatch: Kind { Kind(rawValue: "offsetMismatch") }
    /// The written frame length differs from clang's.
    public static var frameMismatch: Kind { Kind(rawValue: "frameMismatch") }
    /// An argument occupies a different number of bytes than its encoding gives; the encoding
    /// hides packing, over-alignment or unencodable fields.
    public static var hiddenLayout: Kind { Kind(rawValue: "hiddenLayout") }
    /// An argument whose slot comes from the written offsets because its encoding has no size.
    public static var sizeFromOffsets: Kind { Kind(rawValue: "sizeFromOffsets") }
    /// A type layout is an estimate (see ``LayoutCaveats``).
    public static var estimate: Kind { Kind(rawValue: "estimate") }
  }
}

extension TypeEncoding {
  /// The bytes clang reserves for a parameter of this type in a signature's frame.
  ///
  ///     try TypeEncoding(parsing: "c").parameterSlotSize(for: .x86_64SysV)    // 4
  ///     try TypeEncoding(parsing: "[4i]").parameterSlotSize(for: .x86_64SysV) // 8
  public func parameterSlotSize(for model: DataModel = .x86_64SysV) throws(LayoutError) -> Int {
    try parameterSlot(for: model).slot
  }

  func parameterSlot(for model: DataModel) throws(LayoutError) -> (slot: Int, layout: TypeLayout) {
    let (slot, layout, _) = try parameterSlot(rules: LayoutRules(model))
    return (slot, layout)
  }

  func parameterSlot(rules: LayoutRules) throws(LayoutError) -> (slot: Int, layout: TypeLayout, shape: TypeShape) {
    var engine = LayoutEngine(rules: rules)
    let (size, alignment) = try engine.measure(self)
    let layout = TypeLayout(size: size, alignment: alignment, caveats: engine.caveats)
    let shape = TypeShape(self)
    return (rules.parameterSlot(size: size, shape: shape), layout, shape)
  }
}

extension SignatureEncoding {
  /// The bytes the written offsets give argument `index`: from its offset to the next
  /// argument's, or to the frame length for the last, as ``layout(for:)`` reads them; `nil`
  /// when either is not written, or they go backwards or too far apart for `Int`.
  func writtenSlot(ofArgument index: Int) -> Int? {
    SignatureLayout.writtenSlot(
      written: arguments[index].offset?.value,
      next: index + 1 < arguments.count ? arguments[index + 1].offset?.value : frameLength?.value)
  }

  /// Whether argument `index` is a single space (qualifiers aside) the written offsets give 16
  /// bytes: `__float128`, the one type of that size clang encodes as a space (`_Float16` and
  /// `__bf16` take 2). ``layout(for:)`` gives it 16 bytes aligned to 16 on the same evidence.
  func isFloat128(argument index: Int) -> Bool {
    TypeShape(arguments[index].type) == .otherFloat && writtenSlot(ofArgument: index) == 16
  }

  /// Computes sizes, slots and clang's offsets on `model`, and checks the written ones.
  ///
  ///     let layout = try SignatureEncoding(parsing: "i24@?0i8r*12").layout(for: .x86_64SysV)
  ///     layout.notes.map(\.message)  // ["frame length is 24; clang would write 20"]
  ///
  /// Arguments whose encoding has no size (unencodable parameters, `?`, a single space) take
  /// their slot from the written offsets when there are any.
  /// - Throws: ``LayoutError`` when a size overflows.
  public func layout(for model: DataModel = .x86_64SysV) throws(LayoutError) -> SignatureLayout {
    try SignatureLayout(laying: TreeLayoutSource(signature: self), for: model)
  }

  /// The signature with the offsets and frame length clang would write on `model`.
  ///
  ///     try SignatureEncoding(parsing: "i@?ir*").synthesizingOffsets(for: .x86_64SysV)
  ///     // i20@?0i8r*12
  ///
  /// - Throws: ``LayoutError`` when a size overflows.
  public func synthesizingOffsets(for model: DataModel = .x86_64SysV) throws(LayoutError) -> SignatureEncoding {
    let layout = try layout(for: model)
    var copy = self
    copy.frameLength = Offset(layout.frameLength)
    for index in copy.arguments.indices {
      copy.arguments[index].offset = Offset(layout.arguments[index].offset)
    }
    return copy
  }

  /// The built-in data models whose rules reproduce every written offset, best first.
  ///
  ///     try SignatureEncoding(parsing: "v12@?0q4").compatibleDataModels()  // [.i386Linux]
  ///
  /// Models that need no hidden packing to explain the offsets come first; only when there are
  /// none are models returned that explain them with a packed or over-aligned structure.
  /// Empty when the signature has no offsets or no model explains them.
  public func compatibleDataModels(among models: [DataModel] = DataModel.allBuiltIn) -> [DataModel] {
    guard hasOffsets else { return [] }
    // Models that explain every offset; among them, those that need no hidden layout first
    // (a packed structure fits any model, a `long double` of the wrong size does not).
    var exact: [DataModel] = []
    var withHiddenLayout: [DataModel] = []
    for model in models {
      guard let layout = try? layout(for: model),
        layout.notes.allSatisfy({ $0.kind != .offsetMismatch && $0.kind != .frameMismatch })
      else { continue }
      if layout.notes.contains(where: { $0.kind == .hiddenLayout }) {
        withHiddenLayout.append(model)
      } else {
        exact.append(model)
      }
    }
    return exact.isEmpty ? withHiddenLayout : exact
  }
}
