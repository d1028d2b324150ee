// Reading the C-representable subset of Swift function types, for `SwiftFunctionType`.

/// A recursive-descent reader of the Swift type subset, over UTF-8 bytes.
struct SwiftTypeParser {
  let bytes: UnsafeBufferPointer<UInt8>
  let source: String
  let model: DataModel
  var position = 0
  var depth = 0
  let maximumDepth = ParseOptions().maximumNestingDepth

  init(bytes: UnsafeBufferPointer<UInt8>, source: String, model: DataModel) {
    self.bytes = bytes
    self.source = source
    self.model = model
  }

  /// A mapped type: its encoding without a const marker, and whether its innermost pointee is
  /// const (clang then writes `r` in front of the whole parameter).
  struct Mapped {
    var encoding: TypeEncoding
    var innermostConst: Bool
    var isOptionalAllowed: Bool
    var isVoid: Bool = false
    /// A Swift closure (no `@convention`), a block only where Swift bridges it.
    var isPlainClosure: Bool = false

    var topLevel: TypeEncoding { innermostConst ? .qualified(.const, encoding) : encoding }
  }

  func error(_ kind: SwiftTypeError.Kind, _ message: String, at offset: Int? = nil) -> SwiftTypeError {
    SwiftTypeError(kind: kind, offset: offset ?? position, input: source, message: message)
  }

  /// A Swift closure where Swift does not pass it as a block (inside another type).
  func closureError(at offset: Int) -> SwiftTypeError {
    error(.notRepresentable, "a Swift closure has no C encoding; use @convention(block) or @convention(c)", at: offset)
  }

  func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

  mutating func skipSpaces() {
    while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
  }

  mutating func consume(_ text: StaticString) -> Bool {
    skipSpaces()
    let count = text.utf8CodeUnitCount
    guard position + count <= bytes.count else { return false }
    for index in 0..<count where bytes[position + index] != text.utf8Start[index] { return false }
    // A word must not run on into an identifier.
    if isIdentifierByte(text.utf8Start[count - 1]), position + count < bytes.count,
      isIdentifierByte(bytes[position + count])
    {
      return false
    }
    position += count
    return true
  }

  mutating func expect(_ text: StaticString) throws(SwiftTypeError) {
    guard consume(text) else { throw error(.unexpectedText, "expected '\(text)'") }
  }

  func isIdentifierByte(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
      || byte == 0x5F || byte >= 0x80
  }

  mutating func identifier() -> Range<Int>? {
    skipSpaces()
    let start = position
    while let byte = peek(), isIdentifierByte(byte) { position += 1 }
    guard position > start, !(bytes[start] >= 0x30 && bytes[start] <= 0x39) else {
      position = start
      return nil
    }
    return start..<position
  }

  func text(_ range: Range<Int>) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  mutating func parseTopLevel() throws(SwiftTypeError) -> (TypeEncoding, [TypeEncoding]) {
    _ = skipAttributes()
    let start = position
    guard let function = try parseFunction() else {
      throw error(.unexpectedText, "expected a function type '(…) -> …'", at: start)
    }
    skipSpaces()
    guard position == bytes.count else {
      throw error(.unexpectedText, "unexpected text after the function type")
    }
    return function
  }

  /// `@escaping`, `@Sendable`; a `@convention(…)` is returned.
  mutating func skipAttributes() -> String? {
    var convention: String? = nil
    while true {
      skipSpaces()
      guard peek() == UInt8(ascii: "@") else { return convention }
      let save = position
      position += 1
      guard let name = identifier() else {
        position = save
        return convention
      }
      if text(name) == "convention" {
        guard consume("("), let value = identifier(), consume(")") else {
          position = save
          return convention
        }
        convention = text(value)
      }
    }
  }

  /// The first parameter's type in a list that turned out not to be a function's: where it
  /// started and ended, and the type, so that `(T)` is not parsed again as a parenthesized type
  /// (nested parentheses would cost 2^depth). After a label or `inout` it starts elsewhere than
  /// the parenthesized type would, and is not reused.
  struct FirstElement {
    var start: Int
    var end: Int
    var mapped: Mapped
  }

  /// `(params) [async] [throws] -> result`, or nil (position restored) when the text at the
  /// cursor is not a function type.
  mutating func parseFunction() throws(SwiftTypeError) -> (TypeEncoding, [TypeEncoding])? {
    var first: FirstElement? = nil
    return try parseFunction(first: &first)
  }

  /// `parseFunction()`, also giving the first parameter when it is not a function. Its
  /// parameters and result may be Swift closures, which Swift passes as blocks
  /// (`((Int32) -> Int32)?` is `@?<i@?i>`); `swiftc` accepts them in `@convention(block)` and
  /// `@convention(c)` function types alike, not inside other types (`UnsafePointer<…>`).
  mutating func parseFunction(first: inout FirstElement?) throws(SwiftTypeError) -> (TypeEncoding, [TypeEncoding])? {
    let start = position
    guard consume("(") else { return nil }
    var parameters: [TypeEncoding] = []
    if !consume(")") {
      repeat {
        skipLabels()
        let parameterStart = position
        let isInout = consume("inout")
        let typeStart = position
        let mapped = try parseType(bridgingClosures: true)
        if parameters.isEmpty { first = FirstElement(start: typeStart, end: position, mapped: mapped) }
        if mapped.isVoid { throw error(.notRepresentable, "a parameter cannot be Void", at: parameterStart) }
        parameters.append(isInout ? Self.pointer(to: mapped, isConst: false).topLevel : mapped.topLevel)
      } while consume(",")
      guard consume(")") else {
        throw error(.unexpectedText, "expected ',' or ')' in the parameter list")
      }
    }
    _ = consume("async")
    if consume("throws") {
      throw error(.notRepresentable, "a throwing function has no C representation", at: position - 6)
    }
    guard consume("->") else {
      position = start
      return nil
    }
    let result = try parseType(bridgingClosures: true)
    return (result.topLevel, parameters)
  }

  /// Skips `name:` or `_ name:` before a parameter type.
  mutating func skipLabels() {
    let save = position
    if let _ = identifier() {
      let afterFirst = position
      if consume(":") { return }
      if let _ = identifier(), consume(":") { return }
      position = afterFirst
    }
    position = save
  }

  /// A type; `bridgingClosures` where a Swift closure stands for a block (a block's parameter
  /// or result, or what parentheses around one hold).
  mutating func parseType(bridgingClosures: Bool = false) throws(SwiftTypeError) -> Mapped {
    depth += 1
    defer { depth -= 1 }
    guard depth <= maximumDepth else {
      throw error(.nestingTooDeep, "types nested more than \(maximumDepth) deep")
    }
    let convention = skipAttributes()
    skipSpaces()
    let start = position
    var mapped: Mapped
    if peek() == UInt8(ascii: "(") {
      var first: FirstElement? = nil
      if let (result, parameters) = try parseFunction(first: &first) {
        switch convention {
        case "block",
          nil where bridgingClosures:
          mapped = Mapped(
            encoding: .block(signature: [result, .block(signature: nil)] + parameters), innermostConst: false,
            isOptionalAllowed: true, isPlainClosure: convention == nil)
        case "c":
          mapped = Mapped(
            encoding: .pointer(.primitive(.unknown)), innermostConst: false, isOptionalAllowed: true)
        default:
          throw closureError(at: start)
        }
      } else {
        position = start
        _ = consume("(")
        if consume(")") {
          mapped = Mapped(
            encoding: .primitive(.void), innermostConst: false, isOptionalAllowed: false, isVoid: true)
        } else {
          if let first, first.start == position {
            // Parsed already, from the same place, as the list's first parameter, where a
            // closure is a block: here it may not be.
            if first.mapped.isPlainClosure && !bridgingClosures { throw closureError(at: position) }
            mapped = first.mapped
            position = first.end
          } else {
            mapped = try parseType(bridgingClosures: bridgingClosures)
          }
          guard consume(")") else {
            throw error(.notRepresentable, "a tuple has no C encoding", at: start)
          }
        }
      }
    } else {
      mapped = try parseNamedType()
    }
    // Optionals.
    while true {
      skipSpaces()
      guard let byte = peek(), byte == UInt8(ascii: "?") || byte == UInt8(ascii: "!") else { break }
      guard mapped.isOptionalAllowed else {
        throw error(
          .notRepresentable, "an optional \(TypeEncoding.display(mapped.topLevel)) has no C encoding",
          at: start)
      }
      position += 1
    }
    return mapped
  }

  /// A pointer to `pointee`: `*` for any char, and the const marker taken from the innermost
  /// pointee, as clang writes it (`const char **` is `r^*`, `char *const *` is `^*`).
  static func pointer(to pointee: Mapped, isConst: Bool) -> Mapped {
    if case .primitive(let code) = pointee.encoding, code == .char || code == .unsignedChar {
      return Mapped(encoding: .primitive(.cString), innermostConst: isConst, isOptionalAllowed: true)
    }
    let innermostConst: Bool
    switch pointee.encoding {
    case .pointer, .primitive(.cString): innermostConst = pointee.innermostConst
    default: innermostConst = isConst
    }
    return Mapped(
      encoding: .pointer(pointee.encoding), innermostConst: innermostConst, isOptionalAllowed: true)
  }

  mutating func parseGenericArgument() throws(SwiftTypeError) -> Mapped {
    try expect("<")
    let argument = try parseType()
    try expect(">")
    return argument
  }

  mutating func parseNamedType() throws(SwiftTypeError) -> Mapped {
    let start = position
    guard var name = identifier() else { throw error(.unexpectedText, "expected a type") }
    // Module prefixes: Swift.Int32, Darwin.CInt.
    while consume(".") {
      guard let next = identifier() else { throw error(.unexpectedText, "expected a type name after '.'") }
      name = next
    }
    let word = text(name)
    func scalar(_ code: TypeCode) -> Mapped {
      Mapped(encoding: .primitive(code), innermostConst: false, isOptionalAllowed: false)
    }
    let wideInt: TypeCode = model.pointerSize == 8 ? .longLong : .int
    let wideUInt: TypeCode = model.pointerSize == 8 ? .unsignedLongLong : .unsignedInt
    let long: TypeCode = model.longSize == 8 ? .longLong : .long
    let unsignedLong: TypeCode = model.longSize == 8 ? .unsignedLongLong : .unsignedLong
    let char: TypeCode = model.isCharSigned ? .char : .unsignedChar
    switch word {
    case "Int8", "CSignedChar": return scalar(.char)
    case "Int16", "CShort": return scalar(.short)
    case "Int32", "CInt", "CWideChar": return scalar(.int)
    case "Int64", "CLongLong": return scalar(.longLong)
    case "Int": return scalar(wideInt)
    case "UInt8", "CUnsignedChar": return scalar(.unsignedChar)
    case "UInt16", "CUnsignedShort", "CChar16": return scalar(.unsignedShort)
    case "UInt32", "CUnsignedInt": return scalar(.unsignedInt)
    case "UInt64", "CUnsignedLongLong": return scalar(.unsignedLongLong)
    case "UInt": return scalar(wideUInt)
    case "CChar": return scalar(char)
    case "CLong": return scalar(long)
    case "CUnsignedLong": return scalar(unsignedLong)
    case "Bool", "CBool": return scalar(.bool)
    case "Float", "Float32", "CFloat": return scalar(.float)
    case "Double", "Float64", "CDouble": return scalar(.double)
    case "Float80", "CLongDouble": return scalar(.longDouble)
    case "Float16": return scalar(.otherFloat)
    case "Void":
      return Mapped(
        encoding: .primitive(.void), innermostConst: false, isOptionalAllowed: false, isVoid: true)
    case "UnsafeRawPointer", "UnsafeMutableRawPointer", "OpaquePointer":
      return Mapped(encoding: .pointer(.primitive(.void)), innermostConst: false, isOptionalAllowed: true)
    case "AnyObject":
      return Mapped(encoding: .object(className: nil), innermostConst: false, isOptionalAllowed: true)
    case "AnyClass":
      return Mapped(encoding: .primitive(.class), innermostConst: false, isOptionalAllowed: true)
    case "Optional":
      var inner = try parseGenericArgument()
      guard inner.isOptionalAllowed else {
        throw error(
          .notRepresentable, "an optional \(TypeEncoding.display(inner.topLevel)) has no C encoding",
          at: start)
      }
      inner.isOptionalAllowed = true
      return inner
    case "UnsafePointer", "UnsafeMutablePointer":
      let isConst = word == "UnsafePointer"
      let pointeeStart = position
      let pointee = try parseGenericArgument()
      if pointee.isVoid {
        throw error(.notRepresentable, "use UnsafeRawPointer for a pointer to Void", at: pointeeStart)
      }
      return Self.pointer(to: pointee, isConst: isConst)
    default:
      throw error(.notRepresentable, "type \(word) has no C encoding", at: start)
    }
  }
}
