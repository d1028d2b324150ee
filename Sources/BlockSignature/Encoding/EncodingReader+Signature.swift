// The top level of a signature, read in one place for every reader of signatures: an optional
// return type, an optional frame length, then each argument's type and the offsets written after
// it. The tree (`SignatureEncoding`) and the frame scanner (`SignatureFrame`) are its visitors:
// they decide what the offsets mean, never where they are.

/// The offset or run of offset digits written after a type: nothing, `digits`, `+digits` (a
/// register) or `-digits`. A run of plain digits may hold several offsets (`v24@?08`).
struct WrittenOffset {
  enum Sign: UInt8 {
    case none, register, negative
  }

  var sign: Sign
  /// Where the offset starts: its sign, or its first digit.
  var start: Int
  /// Where its digits start.
  var digitsStart: Int
  /// Where it ends (`start` when nothing is written).
  var end: Int
  /// The digits as a number; it wraps beyond 19 digits (readers check ``digitCount``).
  var digits: UInt64

  /// Whether no offset is written.
  @inline(__always) var isAbsent: Bool { end == start }
  /// How many digits are written.
  @inline(__always) var digitCount: Int { end &- digitsStart }
}

/// What one argument of a signature tells the walk.
enum SignatureStep {
  /// Read the next argument.
  case next
  /// Stop here, with `index` where the visitor wants it.
  case stop
  /// Stop with an error (the reader's ``EncodingReader/failure``), or hand over (none).
  case fail
}

/// Takes the parts of a signature from ``EncodingReader/readSignatureHead(_:sink:)`` and
/// ``EncodingReader/readSignatureArguments(_:sink:)``, in the order of the bytes. Types are read
/// into `sink`; the visitor reads what it keeps from there.
protocol SignatureVisitor {
  associatedtype Sink: EncodingSink
  /// Before each type is read into `sink`.
  mutating func willRead(into sink: inout Sink)
  /// The return type is in `sink`; its bytes end at `end`. Not called when none is written.
  mutating func returnType(_ sink: inout Sink, end: Int) -> Bool
  /// The frame length, or ``WrittenOffset/isAbsent``.
  mutating func frameLength(_ offset: WrittenOffset, reader: inout EncodingReader) -> Bool
  /// An argument whose type is in `sink` (its bytes start at `typeStart` and end at
  /// `offset.start`) and the offsets written after it.
  mutating func argument(
    _ sink: inout Sink, typeStart: Int, offset: WrittenOffset, reader: inout EncodingReader
  ) -> SignatureStep
}

extension EncodingReader {
  /// The return type (none when the input starts with an offset) and the frame length, handed to
  /// `visitor`. An empty input is `emptyInput`.
  @_transparent
  mutating func readSignatureHead<Visitor: SignatureVisitor>(
    _ visitor: inout Visitor, sink: inout Visitor.Sink
  ) -> Bool {
    guard count > 0 else { return fail(.emptyInput, at: 0) }
    let first = base[0]
    if !(isDigit(first) || first == 0x2B || first == 0x2D) {
      visitor.willRead(into: &sink)
      guard readType(into: &sink), visitor.returnType(&sink, end: index) else { return false }
    }
    guard let frame = readWrittenOffset() else { return false }
    return visitor.frameLength(frame, reader: &self)
  }

  /// Each argument from `index` to the end: its type into `sink`, then its offsets, handed to
  /// `visitor`. `true` at the end or when the visitor stops.
  @_transparent
  mutating func readSignatureArguments<Visitor: SignatureVisitor>(
    _ visitor: inout Visitor, sink: inout Visitor.Sink
  ) -> Bool {
    while index < count {
      let typeStart = index
      visitor.willRead(into: &sink)
      guard readType(into: &sink), let offset = readWrittenOffset() else { return false }
      switch visitor.argument(&sink, typeStart: typeStart, offset: offset, reader: &self) {
      case .next: continue
      case .stop: return true
      case .fail: return false
      }
    }
    return true
  }

  /// The offset at `index`, if any: a sign must be followed by a digit (`invalidOffset`).
  /// Whether the digits make an allowed offset is for the visitor to judge.
  @inline(__always)
  mutating func readWrittenOffset() -> WrittenOffset? {
    let start = index
    let none = WrittenOffset(sign: .none, start: start, digitsStart: start, end: start, digits: 0)
    guard start < count else { return none }
    let byte = base[start]
    if isDigit(byte) {
      let (end, digits) = digitRun(from: start)
      index = end
      return WrittenOffset(sign: .none, start: start, digitsStart: start, end: end, digits: digits)
    }
    guard byte == 0x2B || byte == 0x2D else { return none }
    guard isDigit(self.byte(at: start &+ 1)) else {
      _ = fail(.invalidOffset, at: start)
      return nil
    }
    let (end, digits) = digitRun(from: start &+ 1)
    index = end
    return WrittenOffset(
      sign: byte == 0x2B ? .register : .negative, start: start, digitsStart: start &+ 1, end: end, digits: digits)
  }
}
