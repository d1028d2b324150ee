/// The sizes, alignments, parameter slots and offsets of a signature, computed in one pass over
/// its bytes without building a ``SignatureEncoding``.
///
/// This is what a runtime needs to call through a signature (GCC libobjc's `objc_skip_argspec`
/// with `objc_sizeof_type`, GNUstep's `NSMethodSignature`): the return value's size and
/// alignment, each argument's size, alignment, slot and offset, and the frame length. The only
/// allocation is the ``arguments`` array; a ``Reader`` that scans many signatures in a row
/// reuses its buffers, so it allocates nothing per signature.
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
    self = try withContiguousUTF8(input) { bytes throws(SignatureError) in
      try SignatureFrame(parsingBytes: bytes, for: model, options: options)
    }
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
    let rules = LayoutRules(model)
    // The fast path first; what it does not finish, the tree lays out.
    switch Self.scanFast(bytes, rules: rules, maximumDepth: options.maximumNestingDepth) {
    case .frame(let frame): self = frame
    case .failed(let error): throw SignatureError(error)
    case .handedOver: self = try Self.scanGeneral(bytes, model: model, options: options)
    }
  }

  /// What the fast path hands over (errors, signed offsets, offset runs with no consistent
  /// reading, overflows, nesting or arguments beyond its stacks): the tree and its layout, with
  /// their errors as the public initializer throws them. The frame is the layout's numbers.
  static func scanGeneral(
    _ bytes: UnsafeBufferPointer<UInt8>, model: DataModel, options: ParseOptions
  ) throws(SignatureError) -> SignatureFrame {
    let signature: SignatureEncoding
    do throws(EncodingError) {
      signature = try SignatureEncoding(parsingBytes: bytes, options: options)
    } catch {
      throw SignatureError(error)
    }
    let layout: SignatureLayout
    do throws(LayoutError) {
      layout = try signature.layout(for: model)
    } catch {
      throw SignatureError(error, signature: signature.description)
    }
    return SignatureFrame(signature: signature, layout: layout)
  }

  /// The frame of `signature` laid out as `layout`.
  init(signature: SignatureEncoding, layout: SignatureLayout) {
    var arguments: [Argument] = []
    arguments.reserveCapacity(layout.arguments.count)
    for argument in layout.arguments {
      arguments.append(
        Argument(
          size: argument.layout.size, alignment: argument.layout.alignment, caveats: argument.layout.caveats,
          slotSize: argument.slotSize, offset: argument.offset, writtenOffset: argument.writtenOffset))
    }
    self.init(
      kind: signature.kind,
      returnValue: Value(
        size: layout.returnLayout.size, alignment: layout.returnLayout.alignment, caveats: layout.returnLayout.caveats),
      arguments: arguments, frameLength: layout.frameLength, writtenFrameLength: signature.frameLength?.value,
      offsetsMatch: layout.offsetsMatch)
  }

  init(
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
  /// How a type begins, qualifiers skipped: what ``SignatureEncoding/kind`` looks at.
  enum Head {
    case block, object, selector, other

    @inline(__always)
    init(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
      if range.isEmpty {
        self = .other
      } else {
        self.init(bytes.baseAddress!, range.lowerBound, range.upperBound)
      }
    }

    /// The head of the type in `base[start..<end]`; `start < end`.
    @inline(__always)
    init(_ base: UnsafePointer<UInt8>, _ start: Int, _ end: Int) {
      var index = start
      var byte = base[index]
      while TypeQualifier(byte: byte) != nil {
        index &+= 1
        guard index < end else {
          self = .other
          return
        }
        byte = base[index]
      }
      switch byte {
      case 0x40: self = index &+ 1 < end && base[index &+ 1] == 0x3F ? .block : .object  // @ @?
      case 0x3A: self = .selector  // :
      default: self = .other
      }
    }

    /// What the signature describes, from the heads of its first two arguments.
    static func kind(_ first: Head, _ second: Head) -> SignatureEncoding.Kind {
      SignatureEncoding.Kind(
        firstIsBlock: first == .block, firstIsObject: first == .object, secondIsSelector: second == .selector)
    }
  }

  /// The fast path alone: `nil` where it hands over to the tree parser or finds an error (for tests and
  /// benchmarks that check it covers what clang writes).
  package static func scanningFastPathOnly(
    _ bytes: UnsafeBufferPointer<UInt8>, for model: DataModel = .x86_64SysV, options: ParseOptions = ParseOptions()
  ) -> SignatureFrame? {
    scanFast(bytes, rules: LayoutRules(model), maximumDepth: options.maximumNestingDepth).frame
  }

  /// How the fast path settled the arguments of `bytes`: `nil` when it gives up, `false` in
  /// one pass (the written offsets are the running sums), `true` when it handed over to the two
  /// passes that reconcile slots with the offsets (for tests that check the one pass takes what
  /// clang usually writes).
  package static func fastPathUsesTwoPasses(
    _ bytes: UnsafeBufferPointer<UInt8>, for model: DataModel = .x86_64SysV
  ) -> Bool? {
    var twoPasses = false
    let frame = withUnsafeMutablePointer(to: &twoPasses) {
      scanFast(
        bytes, rules: LayoutRules(model), maximumDepth: ParseOptions().maximumNestingDepth, storage: nil,
        twoPasses: $0
      ).frame
    }
    return frame == nil ? nil : twoPasses
  }
}

/// The fast path's signature-level bookkeeping: each argument's slot and offset, settled once
/// the offset written after it is known, whether the written offsets agree with clang's rules,
/// and the return value's size when the offsets reveal a hidden layout.
struct FrameAssembler {
  let rules: LayoutRules
  /// The arguments settled so far.
  private(set) var count = 0
  /// The frame offset of the next argument: the sum of the slots so far.
  private(set) var running = 0
  /// The written offset and slot of the last settled argument.
  private var lastWritten: Int? = nil
  private var lastSlot = 0
  private var offsetsAgree = true
  /// The size the offsets show for an aggregate argument spelled as the return type.
  private var returnHiddenSize: Int? = nil

  @inline(__always)
  init(rules: LayoutRules) {
    self.rules = rules
  }

  /// Settles the next argument; `isReturnType` tells (only when an aggregate's offsets show a
  /// hidden layout) whether its encoding is the return type's. `overflowed` is true when the
  /// frame offset after it overflows `Int`.
  @inline(__always)
  mutating func settle(
    size: Int, alignment: Int, shape: TypeShape, caveats: LayoutCaveats, written: Int?, nextWritten: Int?,
    isReturnType: () -> Bool
  ) -> (argument: SignatureFrame.Argument, overflowed: Bool) {
    var size = size
    var alignment = alignment
    var caveats = caveats
    var slot = rules.parameterSlot(size: size, shape: shape)
    let finding = ArgumentOffsets.reconcile(
      slot: &slot, size: &size, alignment: &alignment, caveats: &caveats, shape: shape, written: written,
      nextWritten: nextWritten)
    if case .hiddenLayout(let observed) = finding, returnHiddenSize == nil, isReturnType() {
      returnHiddenSize = observed
    }
    if let written {
      let expected = ArgumentOffsets.expectedOffset(
        index: count, previousWritten: lastWritten, previousSlot: lastSlot, computed: running)
      if written != expected { offsetsAgree = false }
    }
    lastWritten = written
    lastSlot = slot
    let argument = SignatureFrame.Argument(
      size: size, alignment: alignment, caveats: caveats, slotSize: slot, offset: running, writtenOffset: written)
    let (sum, overflowed) = running.addingReportingOverflow(slot)
    running = sum
    count &+= 1
    return (argument, overflowed)
  }

  /// The return value, with the size an argument of the same encoding showed, if any.
  @inline(__always)
  func returnValue(size: Int, alignment: Int, caveats: LayoutCaveats) -> SignatureFrame.Value {
    var value = SignatureFrame.Value(size: size, alignment: alignment, caveats: caveats)
    if let hidden = returnHiddenSize, hidden != size {
      value.alignment = ArgumentOffsets.hiddenAlignment(size: hidden, encodedSize: size, encodedAlignment: alignment)
      value.size = hidden
      value.caveats.insert(.layoutHidden)
    }
    return value
  }

  /// Whether every written offset, and the written frame length if any, agree with the slots.
  @inline(__always)
  func offsetsMatch(frame: Int?) -> Bool {
    guard let frame else { return offsetsAgree }
    let expected = ArgumentOffsets.expectedFrameLength(lastWritten: lastWritten, lastSlot: lastSlot, computed: running)
    return offsetsAgree && frame == expected
  }
}
