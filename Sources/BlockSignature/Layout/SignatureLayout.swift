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
  /// The layout of the return type.
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
  /// The layout of the argument's type.
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
public struct LayoutNote: Hashable, Sendable, CustomStringConvertible {
  /// The finding's category.
  public var kind: Kind
  /// The argument index (0 is the block or `self`), or `nil` for the frame or return value.
  public var argument: Int?
  /// The text.
  public var message: String

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
    let layout = try layout(for: model)
    switch unqualified {
    case .array:
      return (model.pointerSize, layout)
    case .primitive(let code) where code.isIntegral && layout.size > 0:
      return (max(layout.size, 4), layout)
    default:
      return (layout.size, layout)
    }
  }
}

extension SignatureEncoding {
  /// Computes sizes, slots and clang's offsets on `model`, and checks the written ones.
  ///
  ///     let layout = try SignatureEncoding(parsing: "i24@?0i8r*12").layout(for: .x86_64SysV)
  ///     layout.notes.map(\.message)  // ["frame length is 24; clang would write 20"]
  ///
  /// Arguments whose encoding has no size (unencodable parameters, `?`, a single space) take
  /// their slot from the written offsets when there are any.
  /// - Throws: ``LayoutError`` when a size overflows.
  public func layout(for model: DataModel = .x86_64SysV) throws(LayoutError) -> SignatureLayout {
    var returnLayout = try returnType.layout(for: model)
    var notes: [LayoutNote] = []
    var hiddenSizes: [(TypeEncoding, Int)] = []
    var result: [ArgumentLayout] = []
    result.reserveCapacity(arguments.count)
    var running = 0
    for (index, argument) in arguments.enumerated() {
      var (slot, layout) = try argument.type.parameterSlot(for: model)
      let written = argument.offset.map(\.value)
      let nextWritten = index + 1 < arguments.count ? arguments[index + 1].offset?.value : frameLength?.value
      if let written, let nextWritten, nextWritten >= written {
        let observed = nextWritten - written
        let uncertain = layout.caveats.contains(.unknownSize) || layout.caveats.contains(.ambiguousFloatingPoint)
          || layout.caveats.contains(.fieldsNotEncoded)
        if observed != slot {
          if uncertain {
            notes.append(LayoutNote(
              kind: .sizeFromOffsets, argument: index,
              message: argument.type == .unencodable
                ? "argument \(index) has no encoding (a vector, member pointer or _BitInt); its slot is \(observed) bytes"
                : "argument \(index) (\(argument.type)) has no size in its encoding; its slot is \(observed) bytes"))
            slot = observed
            if case .primitive(.otherFloat) = argument.type.unqualified, observed == 2 || observed == 16 {
              layout.size = observed
              layout.alignment = observed
            } else if layout.size == 0 {
              layout.size = observed
            }
          } else if isAggregate(argument.type) {
            notes.append(LayoutNote(
              kind: .hiddenLayout, argument: index,
              message: "argument \(index) occupies \(observed) bytes but \(argument.type) gives \(slot); "
                + "the encoding hides packing, over-alignment or unencodable fields"))
            // The frame is clang's own answer: use it, and say the alignment is a guess.
            slot = observed
            layout.size = observed
            layout.caveats.insert(.layoutHidden)
            hiddenSizes.append((argument.type, observed))
          }
        } else if case .primitive(.otherFloat) = argument.type.unqualified, observed == 16 {
          layout.size = 16
          layout.alignment = 16
        }
      }
      if !layout.caveats.subtracting(.layoutHidden).isEmpty, argument.type != .unencodable {
        notes.append(LayoutNote(
          kind: .estimate, argument: index,
          message: "argument \(index): \(layout.caveats.subtracting(.layoutHidden).description)"))
      }
      result.append(ArgumentLayout(layout: layout, slotSize: slot, offset: running, writtenOffset: written))
      let (sum, overflowed) = running.addingReportingOverflow(slot)
      if overflowed { throw LayoutError(kind: .sizeOverflow, encoding: description) }
      running = sum
    }
    if let (_, size) = hiddenSizes.first(where: { $0.0 == returnType }), size != returnLayout.size {
      notes.append(LayoutNote(
        kind: .hiddenLayout, argument: nil,
        message: "return value: \(returnType) occupies \(size) bytes as an argument but its encoding gives \(returnLayout.size)"))
      returnLayout.size = size
      returnLayout.caveats.insert(.layoutHidden)
    }
    if !returnLayout.caveats.subtracting(.layoutHidden).isEmpty, returnType != .unencodable {
      notes.append(LayoutNote(kind: .estimate, argument: nil, message: "return value: \(returnLayout.caveats.description)"))
    }
    // Validate written offsets locally: each against the previous written offset plus its slot,
    // so one surprise is reported once instead of cascading.
    for index in result.indices {
      guard let written = result[index].writtenOffset else { continue }
      let expected: Int
      if index == 0 {
        expected = 0
      } else if let previous = result[index - 1].writtenOffset {
        expected = previous + result[index - 1].slotSize
      } else {
        expected = result[index].offset
      }
      if written != expected {
        notes.append(LayoutNote(
          kind: .offsetMismatch, argument: index,
          message: "argument \(index) is at \(written); clang would write \(expected)"))
      }
    }
    if let frame = frameLength?.value {
      let expected: Int
      if let last = result.last, let written = last.writtenOffset {
        expected = written + last.slotSize
      } else {
        expected = running
      }
      if frame != expected {
        notes.append(LayoutNote(
          kind: .frameMismatch, argument: nil, message: "frame length is \(frame); clang would write \(expected)"))
      }
    }
    notes.sort { ($0.argument ?? Int.max, $0.kind.rawValue) < ($1.argument ?? Int.max, $1.kind.rawValue) }
    return SignatureLayout(
      model: model, returnLayout: returnLayout, arguments: result, frameLength: running, notes: notes)
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

private func isAggregate(_ type: TypeEncoding) -> Bool {
  switch type.unqualified {
  case .structure, .union, .atomic: true
  default: false
  }
}
