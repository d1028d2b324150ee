// The one signature-level layout: slots, clang's offsets and the notes on the written ones,
// for any form of a parsed signature (the tree, `SignatureEncoding`, or the compact nodes,
// `CompactSignature`) through `SignatureLayoutSource`.

/// A parameter's slot, its type's layout, and what the signature-level rules need of its type.
typealias ParameterSlot = (slot: Int, layout: TypeLayout, shape: TypeShape)

/// A parsed signature, as the layout reads it.
protocol SignatureLayoutSource {
  associatedtype Cursor: ArgumentCursor
  var argumentCount: Int { get }
  var writtenFrameLength: Int? { get }
  var returnIsUnencodable: Bool { get }
  var kind: SignatureEncoding.Kind { get }
  /// The return type, made for a note.
  var returnType: TypeEncoding { get }
  /// The whole signature, for an error.
  var text: String { get }
  func returnSlot(rules: LayoutRules) throws(LayoutError) -> ParameterSlot
  /// A cursor before the first argument.
  func makeCursor() -> Cursor
}

/// The arguments of a signature in order.
protocol ArgumentCursor {
  /// Moves to the next argument; `false` past the last.
  mutating func advance() -> Bool
  func slot(rules: LayoutRules) throws(LayoutError) -> ParameterSlot
  /// The offset written after the argument.
  var written: Int? { get }
  /// The next argument's written offset, or the frame length after the last.
  var nextWritten: Int? { get }
  /// The argument's type, made for a note.
  var type: TypeEncoding { get }
}

extension SignatureLayout {
  init<Source: SignatureLayoutSource>(laying source: Source, for model: DataModel) throws(LayoutError) {
    let rules = LayoutRules(model)
    var returnLayout = try source.returnSlot(rules: rules).layout
    var notes: [LayoutNote] = []
    // The size the first argument of the return type's encoding shows in the frame, when its
    // encoding hides it.
    var returnHiddenSize: Int? = nil
    var result: [ArgumentLayout] = []
    result.reserveCapacity(source.argumentCount)
    var running = 0
    var cursor = source.makeCursor()
    var index = 0
    while cursor.advance() {
      defer { index &+= 1 }
      var (slot, layout, shape) = try cursor.slot(rules: rules)
      let encodedSlot = slot
      let written = cursor.written
      let nextWritten = cursor.nextWritten
      let finding = ArgumentOffsets.reconcile(
        slot: &slot, size: &layout.size, alignment: &layout.alignment, caveats: &layout.caveats, shape: shape,
        written: written, nextWritten: nextWritten)
      switch finding {
      case .none:
        break
      case .sizeFromOffsets(let observed):
        notes.append(
          LayoutNote(
            kind: .sizeFromOffsets, argument: index,
            details: shape == .unencodable
              ? .unencodableSlot(observed: observed) : .sizeFromOffsets(type: cursor.type, observed: observed)))
      case .hiddenLayout(let observed):
        let type = cursor.type
        notes.append(
          LayoutNote(
            kind: .hiddenLayout, argument: index,
            details: .hiddenLayout(type: type, observed: observed, encoded: encodedSlot)))
        if returnHiddenSize == nil, type == source.returnType { returnHiddenSize = observed }
      }
      let estimate = layout.caveats.subtracting(.layoutHidden)
      if shape == .otherFloat, estimate == .ambiguousFloatingPoint,
        let observed = Self.writtenSlot(written: written, next: nextWritten), observed == 2 || observed == 16
      {
        // The frame says which of the types a space stands for can be meant.
        notes.append(LayoutNote(kind: .estimate, argument: index, details: .floatingPointSlot(observed: observed)))
      } else if !estimate.isEmpty, shape != .unencodable {
        notes.append(LayoutNote(kind: .estimate, argument: index, details: .estimate(estimate)))
      }
      result.append(ArgumentLayout(layout: layout, slotSize: slot, offset: running, writtenOffset: written))
      let (sum, overflowed) = running.addingReportingOverflow(slot)
      if overflowed { throw LayoutError(kind: .sizeOverflow, encoding: source.text) }
      running = sum
    }
    if let size = returnHiddenSize, size != returnLayout.size {
      notes.append(
        LayoutNote(
          kind: .hiddenLayout, argument: nil,
          details: .hiddenReturn(type: source.returnType, observed: size, encoded: returnLayout.size)))
      returnLayout.alignment = ArgumentOffsets.hiddenAlignment(
        size: size, encodedSize: returnLayout.size, encodedAlignment: returnLayout.alignment)
      returnLayout.size = size
      returnLayout.caveats.insert(.layoutHidden)
    }
    if !returnLayout.caveats.subtracting(.layoutHidden).isEmpty, !source.returnIsUnencodable {
      notes.append(LayoutNote(kind: .estimate, argument: nil, details: .estimate(returnLayout.caveats)))
    }
    Self.checkWrittenOffsets(result, frame: source.writtenFrameLength, running: running, into: &notes)
    if notes.count > 1 {
      notes.sort { ($0.argument ?? Int.max, $0.kind.rawValue) < ($1.argument ?? Int.max, $1.kind.rawValue) }
    }
    if source.kind == .types {
      let numbering: LayoutNote.Numbering = source.writtenFrameLength == nil ? .types : .function
      for index in notes.indices { notes[index].numbering = numbering }
    }
    self.init(model: model, returnLayout: returnLayout, arguments: result, frameLength: running, notes: notes)
  }

  /// The bytes the written offsets give an argument: from its offset to the next one (or the
  /// frame length); `nil` when either is not written, or they go backwards or too far apart.
  @inline(__always)
  static func writtenSlot(written: Int?, next: Int?) -> Int? {
    guard let written, let next, next >= written else { return nil }
    let (gap, overflowed) = next.subtractingReportingOverflow(written)
    return overflowed ? nil : gap
  }

  /// Checks the written offsets locally, each against the previous written offset plus its
  /// slot, so that one surprise is reported once instead of cascading; then the frame length.
  private static func checkWrittenOffsets(
    _ result: [ArgumentLayout], frame: Int?, running: Int, into notes: inout [LayoutNote]
  ) {
    for index in result.indices {
      guard let written = result[index].writtenOffset else { continue }
      let expected = ArgumentOffsets.expectedOffset(
        index: index, previousWritten: index > 0 ? result[index - 1].writtenOffset : nil,
        previousSlot: index > 0 ? result[index - 1].slotSize : 0, computed: result[index].offset)
      if written != expected {
        notes.append(
          LayoutNote(
            kind: .offsetMismatch, argument: index, details: .offsetMismatch(written: written, expected: expected)))
      }
    }
    if let frame {
      let expected = ArgumentOffsets.expectedFrameLength(
        lastWritten: result.last?.writtenOffset, lastSlot: result.last?.slotSize ?? 0, computed: running)
      if frame != expected {
        notes.append(
          LayoutNote(kind: .frameMismatch, argument: nil, details: .frameMismatch(written: frame, expected: expected)))
      }
    }
  }
}

/// A tree, as ``SignatureLayout/init(laying:for:)`` reads it.
struct TreeLayoutSource: SignatureLayoutSource {
  let signature: SignatureEncoding

  var argumentCount: Int { signature.arguments.count }
  var writtenFrameLength: Int? { signature.frameLength?.value }
  var returnIsUnencodable: Bool { signature.returnType == .unencodable }
  var kind: SignatureEncoding.Kind { signature.kind }
  var returnType: TypeEncoding { signature.returnType }
  var text: String { signature.description }

  func returnSlot(rules: LayoutRules) throws(LayoutError) -> ParameterSlot {
    try signature.returnType.parameterSlot(rules: rules)
  }

  func makeCursor() -> Cursor { Cursor(signature: signature) }

  struct Cursor: ArgumentCursor {
    let signature: SignatureEncoding
    var index = -1

    init(signature: SignatureEncoding) { self.signature = signature }

    mutating func advance() -> Bool {
      index &+= 1
      return index < signature.arguments.count
    }

    func slot(rules: LayoutRules) throws(LayoutError) -> ParameterSlot {
      try signature.arguments[index].type.parameterSlot(rules: rules)
    }

    var written: Int? { signature.arguments[index].offset?.value }
    var nextWritten: Int? {
      index &+ 1 < signature.arguments.count
        ? signature.arguments[index &+ 1].offset?.value : signature.frameLength?.value
    }
    var type: TypeEncoding { signature.arguments[index].type }
  }
}
