/// The sizes, alignments, parameter slots and offsets of a signature, computed in one pass over
/// its bytes without building a ``SignatureEncoding``.
///
/// This is what a runtime needs to call through a signature (GCC libobjc's `objc_skip_argspec`
/// with `objc_sizeof_type`, GNUstep's `NSMethodSignature`): the return value's size and
/// alignment, each argument's size, alignment, slot and offset, and the frame length. The only
/// allocation is the ``arguments`` array.
///
///     let frame = try SignatureFrame(parsing: "i20@?0i8r*12")
///     frame.kind                        // .block
///     frame.returnValue.size            // 4
///     frame.arguments.map(\.offset)     // [0, 8, 12]
///     frame.arguments.map(\.slotSize)   // [8, 4, 8]
///     frame.frameLength                 // 20
///     frame.offsetsMatch                // true
///
/// The numbers are those of ``SignatureEncoding/layout(for:)`` (which shares its rules, see
/// ``LayoutCaveats`` for when they are estimates); use that when you need the parsed types,
/// field offsets or the text of the notes.
///
/// The corresponding clang routine is `ASTContext::getObjCEncodingForBlock`, which writes the
/// offsets this type recomputes.
public struct SignatureFrame: Hashable, Sendable {
  /// What the signature describes, from its first arguments.
  public var kind: SignatureEncoding.Kind
  /// The return value's size, alignment and caveats.
  public var returnValue: Value
  /// One entry per argument, the block (or `self` and `_cmd`) included; unencodable parameters
  /// recovered from the offsets are entries too.
  public var arguments: [Argument]
  /// The frame length clang would write: the sum of all slots.
  public var frameLength: Int
  /// The frame length written in the signature, if any.
  public var writtenFrameLength: Int?
  /// Whether the written offsets and frame length (if any) agree with clang's rules.
  public var offsetsMatch: Bool

  /// The size and alignment of a return value.
  public struct Value: Hashable, Sendable {
    /// `sizeof`, in bytes (0 for `void`).
    public var size: Int
    /// `_Alignof`, in bytes.
    public var alignment: Int
    /// Why the numbers are an estimate; empty when the encoding determines them.
    public var caveats: LayoutCaveats
    /// Whether the encoding fully determines the layout.
    public var isExact: Bool { caveats.isEmpty }

    /// Creates a return value's layout.
    public init(size: Int, alignment: Int, caveats: LayoutCaveats = []) {
      self.size = size
      self.alignment = alignment
      self.caveats = caveats
    }
  }

  /// The size, alignment, slot and offset of one argument.
  public struct Argument: Hashable, Sendable {
    /// `sizeof` of the argument's type, in bytes.
    public var size: Int
    /// `_Alignof` of the argument's type, in bytes.
    public var alignment: Int
    /// Why the numbers are an estimate; empty when the encoding determines them.
    public var caveats: LayoutCaveats
    /// The bytes the argument occupies in the frame.
    public var slotSize: Int
    /// The offset clang would write for it.
    public var offset: Int
    /// The offset written in the signature, if any.
    public var writtenOffset: Int?
    /// Whether the encoding fully determines the layout.
    public var isExact: Bool { caveats.isEmpty }

    /// Creates an argument's layout.
    public init(
      size: Int, alignment: Int, caveats: LayoutCaveats = [], slotSize: Int, offset: Int, writtenOffset: Int? = nil
    ) {
      self.size = size
      self.alignment = alignment
      self.caveats = caveats
      self.slotSize = slotSize
      self.offset = offset
      self.writtenOffset = writtenOffset
    }
  }

  /// Scans a signature given as a string.
  ///
  ///     try SignatureFrame(parsing: "v24@0:8@16", for: .x86_64SysV).arguments.count  // 3
  ///
  /// - Parameters:
  ///   - input: A block signature, a method signature or a list of types, with or without offsets.
  ///   - model: The target whose sizes and alignments apply.
  ///   - options: Limits such as the maximum nesting depth.
  /// - Throws: ``SignatureError``: ``SignatureError/Kind/malformedEncoding`` with the parser's
  ///   ``EncodingError`` (the same kind and offset ``SignatureEncoding/init(parsing:options:)``
  ///   reports), or ``SignatureError/Kind/layoutOverflow``.
  /// - Complexity: O(*n*) in the length of `input`.
  public init(
    parsing input: String, for model: DataModel = .x86_64SysV, options: ParseOptions = ParseOptions()
  ) throws(SignatureError) {
    var input = input
    let result: Result<SignatureFrame, SignatureError> = input.withUTF8 { buffer in
      Result { () throws(SignatureError) -> SignatureFrame in
        try SignatureFrame(parsingBytes: buffer, for: model, options: options)
      }
    }
    self = try result.get()
  }

  /// Scans a signature given as UTF-8 bytes, for example a C string read from a block descriptor.
  ///
  ///     let frame = try SignatureFrame(parsingBytes: UnsafeBufferPointer(start: p, count: strlen(p)))
  ///
  /// - Throws: ``SignatureError``, as ``init(parsing:for:options:)``.
  /// - Complexity: O(*n*) in the number of bytes; one allocation, for ``arguments``.
  public init(
    parsingBytes bytes: UnsafeBufferPointer<UInt8>, for model: DataModel = .x86_64SysV,
    options: ParseOptions = ParseOptions()
  ) throws(SignatureError) {
    let scanned: (frame: SignatureFrame, overflow: Range<Int>?)
    do {
      scanned = try Self.scan(bytes, rules: LayoutRules(model), options: options)
    } catch {
      throw SignatureError(error)
    }
    if let range = scanned.overflow {
      let signature = String(decoding: bytes, as: UTF8.self)
      let encoding = range == 0..<bytes.count ? signature : String(decoding: bytes[range], as: UTF8.self)
      throw SignatureError(LayoutError(kind: .sizeOverflow, encoding: encoding), signature: signature)
    }
    self = scanned.frame
  }

  private init(
    kind: SignatureEncoding.Kind, returnValue: Value, arguments: [Argument], frameLength: Int,
    writtenFrameLength: Int?, offsetsMatch: Bool
  ) {
    self.kind = kind
    self.returnValue = returnValue
    self.arguments = arguments
    self.frameLength = frameLength
    self.writtenFrameLength = writtenFrameLength
    self.offsetsMatch = offsetsMatch
  }
}

extension SignatureFrame {
  /// An argument whose slot waits for the next written offset (the end of its slot).
  private struct Pending {
    // The parts of the measured type that settling reads (not its bitfield: a smaller copy).
    var size: Int
    var alignment: Int
    var shape: TypeShape
    var caveats: LayoutCaveats
    var written: Int?
    var typeRange: Range<Int>

    @inline(__always)
    init(type: MeasuredType, caveats: LayoutCaveats, written: Int?, typeRange: Range<Int>) {
      size = type.size
      alignment = type.alignment
      shape = type.shape
      self.caveats = caveats
      self.written = written
      self.typeRange = typeRange
    }
  }

  /// How a type begins, qualifiers skipped: what ``SignatureEncoding/kind`` looks at.
  private enum Head {
    case block, object, selector, other

    init(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
      var index = range.lowerBound
      while index < range.upperBound, TypeQualifier(rawValue: bytes[index]) != nil { index += 1 }
      guard index < range.upperBound else {
        self = .other
        return
      }
      switch bytes[index] {
      case "@": self = index + 1 < range.upperBound && bytes[index + 1] == "?" ? .block : .object
      case ":": self = .selector
      default: self = .other
      }
    }
  }

  /// The single pass. Parse errors are thrown at once; the first size overflow (in the order
  /// ``SignatureEncoding/layout(for:)`` would meet it) is returned, as the byte range of the
  /// type that overflowed (the whole input for the frame itself), to be thrown once the whole
  /// input has parsed, as the two-step path does.
  private static func scan(
    _ bytes: UnsafeBufferPointer<UInt8>, rules: LayoutRules, options: ParseOptions
  ) throws(EncodingError) -> (frame: SignatureFrame, overflow: Range<Int>?) {
    // The fast path first: it gives up (nil) on anything it does not handle, errors included,
    // and the general scanner then starts over and reports what the tree parser reports.
    var fast = FrameScanner(bytes: bytes, rules: rules, options: options)
    if let frame = fast.runFast(maximumDepth: options.maximumNestingDepth) { return (frame, nil) }
    var scanner = FrameScanner(bytes: bytes, rules: rules, options: options)
    return try scanner.run()
  }

  /// The scanner's state; a struct with mutating methods so that nothing is captured by a
  /// closure (no dynamic exclusivity checks, no boxes).
  private struct FrameScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let rules: LayoutRules
    var parser: EncodingParser
    var arguments: [Argument] = []
    var pending: Pending? = nil
    var running = 0
    /// The written offset and slot of the last settled argument (what `arguments.last` holds).
    var lastWritten: Int? = nil
    var lastSlot = 0
    var offsetsMatch = true
    var returnRange = 0..<0
    var returnHiddenSize: Int? = nil
    var firstHead = Head.other
    var secondHead = Head.other
    // The first overflow, keyed by (argument index, phase): -1 is the return value; phase 0 the
    // type, phase 1 the running frame offset after it.
    var overflowKey = (Int.max, Int.max)
    var overflow: Range<Int>? = nil

    init(bytes: UnsafeBufferPointer<UInt8>, rules: LayoutRules, options: ParseOptions) {
      self.bytes = bytes
      self.rules = rules
      parser = EncodingParser(Cursor(bytes), options: options)
    }

    mutating func record(_ key: (Int, Int), _ range: Range<Int>) {
      if key < overflowKey {
        overflowKey = key
        overflow = range
      }
    }

    mutating func run() throws(EncodingError) -> (frame: SignatureFrame, overflow: Range<Int>?) {
      guard let first = parser.cursor.peek() else { throw parser.error(.emptyInput, at: 0) }
      var returnState = MeasureState()
      let returnType: MeasuredType
      if isDigit(first) || first == "+" || first == "-" {
        returnType = MeasuredType(size: 0, alignment: 1, shape: .unencodable)
        returnState.caveats = .unknownSize
      } else {
        returnType = try parser.measureType(rules: rules, state: &returnState)
      }
      returnRange = 0..<parser.cursor.offset
      if let range = returnState.overflow { record((-1, 0), range) }
      let frame = try parser.parseSingleOffset()?.value

      arguments.reserveCapacity(SignatureEncoding.expectedArgumentCount(byteCount: bytes.count))
      var previous: Int? = nil
      // Scratch space for digit runs that hold several offsets.
      var pieces = OffsetPieces()
      while !parser.cursor.isAtEnd {
        let typeStart = parser.cursor.offset
        var state = MeasureState()
        let type = try parser.measureType(rules: rules, state: &state)
        let typeRange = typeStart..<parser.cursor.offset
        let index = arguments.count + (pending == nil ? 0 : 1)
        if let range = state.overflow { record((index, 0), range) }
        let hasZeroSize =
          type.size == 0 && state.overflow == nil && state.caveats.isDisjoint(with: [.unknownSize, .fieldsNotEncoded])
        let run = try parser.readOffsetRun(
          previous: previous, frame: frame, pieces: &pieces, firstHasZeroSize: { hasZeroSize })
        let head = index < 2 ? Head(bytes, typeRange) : .other
        switch run {
        case .single(let offset):
          push(Pending(type: type, caveats: state.caveats, written: offset?.value, typeRange: typeRange), head: head)
        case .split:
          push(Pending(type: type, caveats: state.caveats, written: pieces[0], typeRange: typeRange), head: head)
          for piece in 1..<pieces.count {
            // An unencodable parameter recovered from the digit run.
            push(
              Pending(
                type: MeasuredType(size: 0, alignment: 1, shape: .unencodable), caveats: .unknownSize,
                written: pieces[piece], typeRange: typeRange.upperBound..<typeRange.upperBound),
              head: .other)
          }
        }
        previous = run.last ?? previous
      }
      if let argument = pending { settle(argument, nextWritten: frame) }
      let result = finish(returnType: returnType, returnCaveats: returnState.caveats, frame: frame)
      return (result, overflow)
    }

    /// The single pass over the encodings the fast path handles (see `FastMeasurer`); `nil`
    /// when it gives up, before anything is reported.
    mutating func runFast(maximumDepth: Int) -> SignatureFrame? {
      guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
      var measurer = FastMeasurer(base: base, count: bytes.count, rules: rules, maximumDepth: maximumDepth)
      let first = base[0]
      let returnType: MeasuredType
      if isDigit(first) || first == "+" || first == "-" {
        returnType = MeasuredType(size: 0, alignment: 1, shape: .unencodable)
        measurer.caveats = .unknownSize
      } else {
        guard let type = measurer.measure() else { return nil }
        returnType = MeasuredType(size: type.size, alignment: type.alignment, shape: type.shape)
      }
      let returnCaveats = measurer.caveats
      returnRange = 0..<measurer.index
      guard let frame = measurer.offset(previous: nil, frame: nil) else { return nil }

      arguments.reserveCapacity(SignatureEncoding.expectedArgumentCount(byteCount: bytes.count))
      var previous: Int? = nil
      while !measurer.isAtEnd {
        let typeStart = measurer.index
        measurer.caveats = []
        guard let type = measurer.measure() else { return nil }
        let typeRange = typeStart..<measurer.index
        let index = arguments.count + (pending == nil ? 0 : 1)
        let head = index < 2 ? Head(bytes, typeRange) : .other
        let measured = MeasuredType(size: type.size, alignment: type.alignment, shape: type.shape)
        let runStart = measurer.index
        guard isDigit(measurer.peek()) else {
          // No offset (a signed one goes to the general scanner).
          if measurer.peek() == "+" || measurer.peek() == "-" { return nil }
          push(
            Pending(type: measured, caveats: measurer.caveats, written: nil, typeRange: typeRange), head: head)
          continue
        }
        if let whole = measurer.wholeOffset(previous: previous, frame: frame) {
          push(
            Pending(type: measured, caveats: measurer.caveats, written: whole, typeRange: typeRange), head: head)
          previous = whole
          continue
        }
        let splitter = OffsetRunSplitter(
          digits: UnsafeBufferPointer(start: base + runStart, count: measurer.index &- runStart),
          previous: previous, frame: frame)
        // Unencodable parameters recovered from the digit run, as the general scanner does.
        let hasZeroSize =
          type.size == 0 && measurer.caveats.isDisjoint(with: [.unknownSize, .fieldsNotEncoded])
        var pieces = OffsetPieces()
        guard splitter.split(into: &pieces, firstHasZeroSize: { hasZeroSize }) else { return nil }
        push(
          Pending(type: measured, caveats: measurer.caveats, written: pieces[0], typeRange: typeRange), head: head)
        for piece in 1..<pieces.count {
          push(
            Pending(
              type: MeasuredType(size: 0, alignment: 1, shape: .unencodable), caveats: .unknownSize,
              written: pieces[piece], typeRange: typeRange.upperBound..<typeRange.upperBound),
            head: .other)
        }
        previous = pieces[pieces.count - 1]
      }
      if let argument = pending { settle(argument, nextWritten: frame) }
      // A frame that overflows `Int` is reported by the general scanner.
      guard overflow == nil else { return nil }
      return finish(returnType: returnType, returnCaveats: returnCaveats, frame: frame)
    }

    /// The frame, once every argument is settled.
    mutating func finish(
      returnType: MeasuredType, returnCaveats: LayoutCaveats, frame: Int?
    ) -> SignatureFrame {
      var returnValue = Value(size: returnType.size, alignment: returnType.alignment, caveats: returnCaveats)
      if let size = returnHiddenSize, size != returnValue.size {
        returnValue.size = size
        returnValue.caveats.insert(.layoutHidden)
      }
      if let frame {
        let expected = ArgumentOffsets.expectedFrameLength(
          lastWritten: lastWritten, lastSlot: lastSlot, computed: running)
        if frame != expected { offsetsMatch = false }
      }
      let kind: SignatureEncoding.Kind =
        switch (firstHead, secondHead) {
        case (.block, _): .block
        case (.object, .selector): .method
        default: .types
        }
      return SignatureFrame(
        kind: kind, returnValue: returnValue, arguments: takeArguments(), frameLength: running,
        writtenFrameLength: frame, offsetsMatch: offsetsMatch)
    }

    /// Moves the arguments out (no retain for the result, no release when the scanner ends).
    @inline(__always)
    mutating func takeArguments() -> [Argument] {
      var taken: [Argument] = []
      swap(&taken, &arguments)
      return taken
    }

    /// Queues an argument; the one before it is settled now that its end is known.
    @inline(__always)
    mutating func push(_ argument: Pending, head: Head) {
      if let previous = pending { settle(previous, nextWritten: argument.written) }
      let index = arguments.count
      if index == 0 { firstHead = head } else if index == 1 { secondHead = head }
      pending = argument
    }

    /// Settles `argument` now that the offset after it is known.
    mutating func settle(_ argument: Pending, nextWritten: Int?) {
      let index = arguments.count
      var size = argument.size
      var alignment = argument.alignment
      var caveats = argument.caveats
      var slot = rules.parameterSlot(size: size, shape: argument.shape)
      let finding = ArgumentOffsets.reconcile(
        slot: &slot, size: &size, alignment: &alignment, caveats: &caveats, shape: argument.shape,
        written: argument.written, nextWritten: nextWritten)
      if case .hiddenLayout(let observed) = finding, returnHiddenSize == nil,
        UnsafeBufferPointer(rebasing: bytes[argument.typeRange]).elementsEqual(
          UnsafeBufferPointer(rebasing: bytes[returnRange]))
      {
        returnHiddenSize = observed
      }
      if let written = argument.written {
        let expected = ArgumentOffsets.expectedOffset(
          index: index, previousWritten: lastWritten, previousSlot: lastSlot, computed: running)
        if written != expected { offsetsMatch = false }
      }
      lastWritten = argument.written
      lastSlot = slot
      arguments.append(
        Argument(
          size: size, alignment: alignment, caveats: caveats, slotSize: slot, offset: running,
          writtenOffset: argument.written))
      let (sum, overflowed) = running.addingReportingOverflow(slot)
      if overflowed { record((index, 1), 0..<bytes.count) }
      running = sum
    }
  }
}
