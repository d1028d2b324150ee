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
    let hex = String(byte, radix: 16)
    return "0x" + (hex.count == 1 ? "0" + hex : hex)
  }
}

extension EncodingError {
  /// The kind of an ``EncodingError``; an extensible set of static values.
  ///
  ///     if error.kind == .nestingTooDeep { … }
  public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The stable identifier of the kind, such as `"unexpectedByte"`.
    public var rawValue: String
    /// Creates a kind from its identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A byte that cannot start or continue the construct being parsed.
    public static var unexpectedByte: Kind { Kind(rawValue: "unexpectedByte") }
    /// The input ended where a type was required.
    public static var unexpectedEnd: Kind { Kind(rawValue: "unexpectedEnd") }
    /// The input was empty.
    public static var emptyInput: Kind { Kind(rawValue: "emptyInput") }
    /// A single type was expected but more bytes follow it.
    public static var trailingBytes: Kind { Kind(rawValue: "trailingBytes") }
    /// `{…` without its closing `}`.
    public static var unterminatedStructure: Kind { Kind(rawValue: "unterminatedStructure") }
    /// `(…` without its closing `)`.
    public static var unterminatedUnion: Kind { Kind(rawValue: "unterminatedUnion") }
    /// `[…` without its closing `]`.
    public static var unterminatedArray: Kind { Kind(rawValue: "unterminatedArray") }
    /// A `"` without its closing `"`.
    public static var unterminatedString: Kind { Kind(rawValue: "unterminatedString") }
    /// `@?<…` without its closing `>`.
    public static var unterminatedBlockSignature: Kind { Kind(rawValue: "unterminatedBlockSignature") }
    /// `[` not followed by an element count.
    public static var missingArrayCount: Kind { Kind(rawValue: "missingArrayCount") }
    /// A count, width or offset too large for 64 bits.
    public static var countOverflow: Kind { Kind(rawValue: "countOverflow") }
    /// A number with a leading zero where clang never writes one (`[04i]`).
    public static var invalidNumber: Kind { Kind(rawValue: "invalidNumber") }
    /// `b` not followed by a valid width or GNU `offset type width` triple, or a width wider
    /// than the declared type (GNU form) or than 128 bits.
    public static var invalidBitfield: Kind { Kind(rawValue: "invalidBitfield") }
    /// Qualifiers, pointers, arrays or aggregates nested beyond ``ParseOptions/maximumNestingDepth``.
    public static var nestingTooDeep: Kind { Kind(rawValue: "nestingTooDeep") }
    /// A name or class name that is not valid UTF-8.
    public static var invalidUTF8: Kind { Kind(rawValue: "invalidUTF8") }
    /// Offset digits that cannot be read as offsets consistent with the frame.
    public static var invalidOffset: Kind { Kind(rawValue: "invalidOffset") }

    /// Lower-case words: "unterminated structure".
    public var description: String {
      var words = ""
      for scalar in rawValue.unicodeScalars {
        if scalar.properties.isUppercase {
          words += " " + String(scalar).lowercased()
        } else {
          words.unicodeScalars.append(scalar)
        }
      }
      return words.replacingUTF8Acronym()
    }
  }
}

extension String {
  fileprivate func replacingUTF8Acronym() -> String {
    // "invalid u t f8" reads badly; the only acronym in the catalog.
    self == "invalid u t f8" ? "invalid UTF-8" : self
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
