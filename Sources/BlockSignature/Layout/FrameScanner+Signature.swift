// The frame scanner's signatures: the return type, the frame length, then the arguments and
// their written offsets, in one pass when the offsets are clang's running sums, else in two.

extension FrameScanner {
  /// The return type, the frame length, then the arguments: in one pass when the written
  /// offsets are clang's running sums (``scanArgumentsInOnePass``), otherwise in two passes
  /// (``scanArgumentsInTwoPasses``).
  @inline(__always)
  mutating func scanSignature(
    reading read: UnsafeMutablePointer<ScannedArgument>,
    into buffer: UnsafeMutablePointer<SignatureFrame.Argument>,
    storage: UnsafeMutablePointer<[[SignatureFrame.Argument]]>?, twoPasses: UnsafeMutablePointer<Bool>?
  ) -> SignatureFrame? {
    var frame = -1

    // The return value.
    let first = base[0]
    var returnValue: SignatureFrame.Value
    let returnEnd: Int
    if isDigit(first) || first == 0x2B || first == 0x2D {
      // No return type: an unencodable one.
      returnValue = SignatureFrame.Value(size: 0, alignment: 1, caveats: .unknownSize)
      returnEnd = 0
    } else {
      measure.caveats = LayoutCaveats()
      guard measureType() else { return nil }
      returnValue = SignatureFrame.Value(size: measure.size, alignment: measure.alignment, caveats: measure.caveats)
      returnEnd = index
    }
    if index < count {
      let byte = base[index]
      if isDigit(byte) {
        guard let value = reader.wholeOffset(previous: -1, frame: -1) else { return nil }
        frame = value
      } else if byte == 0x2B || byte == 0x2D {
        return nil
      }
    }

    var kind = SignatureEncoding.Kind.types
    let pushed: Int
    let frameLength: Int
    let offsetsMatch: Bool
    switch scanArgumentsInOnePass(frame: frame, reading: read, into: buffer, kind: &kind) {
    case .settled(let count, let running):
      (pushed, frameLength, offsetsMatch) = (count, running, true)
    case .failed:
      return nil
    case .inconsistent(let alreadyRead, let resumeAt):
      twoPasses?.pointee = true
      // The arguments read so far stay read; the one whose offset did not fit is read again.
      for position in 0..<alreadyRead {
        let argument = buffer[position]
        read[position].size = argument.size
        read[position].alignment = argument.alignment
        read[position].caveats = argument.caveats
        read[position].written = argument.writtenOffset ?? -1
      }
      index = resumeAt
      guard
        let settled = scanArgumentsInTwoPasses(
          frame: frame, returnEnd: returnEnd, returnValue: &returnValue, alreadyRead: alreadyRead, reading: read,
          into: buffer, kind: &kind)
      else { return nil }
      (pushed, frameLength, offsetsMatch) = settled
    }

    let settled = UnsafeBufferPointer(start: buffer, count: pushed)
    let arguments: [SignatureFrame.Argument]
    if pushed == 0 {
      // No buffer to share (writing through the empty array's would make a new one each time).
      arguments = []
    } else if let storage {
      // One array per argument count, made once: overwritten in place while no frame holds it.
      storage.pointee.withUnsafeMutableBufferPointer { pool in
        if pool[pushed].count == pushed {
          pool[pushed].withUnsafeMutableBufferPointer { target in
            for position in 0..<pushed { target[position] = buffer[position] }
          }
        } else {
          pool[pushed] = [SignatureFrame.Argument](settled)
        }
      }
      arguments = storage.pointee[pushed]
    } else {
      arguments = [SignatureFrame.Argument](settled)
    }
    return SignatureFrame(
      kind: kind, returnValue: returnValue, arguments: arguments, frameLength: frameLength,
      writtenFrameLength: frame < 0 ? nil : frame, offsetsMatch: offsetsMatch)
  }

  /// What ``scanArgumentsInOnePass`` made of the arguments.
  enum OnePassOutcome {
    /// Every argument settled: `count` of them, `running` bytes of frame.
    case settled(count: Int, running: Int)
    /// A type with an error (the reader has it) or one the fast path gives up on (the tree runs).
    case failed
    /// An offset that is not the running sum (or a frame length that is not the total): the
    /// two passes take over, with the first `read` arguments already read and the next one
    /// starting at `resumeAt`.
    case inconsistent(read: Int, resumeAt: Int)
  }

  /// The arguments in one pass, for what clang writes whenever it could encode every
  /// parameter: each written offset (if any) is the sum of the slots before it, and the frame
  /// length (if any) the sum of all. Then no slot needs the offset after it — there is nothing
  /// to reconcile, no hidden layout, every offset agrees — so each argument is settled into
  /// `buffer` as soon as its type is read. Each is also recorded in `read`, so that the first
  /// offset that is not the running sum (an unencodable parameter's digit run, a packed
  /// structure, `' '` as `__float128`, a leading zero) hands the arguments read so far to the
  /// two passes, which reconcile them with the offsets.
  @_transparent
  mutating func scanArgumentsInOnePass(
    frame: Int, reading read: UnsafeMutablePointer<ScannedArgument>,
    into buffer: UnsafeMutablePointer<SignatureFrame.Argument>, kind: inout SignatureEncoding.Kind
  ) -> OnePassOutcome {
    var pushed = 0
    var running = 0
    var firstHead = SignatureFrame.Head.other
    while index < count {
      let typeStart = index
      measure.caveats = LayoutCaveats()
      guard measureType() else { return .failed }
      let typeEnd = index
      if pushed < 2 {
        let head = SignatureFrame.Head(base, typeStart, typeEnd)
        if pushed == 0 { firstHead = head } else { kind = SignatureFrame.Head.kind(firstHead, head) }
      }
      var written = -1
      if index < count {
        let byte = base[index]
        if isDigit(byte) {
          // Kept only when `wholeOffset` reads the run as one offset (no leading zero, not
          // above the frame length) and it is the running sum, so that the arguments read so
          // far can be handed to the two passes as they are; anything else is theirs to read
          // as a whole offset or split.
          guard let value = reader.wholeOffset(previous: running, frame: frame), value == running else {
            return .inconsistent(read: pushed, resumeAt: typeStart)
          }
          written = value
        } else if byte == 0x2B || byte == 0x2D {
          // A signed offset: the tree parser reads it.
          return .failed
        }
      }
      guard pushed < SignatureFrame.fastArgumentCapacity else { return .failed }
      // What the settled argument does not keep (`ScannedArgument` is trivial: its other
      // fields are filled in from `buffer` if the two passes take over).
      (read + pushed).pointee.shape = measure.shape
      (read + pushed).pointee.typeStart = typeStart
      (read + pushed).pointee.typeEnd = typeEnd
      let slot = rules.parameterSlot(size: measure.size, shape: measure.shape)
      (buffer + pushed).initialize(
        to: SignatureFrame.Argument(
          size: measure.size, alignment: measure.alignment, caveats: measure.caveats, slotSize: slot, offset: running,
          writtenOffset: written < 0 ? nil : written))
      pushed &+= 1
      let (sum, overflowed) = running.addingReportingOverflow(slot)
      // A frame that overflows `Int` is reported by the tree parser.
      if overflowed { return .failed }
      running = sum
    }
    if frame >= 0, frame != running { return .inconsistent(read: pushed, resumeAt: index) }
    if pushed == 1 { kind = SignatureFrame.Head.kind(firstHead, .other) }
    return .settled(count: pushed, running: running)
  }

  /// The arguments in two passes over few values each: the first reads the types and offsets
  /// into `read` after the `alreadyRead` there (nothing settled, so the loop carries only the
  /// position and the last offset); the second settles each argument now that the offset after
  /// it is known, into `buffer`. Returns the count, the frame length and whether the offsets
  /// match; `returnValue` takes the size an argument spelled as the return type shows.
  @inline(never)
  mutating func scanArgumentsInTwoPasses(
    frame: Int, returnEnd: Int, returnValue: inout SignatureFrame.Value, alreadyRead: Int,
    reading read: UnsafeMutablePointer<ScannedArgument>,
    into buffer: UnsafeMutablePointer<SignatureFrame.Argument>, kind: inout SignatureEncoding.Kind
  ) -> (count: Int, frameLength: Int, offsetsMatch: Bool)? {
    let capacity = SignatureFrame.fastArgumentCapacity
    // First pass: each argument's type and written offset (-1 when absent).
    var pushed = alreadyRead
    // The last written offset so far (they never decrease).
    var previous = -1
    for position in 0..<alreadyRead { previous = max(previous, read[position].written) }
    while index < count {
      let typeStart = index
      measure.caveats = LayoutCaveats()
      guard measureType() else { return nil }
      let typeEnd = index
      var written = -1
      if index < count {
        let byte = base[index]
        if isDigit(byte) {
          let runStart = index
          if let whole = reader.wholeOffset(previous: previous, frame: frame) {
            written = whole
            previous = whole
          } else {
            // A digit run holding the offsets of unencodable parameters after this one.
            let splitter = OffsetRunSplitter(
              digits: UnsafeBufferPointer(start: base + runStart, count: index &- runStart),
              previous: previous < 0 ? nil : previous, frame: frame < 0 ? nil : frame)
            let (typeBytes, typeSize, typeCaveats) = (
              UnsafeBufferPointer(start: base + typeStart, count: typeEnd &- typeStart), measure.size, measure.caveats
            )
            var pieces = OffsetPieces()
            guard
              splitter.split(
                into: &pieces,
                firstHasZeroSize: {
                  TypeEncoding.hasKnownZeroSize(
                    encodedBy: typeBytes, size: typeSize, caveats: typeCaveats, rules: rules,
                    maximumNestingDepth: reader.maximumDepth)
                }),
              pushed &+ pieces.count <= capacity
            else { return nil }
            (read + pushed).initialize(
              to: ScannedArgument(
                size: measure.size, alignment: measure.alignment, caveats: measure.caveats, shape: measure.shape,
                written: pieces[0],
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
            continue
          }
        } else if byte == 0x2B || byte == 0x2D {
          // A signed offset: the tree parser reads it.
          return nil
        }
      }
      guard pushed < capacity else { return nil }
      (read + pushed).initialize(
        to: ScannedArgument(
          size: measure.size, alignment: measure.alignment, caveats: measure.caveats, shape: measure.shape,
          written: written,
          typeStart: typeStart, typeEnd: typeEnd))
      pushed &+= 1
    }

    // Second pass: slots and offsets, each argument settled with the offset after it.
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
