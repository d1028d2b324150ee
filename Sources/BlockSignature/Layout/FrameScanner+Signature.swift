// The frame scanner's signatures: the return type, the frame length, then the arguments and
// their written offsets, in one pass when the offsets are clang's running sums, else in two.
// The reader's signature walk (`readSignatureHead`, `readSignatureArguments`) finds the parts;
// the visitors here measure and settle them.

extension FrameScanner {
  /// The return type, the frame length, then the arguments: in one pass when the written
  /// offsets are clang's running sums (``OnePass``), otherwise in two passes (``FirstPass``,
  /// then ``settleArguments``).
  @inline(__always)
  mutating func scanSignature(
    reading read: UnsafeMutablePointer<ScannedArgument>,
    into buffer: UnsafeMutablePointer<SignatureFrame.Argument>,
    storage: UnsafeMutablePointer<[[SignatureFrame.Argument]]>?, twoPasses: UnsafeMutablePointer<Bool>?
  ) -> SignatureFrame? {
    var head = Head()
    guard reader.readSignatureHead(&head, sink: &measure) else { return nil }
    let frame = head.frame

    var onePass = OnePass(frame: frame, read: read, buffer: buffer)
    guard reader.readSignatureArguments(&onePass, sink: &measure) else { return nil }
    var kind = onePass.kind
    var returnValue = head.returnValue
    let pushed: Int
    let frameLength: Int
    let offsetsMatch: Bool
    if onePass.resumeAt < 0, frame < 0 || frame == onePass.running {
      (pushed, frameLength, offsetsMatch) = (onePass.pushed, onePass.running, true)
      if pushed == 1 { kind = SignatureFrame.Head.kind(onePass.firstHead, .other) }
    } else {
      twoPasses?.pointee = true
      // The arguments read so far stay read; the one whose offset did not fit is read again.
      let alreadyRead = onePass.pushed
      for position in 0..<alreadyRead {
        let argument = buffer[position]
        read[position].size = argument.size
        read[position].alignment = argument.alignment
        read[position].caveats = argument.caveats
        read[position].written = argument.writtenOffset ?? -1
      }
      if onePass.resumeAt >= 0 { index = onePass.resumeAt }
      var firstPass = FirstPass(frame: frame, pushed: alreadyRead, read: read)
      for position in 0..<alreadyRead { firstPass.previous = max(firstPass.previous, read[position].written) }
      guard reader.readSignatureArguments(&firstPass, sink: &measure) else { return nil }
      guard
        let settled = settleArguments(
          firstPass.pushed, frame: frame, returnEnd: head.returnEnd, returnValue: &returnValue, reading: read,
          into: buffer, kind: &kind)
      else { return nil }
      (pushed, frameLength, offsetsMatch) = settled
    }
    return SignatureFrame(
      kind: kind, returnValue: returnValue, arguments: arguments(pushed, from: buffer, storage: storage),
      frameLength: frameLength, writtenFrameLength: frame < 0 ? nil : frame, offsetsMatch: offsetsMatch)
  }

  /// The `pushed` settled arguments in `buffer` as an array: `storage`'s for that count when
  /// there is one (made once, overwritten in place while no frame holds it), else a new one.
  @inline(__always)
  func arguments(
    _ pushed: Int, from buffer: UnsafeMutablePointer<SignatureFrame.Argument>,
    storage: UnsafeMutablePointer<[[SignatureFrame.Argument]]>?
  ) -> [SignatureFrame.Argument] {
    // No buffer to share (writing through the empty array's would make a new one each time).
    if pushed == 0 { return [] }
    let settled = UnsafeBufferPointer(start: buffer, count: pushed)
    guard let storage else { return [SignatureFrame.Argument](settled) }
    storage.pointee.withUnsafeMutableBufferPointer { pool in
      if pool[pushed].count == pushed {
        pool[pushed].withUnsafeMutableBufferPointer { target in
          for position in 0..<pushed { target[position] = buffer[position] }
        }
      } else {
        pool[pushed] = [SignatureFrame.Argument](settled)
      }
    }
    return storage.pointee[pushed]
  }

  /// The return value and the frame length (-1 when none is written). A signed frame length, or
  /// one the whole-offset rule does not read, hands over to the tree.
  struct Head: SignatureVisitor {
    /// No return type: an unencodable one.
    var returnValue = SignatureFrame.Value(size: 0, alignment: 1, caveats: .unknownSize)
    var returnEnd = 0
    var frame = -1

    @inline(__always)
    mutating func returnType(_ sink: inout FrameMeasure, end: Int) -> Bool {
      returnValue = SignatureFrame.Value(size: sink.size, alignment: sink.alignment, caveats: sink.caveats)
      returnEnd = end
      return true
    }

    @inline(__always)
    mutating func frameLength(_ offset: WrittenOffset, reader: inout EncodingReader) -> Bool {
      if offset.isAbsent { return true }
      guard offset.sign == .none, let value = reader.wholeOffset(offset, previous: -1, frame: -1) else {
        return false
      }
      frame = value
      return true
    }

    func argument(
      _ sink: inout FrameMeasure, typeStart: Int, offset: WrittenOffset, reader: inout EncodingReader
    ) -> SignatureStep { .stop }
  }

  /// The arguments in one pass, for what clang writes whenever it could encode every
  /// parameter: each written offset (if any) is the sum of the slots before it, and the frame
  /// length (if any) the sum of all. Then no slot needs the offset after it — there is nothing
  /// to reconcile, no hidden layout, every offset agrees — so each argument is settled into
  /// `buffer` as soon as its type is read. Each is also recorded in `read`, so that the first
  /// offset that is not the running sum (an unencodable parameter's digit run, a packed
  /// structure, `' '` as `__float128`, a leading zero) stops the pass at that argument
  /// (`resumeAt`), and the two passes take over from there.
  struct OnePass: SignatureVisitor {
    let frame: Int
    let read: UnsafeMutablePointer<ScannedArgument>
    let buffer: UnsafeMutablePointer<SignatureFrame.Argument>
    var pushed = 0
    var running = 0
    var firstHead = SignatureFrame.Head.other
    var kind = SignatureEncoding.Kind.types
    /// Where the two passes take over (-1: they do not).
    var resumeAt = -1

    @_transparent
    mutating func argument(
      _ sink: inout FrameMeasure, typeStart: Int, offset: WrittenOffset, reader: inout EncodingReader
    ) -> SignatureStep {
      let typeEnd = offset.start
      if pushed < 2 {
        let head = SignatureFrame.Head(reader.base, typeStart, typeEnd)
        if pushed == 0 { firstHead = head } else { kind = SignatureFrame.Head.kind(firstHead, head) }
      }
      var written = -1
      if !offset.isAbsent {
        // A signed offset: the tree parser reads it.
        guard offset.sign == .none else { return .fail }
        // Kept only when the run reads as one offset (no leading zero, not above the frame
        // length) that is the running sum, so that the arguments read so far can be handed to
        // the two passes as they are; anything else is theirs to read as a whole offset or split.
        guard let value = reader.wholeOffset(offset, previous: running, frame: frame), value == running else {
          resumeAt = typeStart
          return .stop
        }
        written = value
      }
      guard pushed < SignatureFrame.fastArgumentCapacity else { return .fail }
      // What the settled argument does not keep (`ScannedArgument` is trivial: its other
      // fields are filled in from `buffer` if the two passes take over).
      (read + pushed).pointee.shape = sink.shape
      (read + pushed).pointee.typeStart = typeStart
      (read + pushed).pointee.typeEnd = typeEnd
      let slot = sink.rules.parameterSlot(size: sink.size, shape: sink.shape)
      (buffer + pushed).initialize(
        to: SignatureFrame.Argument(
          size: sink.size, alignment: sink.alignment, caveats: sink.caveats, slotSize: slot, offset: running,
          writtenOffset: written < 0 ? nil : written))
      pushed &+= 1
      let (sum, overflowed) = running.addingReportingOverflow(slot)
      // A frame that overflows `Int` is reported by the tree parser.
      if overflowed { return .fail }
      running = sum
      return .next
    }
  }

  /// The first of the two passes: each argument's type and written offset into `read` after
  /// those already there (nothing settled, so it carries only the count and the last offset).
  /// A digit run that is not one offset holds the offsets of unencodable parameters after the
  /// argument: each becomes an argument of its own.
  struct FirstPass: SignatureVisitor {
    let frame: Int
    var pushed: Int
    let read: UnsafeMutablePointer<ScannedArgument>
    /// The last written offset so far (they never decrease; -1 for none).
    var previous = -1

    mutating func argument(
      _ sink: inout FrameMeasure, typeStart: Int, offset: WrittenOffset, reader: inout EncodingReader
    ) -> SignatureStep {
      let capacity = SignatureFrame.fastArgumentCapacity
      let typeEnd = offset.start
      var written = -1
      if !offset.isAbsent {
        // A signed offset: the tree parser reads it.
        guard offset.sign == .none else { return .fail }
        if let whole = reader.wholeOffset(offset, previous: previous, frame: frame) {
          written = whole
          previous = whole
        } else {
          return split(offset, sink: sink, typeStart: typeStart, reader: reader) ? .next : .fail
        }
      }
      guard pushed < capacity else { return .fail }
      (read + pushed).initialize(
        to: ScannedArgument(
          size: sink.size, alignment: sink.alignment, caveats: sink.caveats, shape: sink.shape, written: written,
          typeStart: typeStart, typeEnd: typeEnd))
      pushed &+= 1
      return .next
    }

    /// The argument measured in `sink`, then an unencodable one for each further offset its
    /// digit run holds.
    mutating func split(
      _ offset: WrittenOffset, sink: FrameMeasure, typeStart: Int, reader: EncodingReader
    ) -> Bool {
      let typeEnd = offset.start
      let splitter = OffsetRunSplitter(
        digits: UnsafeBufferPointer(start: reader.base + offset.start, count: offset.digitCount),
        previous: previous < 0 ? nil : previous, frame: frame < 0 ? nil : frame)
      let typeBytes = UnsafeBufferPointer(start: reader.base + typeStart, count: typeEnd &- typeStart)
      var pieces = OffsetPieces()
      guard
        splitter.split(
          into: &pieces,
          firstHasZeroSize: {
            TypeEncoding.hasKnownZeroSize(
              encodedBy: typeBytes, size: sink.size, caveats: sink.caveats, rules: sink.rules,
              maximumNestingDepth: reader.maximumDepth)
          }),
        pushed &+ pieces.count <= SignatureFrame.fastArgumentCapacity
      else { return false }
      (read + pushed).initialize(
        to: ScannedArgument(
          size: sink.size, alignment: sink.alignment, caveats: sink.caveats, shape: sink.shape, written: pieces[0],
          typeStart: typeStart, typeEnd: typeEnd))
      pushed &+= 1
      for piece in 1..<pieces.count {
        (read + pushed).initialize(
          to: ScannedArgument(
            size: 0, alignment: 1, caveats: .unknownSize, shape: .unencodable, written: pieces[piece],
            typeStart: typeEnd, typeEnd: typeEnd))
        pushed &+= 1
      }
      previous = pieces[pieces.count - 1]
      return true
    }
  }

  /// The second of the two passes: slots and offsets, each of the `pushed` arguments in `read`
  /// settled into `buffer` now that the offset after it is known. Returns the count, the frame
  /// length and whether the offsets match; `returnValue` takes the size an argument spelled as
  /// the return type shows.
  @inline(never)
  func settleArguments(
    _ pushed: Int, frame: Int, returnEnd: Int, returnValue: inout SignatureFrame.Value,
    reading read: UnsafeMutablePointer<ScannedArgument>,
    into buffer: UnsafeMutablePointer<SignatureFrame.Argument>, kind: inout SignatureEncoding.Kind
  ) -> (count: Int, frameLength: Int, offsetsMatch: Bool)? {
    var assembler = FrameAssembler(rules: rules)
    for position in 0..<pushed {
      let argument = read[position]
      let nextWritten = position &+ 1 < pushed ? read[position &+ 1].written : frame
      let (settled, overflowed) = assembler.settle(
        size: argument.size, alignment: argument.alignment, shape: argument.shape, caveats: argument.caveats,
        written: argument.written < 0 ? nil : argument.written, nextWritten: nextWritten < 0 ? nil : nextWritten
      ) {
        argument.typeEnd &- argument.typeStart == returnEnd
          && UnsafeBufferPointer(start: base + argument.typeStart, count: returnEnd).elementsEqual(
            UnsafeBufferPointer(start: base, count: returnEnd))
      }
      // A frame that overflows `Int` is reported by the tree parser.
      if overflowed { return nil }
      (buffer + position).initialize(to: settled)
    }

    // (A type recovered from a digit run has an empty range.)
    let bytes = UnsafeBufferPointer(start: base, count: count)
    kind =
      pushed == 0
      ? .types
      : SignatureFrame.Head.kind(
        SignatureFrame.Head(bytes, read[0].typeStart..<read[0].typeEnd),
        pushed > 1 ? SignatureFrame.Head(bytes, read[1].typeStart..<read[1].typeEnd) : .other)
    let writtenFrame = frame < 0 ? nil : frame
    returnValue = assembler.returnValue(
      size: returnValue.size, alignment: returnValue.alignment, caveats: returnValue.caveats)
    return (pushed, assembler.running, assembler.offsetsMatch(frame: writtenFrame))
  }
}

/// The scanner's visitors measure each type afresh; those of the arguments leave the head alone.
extension SignatureVisitor where Sink == FrameMeasure {
  @inline(__always) func willRead(into sink: inout FrameMeasure) { sink.caveats = LayoutCaveats() }
  @inline(__always) func returnType(_ sink: inout FrameMeasure, end: Int) -> Bool { true }
  @inline(__always) func frameLength(_ offset: WrittenOffset, reader: inout EncodingReader) -> Bool { true }
}
