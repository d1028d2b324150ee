/// A malformed type encoding or signature, with the byte offset of the problem.
///
///     do {
///       _ = try TypeEncoding(parsing: "{S=i")
///     } catch {
///       print(error)  // unterminated structure at offset 0
///       error.kind    // .unterminatedStructure
///       error.offset  // 0 (the structure's opening brace)
///     }
public struct EncodingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What went wrong.
  public var kind: Kind
  /// The byte offset into ``input`` where the problem was found.
  public var offset: Int
  /// The text that was being parsed, kept for rendering diagnostics. Bytes that are not
  /// UTF-8 appear as U+FFFD; ``byte`` keeps the byte itself.
  public var input: String
  /// The input byte at ``offset``, or nil when the offset is the end of the input.
  public var byte: UInt8?

  /// Creates an error; ``byte`` is read from `input` at `offset`.
  public init(kind: Kind, offset: Int, input: String) {
    let utf8 = input.utf8
    let byte: UInt8? =
      offset >= 0 && offset < utf8.count ? utf8[utf8.index(utf8.startIndex, offsetBy: offset)] : nil
    self.init(kind: kind, offset: offset, input: input, byte: byte)
  }

  /// Creates an error from the parsed bytes, whose `byte` at `offset` may not survive the
  /// conversion of `input` to a `String`.
  package init(kind: Kind, offset: Int, input: String, byte: UInt8?) {
    self.kind = kind
    self.offset = offset
    self.input = input
    self.byte = byte
  }

  /// Where the problem is: ``range`` in ``input``, a type encoding.
  public var location: InputLocation { InputLocation(.typeEncoding, text: input, bytes: range) }

  /// The bytes of ``input`` the problem covers, for an underline that comes from data rather
  /// than from the kind's name: one byte at ``offset``; a number's digits; from an
  /// unterminated construct's opening byte, or from the first trailing byte, to the end;
  /// empty at the end of the input.
  ///
  ///     try? TypeEncoding(parsing: "{S=i")  // error.range == 0..<4: the whole open structure
  public var range: Range<Int> {
    let count = input.utf8.count
    let start = min(max(0, offset), count)
    switch kind {
    case .unterminatedStructure, .unterminatedUnion, .unterminatedArray, .unterminatedString,
      .unterminatedBlockSignature, .trailingBytes:
      return start..<count
    case .unexpectedEnd, .emptyInput:
      return start..<start
    case .countOverflow, .invalidNumber, .invalidBitfield:
      let utf8 = Array(input.utf8)
      var end = start
      if end < count, utf8[end] == 0x2B || utf8[end] == 0x2D { end += 1 }
      while end < count, (0x30...0x39).contains(utf8[end]) { end += 1 }
      return start..<max(end, min(start + 1, count))
    default:
      return start..<min(start + 1, count)
    }
  }

  /// The reason, followed by the position: "unexpected byte 'x' at offset 3".
  public var description: String {
    "\(message) at offset \(offset)"
  }

  /// The reason alone, naming the byte found where that helps: "unexpected byte 'x'".
  ///
  /// A number too large says which: `bitfield width 129 is wider than 128 bits`, `number
  /// 99999999999999999999 is too large` (a count, a frame length or an offset).
  public var message: String {
    if kind == .invalidBitfield || kind == .countOverflow, let number = numberAtOffset {
      if kind == .countOverflow { return "number \(number) is too large" }
      // `b<offset><type><width>` (GNU): the width is limited by the type before it.
      let utf8 = Array(input.utf8)
      if offset >= 2, let code = TypeCode(rawValue: utf8[offset - 1]), code.isIntegral,
        (0x30...0x39).contains(utf8[offset - 2])
      {
        return "bitfield width \(number) is wider than its type \(Self.quote(code.rawValue))"
      }
      return "bitfield width \(number) is wider than 128 bits"
    }
    switch kind {
    case .unexpectedByte, .invalidBitfield, .invalidNumber:
      if let byte { return "\(kind) \(Self.quote(byte))" }
      return "\(kind)"
    default:
      return "\(kind)"
    }
  }

  /// The number at ``offset``, its sign included, shortened past 24 digits; nil when no digit
  /// is there.
  private var numberAtOffset: String? {
    let utf8 = input.utf8
    guard offset < utf8.count else { return nil }
    var index = utf8.index(utf8.startIndex, offsetBy: offset)
    var sign = ""
    if utf8[index] == 0x2B || utf8[index] == 0x2D {
      sign = utf8[index] == 0x2D ? "-" : "+"
      index = utf8.index(after: index)
    }
    let digits = utf8[index...].prefix { (0x30...0x39).contains($0) }
    guard !digits.isEmpty else { return nil }
    return sign + String(decoding: digits.prefix(24), as: UTF8.self) + (digits.count > 24 ? "…" : "")
  }

  static func quote(_ byte: UInt8) -> String {
    if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return byte.hexadecimal(digits: 2)
  }
}

extension EncodingError {
  /// The kind of an ``EncodingError``.
  ///
  ///     if error.kind == .nestingTooDeep { … }
  public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// A byte that cannot start or continue the construct being parsed.
    case unexpectedByte
    /// The input ended where a type was required.
    case unexpectedEnd
    /// The input was empty.
    case emptyInput
    /// A single type was expected but more bytes follow it.
    case trailingBytes
    /// `{…` without its closing `}`.
    case unterminatedStructure
    /// `(…` without its closing `)`.
    case unterminatedUnion
    /// `[…` without its closing `]`.
    case unterminatedArray
    /// A `"` without its closing `"`.
    case unterminatedString
    /// `@?<…` without its closing `>`.
    case unterminatedBlockSignature
    /// `[` not followed by an element count.
    case missingArrayCount
    /// A count, width or offset too large for 64 bits.
    case countOverflow
    /// A number with a leading zero where clang never writes one (`[04i]`).
    case invalidNumber
    /// `b` not followed by a valid width or GNU `offset type width` triple, or a width wider
    /// than the declared type (GNU form) or than 128 bits.
    case invalidBitfield
    /// Qualifiers, pointers, arrays or aggregates nested beyond ``ParseOptions/maximumNestingDepth``.
    case nestingTooDeep
    /// A name or class name that is not valid UTF-8.
    case invalidUTF8
    /// Offset digits that cannot be read as offsets consistent with the frame.
    case invalidOffset

    /// What the kind means, in lower-case words: "unterminated structure".
    public var description: String {
      switch self {
      case .unexpectedByte: "unexpected byte"
      case .unexpectedEnd: "unexpected end"
      case .emptyInput: "empty input"
      case .trailingBytes: "trailing bytes"
      case .unterminatedStructure: "unterminated structure"
      case .unterminatedUnion: "unterminated union"
      case .unterminatedArray: "unterminated array"
      case .unterminatedString: "unterminated string"
      case .unterminatedBlockSignature: "unterminated block signature"
      case .missingArrayCount: "missing array count"
      case .countOverflow: "count overflow"
      case .invalidNumber: "invalid number"
      case .invalidBitfield: "invalid bitfield"
      case .nestingTooDeep: "nesting too deep"
      case .invalidUTF8: "invalid UTF-8"
      case .invalidOffset: "invalid offset"
      }
    }
  }
}

/// Options that bound the parser's work on hostile input.
///
///     var options = ParseOptions()
///     options.maximumNestingDepth = 20
///     _ = try TypeEncoding(parsing: "^^^^i", options: options)
public struct ParseOptions: Hashable, Sendable {
  /// The deepest nesting of pointers, arrays, aggregates, qualifiers and nested block
  /// signatures accepted; deeper input fails with ``EncodingError/Kind/nestingTooDeep``.
  public var maximumNestingDepth: Int = 100

  /// Creates the default options.
  public init() {}

  /// Creates options with the given depth limit.
  public init(maximumNestingDepth: Int) {
    self.maximumNestingDepth = maximumNestingDepth
  }
}
