// The recursive-descent parser for the type-encoding grammar.
//
// Works on UTF-8 bytes through `Cursor`; every failure is an `EncodingError` with a byte offset;
// recursion is bounded by `ParseOptions.maximumNestingDepth`; numbers are overflow-checked.

extension TypeEncoding {
  /// Parses exactly one type encoding; the whole input must be consumed.
  ///
  ///     let type = try TypeEncoding(parsing: "{CGPoint=dd}")
  ///
  /// - Parameters:
  ///   - input: The encoding, for example `r^{S=i[4c]}`.
  ///   - options: Limits such as the maximum nesting depth.
  /// - Throws: ``EncodingError`` naming the kind and the byte offset of the problem.
  /// - Complexity: O(*n*) in the length of `input`.
  public init(parsing input: String, options: ParseOptions = ParseOptions()) throws(EncodingError) {
    var input = input
    let result: Result<TypeEncoding, EncodingError> = input.withUTF8 { buffer in
      Result { () throws(EncodingError) -> TypeEncoding in
        try TypeEncoding(parsingBytes: buffer, options: options)
      }
    }
    self = try result.get()
  }

  /// Parses exactly one type encoding from UTF-8 bytes, for example a C string from a binary.
  ///
  ///     let type = try TypeEncoding(parsingBytes: buffer)
  ///
  /// - Throws: ``EncodingError``.
  public init(
    parsingBytes bytes: UnsafeBufferPointer<UInt8>, options: ParseOptions = ParseOptions()
  ) throws(EncodingError) {
    var parser = EncodingParser(Cursor(bytes), options: options)
    guard !parser.cursor.isAtEnd else { throw parser.error(.emptyInput, at: 0) }
    self = try parser.parseType()
    if !parser.cursor.isAtEnd { throw parser.error(.trailingBytes, at: parser.cursor.offset) }
  }

  /// Parses one type at the cursor and leaves the cursor after it (swift-binary-parsing style).
  package init(parsing input: inout Cursor, options: ParseOptions = ParseOptions()) throws(EncodingError) {
    var parser = EncodingParser(input, options: options)
    self = try parser.parseType()
    input = parser.cursor
  }
}

/// The parser state: a cursor, the options and the current nesting depth.
struct EncodingParser {
  var cursor: Cursor
  let options: ParseOptions
  var depth = 0

  init(_ cursor: Cursor, options: ParseOptions) {
    self.cursor = cursor
    self.options = options
  }

  func error(_ kind: EncodingError.Kind, at offset: Int) -> EncodingError {
    EncodingError(
      kind: kind, offset: offset,
      input: String(decoding: cursor.bytes(0..<cursor.count), as: UTF8.self),
      byte: cursor.peek(ahead: offset - cursor.offset))
  }

  mutating func enter(at offset: Int) throws(EncodingError) {
    depth += 1
    if depth > options.maximumNestingDepth { throw error(.nestingTooDeep, at: offset) }
  }

  mutating func leave() { depth -= 1 }

  /// Parses one type. `fieldTerminator` is the closing byte of an aggregate whose fields carry
  /// names; it resolves whether `@"x"` is a class name or the next field's name.
  mutating func parseType(fieldTerminator: UInt8? = nil) throws(EncodingError) -> TypeEncoding {
    let start = cursor.offset
    guard let byte = cursor.peek() else { throw error(.unexpectedEnd, at: start) }
    switch byte {
    case "r", "n", "N", "o", "O", "R", "V":
      cursor.advance()
      let qualifier = TypeQualifier(rawValue: byte)!  // the case list above matches the enum
      try enter(at: start)
      let inner = try parseType(fieldTerminator: fieldTerminator)
      leave()
      return .qualified(qualifier, inner)
    case "^":
      cursor.advance()
      try enter(at: start)
      let pointee = try parseType()
      leave()
      return .pointer(pointee)
    case "j", "A":
      cursor.advance()
      try enter(at: start)
      let inner = try parseType()
      leave()
      return byte == "j" ? .complex(inner) : .atomic(inner)
    case "[":
      return try parseArray()
    case "{", "(":
      return try parseAggregate()
    case "b":
      return try parseBitfield()
    case "@":
      return try parseObject(fieldTerminator: fieldTerminator)
    default:
      guard let code = TypeCode(rawValue: byte) else { throw error(.unexpectedByte, at: start) }
      cursor.advance()
      return .primitive(code)
    }
  }

  /// Reads an unsigned decimal number; `nil` when no digit is next.
  mutating func parseNumber(allowLeadingZero: Bool = false) throws(EncodingError) -> UInt64? {
    let start = cursor.offset
    guard let first = cursor.peek(), isDigit(first) else { return nil }
    var value: UInt64 = 0
    let range = cursor.advance(while: isDigit)
    if !allowLeadingZero, first == "0", range.count > 1 { throw error(.invalidNumber, at: start) }
    for byte in cursor.bytes(range) {
      let (times10, o1) = value.multipliedReportingOverflow(by: 10)
      let (sum, o2) = times10.addingReportingOverflow(UInt64(byte &- 0x30))
      if o1 || o2 { throw error(.countOverflow, at: start) }
      value = sum
    }
    return value
  }

  private mutating func parseArray() throws(EncodingError) -> TypeEncoding {
    let start = cursor.offset
    cursor.advance()
    guard let count = try parseNumber() else {
      if cursor.isAtEnd { throw error(.unterminatedArray, at: start) }
      throw error(.missingArrayCount, at: cursor.offset)
    }
    if cursor.isAtEnd { throw error(.unterminatedArray, at: start) }
    try enter(at: start)
    let element = try parseType()
    leave()
    guard let close = cursor.peek() else { throw error(.unterminatedArray, at: start) }
    guard close == "]" else { throw error(.unexpectedByte, at: cursor.offset) }
    cursor.advance()
    return .array(count: count, element: element)
  }

  private mutating func parseAggregate() throws(EncodingError) -> TypeEncoding {
    let start = cursor.offset
    let header = try scanAggregateHeader()
    defer { leave() }
    let name = try makeString(header.name)
    guard header.hasFields else {
      return header.isUnion ? .union(name: name, fields: nil) : .structure(name: name, fields: nil)
    }
    var fields: [TypeEncoding.Field] = []
    while let nameRange = try scanFieldStart(header, start: start) {
      let fieldName = try nameRange.map { (range) throws(EncodingError) in try makeString(range) }
      let type = try parseType(fieldTerminator: fieldName == nil ? nil : header.close)
      // Room for a typical structure at once, instead of growing 1, 2, 4.
      if fields.isEmpty { fields.reserveCapacity(4) }
      fields.append(TypeEncoding.Field(name: fieldName, type: type))
    }
    return header.isUnion ? .union(name: name, fields: fields) : .structure(name: name, fields: fields)
  }

  /// What `{name=` or `(name=` says.
  struct AggregateHeader {
    var isUnion: Bool
    var close: UInt8
    var name: Range<Int>
    var hasFields: Bool
  }

  /// Reads `{name=`, `(name=`, `{name}` or `(name)` at the cursor and enters one nesting level
  /// (the caller calls `leave()`).
  mutating func scanAggregateHeader() throws(EncodingError) -> AggregateHeader {
    let start = cursor.offset
    let isUnion = cursor.advance() == "("
    let close: UInt8 = isUnion ? 0x29 : 0x7D
    try enter(at: start)
    let nameRange = cursor.advance(while: { $0 != 0x3D && $0 != close })
    guard let next = cursor.advance() else {
      throw error(isUnion ? .unterminatedUnion : .unterminatedStructure, at: start)
    }
    return AggregateHeader(isUnion: isUnion, close: close, name: nameRange, hasFields: next == "=")
  }

  /// Before each field of an aggregate opened at `start`: consumes the closing byte and returns
  /// `nil` at the end, or returns the range of the field's quoted name (`.some(nil)` if none).
  mutating func scanFieldStart(_ header: AggregateHeader, start: Int) throws(EncodingError) -> Range<Int>?? {
    guard let byte = cursor.peek() else { throw unterminated(header, at: start) }
    if byte == header.close {
      cursor.advance()
      return nil
    }
    guard byte == "\"" else { return .some(nil) }
    let quote = cursor.offset
    cursor.advance()
    let range = cursor.advance(while: { $0 != "\"" })
    guard cursor.advance() != nil else { throw error(.unterminatedString, at: quote) }
    if cursor.isAtEnd { throw unterminated(header, at: start) }
    return .some(range)
  }

  private func unterminated(_ header: AggregateHeader, at start: Int) -> EncodingError {
    error(header.isUnion ? .unterminatedUnion : .unterminatedStructure, at: start)
  }

  private mutating func parseBitfield() throws(EncodingError) -> TypeEncoding {
    .bitfield(try scanBitfield())
  }

  /// Reads `b<width>` or `b<offset><type><width>` at the cursor.
  mutating func scanBitfield() throws(EncodingError) -> TypeEncoding.Bitfield {
    cursor.advance()
    let numberStart = cursor.offset
    guard let first = try parseNumber() else {
      if cursor.isAtEnd { throw error(.unexpectedEnd, at: numberStart) }
      throw error(.invalidBitfield, at: numberStart)
    }
    // GNU form: b<offset><integer type code><width>.
    if let code = cursor.peek(), let next = cursor.peek(ahead: 1), isDigit(next),
      let type = TypeCode(rawValue: code), type.isIntegral
    {
      cursor.advance()
      let widthStart = cursor.offset
      guard let width = try parseNumber() else { throw error(.invalidBitfield, at: cursor.offset) }
      // C forbids a width beyond the declared type's.
      guard width <= Self.maximumBitfieldWidth(of: type) else { throw error(.invalidBitfield, at: widthStart) }
      return .init(bitOffset: first, declaredType: type, width: width)
    }
    // No bitfield is wider than the widest integer type, `__int128`.
    guard first <= 128 else { throw error(.invalidBitfield, at: numberStart) }
    return .init(width: first)
  }

  /// The widest bitfield of an integral type in bits. `l`/`L` allow 64: GCC writes `l` for an
  /// LP64 `long`, where clang would write `q`.
  static func maximumBitfieldWidth(of type: TypeCode) -> UInt64 {
    switch type {
    case .char, .unsignedChar, .bool: 8
    case .short, .unsignedShort: 16
    case .int, .unsignedInt: 32
    case .long, .unsignedLong, .longLong, .unsignedLongLong: 64
    default: 128
    }
  }

  private mutating func parseObject(fieldTerminator: UInt8?) throws(EncodingError) -> TypeEncoding {
    let start = cursor.offset
    switch try scanObject(fieldTerminator: fieldTerminator) {
    case .object(let className):
      return .object(className: try className.map { (range) throws(EncodingError) in try makeString(range) })
    case .block(hasSignature: false):
      return .block(signature: nil)
    case .block(hasSignature: true):
      let open = cursor.offset - 1
      try enter(at: start)
      defer { leave() }
      var types: [TypeEncoding] = []
      while try scanNestedSignatureElement(open: open, isEmpty: types.isEmpty) {
        types.append(try parseType())
      }
      return .block(signature: types)
    }
  }

  /// What follows `@`.
  enum ObjectToken {
    /// `@` or `@"name"` (the range of the name).
    case object(className: Range<Int>?)
    /// `@?`, and whether `<` (a nested signature) follows; the cursor is after the `<`.
    case block(hasSignature: Bool)
  }

  /// Reads `@`, `@"Class"`, `@?` or `@?<` at the cursor.
  mutating func scanObject(fieldTerminator: UInt8?) throws(EncodingError) -> ObjectToken {
    cursor.advance()
    switch cursor.peek() {
    case "?":
      cursor.advance()
      guard cursor.peek() == "<" else { return .block(hasSignature: false) }
      cursor.advance()
      return .block(hasSignature: true)
    case "\"":
      let quote = cursor.offset
      var probe = cursor
      probe.advance()
      let range = probe.advance(while: { $0 != "\"" })
      guard probe.advance() != nil else {
        // In a named-field aggregate an unterminated quote is still an error either way.
        throw error(.unterminatedString, at: quote)
      }
      if let terminator = fieldTerminator {
        // `{S="a"@"b"i}`: "b" names the next field unless a name or the end follows it.
        let after = probe.peek()
        guard after == nil || after == "\"" || after == terminator else { return .object(className: nil) }
      }
      cursor = probe
      return .object(className: range)
    default:
      return .object(className: nil)
    }
  }

  /// Inside `@?<…>` opened at `open`: whether another type follows (`false` after consuming `>`).
  mutating func scanNestedSignatureElement(open: Int, isEmpty: Bool) throws(EncodingError) -> Bool {
    guard let byte = cursor.peek() else { throw error(.unterminatedBlockSignature, at: open) }
    if byte == ">", !isEmpty {
      cursor.advance()
      return false
    }
    return true
  }

  private func makeString(_ range: Range<Int>) throws(EncodingError) -> String {
    let bytes = cursor.bytes(range)
    // ASCII (every name clang writes) needs no validation: `String(validating:)` instantiates
    // generic metadata on each call, which cost more than the rest of parsing a name.
    if isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
    guard let string = String(validating: bytes, as: UTF8.self) else {
      var offset = range.lowerBound
      // Point at the first byte that starts an invalid sequence (cheap approximation: first non-ASCII).
      for byte in bytes {
        if byte >= 0x80 { break }
        offset += 1
      }
      throw error(.invalidUTF8, at: offset)
    }
    return string
  }
}

/// Whether every byte is below 0x80, eight at a time.
@inline(__always)
func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  guard let base = bytes.baseAddress else { return true }
  let raw = UnsafeRawPointer(base)
  var index = 0
  var bits: UInt64 = 0
  while index &+ 8 <= bytes.count {
    bits |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
    index &+= 8
  }
  while index < bytes.count {
    bits |= UInt64(base[index])
    index &+= 1
  }
  return bits & 0x8080_8080_8080_8080 == 0
}
