import BlockSignature

extension ObjCProtocolDescription {
  /// Why a text form does not read: the kind of problem, the line (from 1) and what is wrong
  /// with it.
  public struct ParsingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the text.
    public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
      /// No data model was given and none describes this machine.
      case unknownDataModel
      /// The `@protocol NAME <ADOPTED, …>` line is missing or does not read.
      case invalidProtocolLine
      /// A method line that does not read: its sign, selector, requirement or trailing words.
      case invalidMethod
      /// A method's signature that does not parse, is not in method form, or does not fit
      /// its selector.
      case invalidSignature
      /// A method listed twice.
      case duplicateMethod
      /// The `@end` line is missing.
      case missingEnd
      /// Text after the `@end` line.
      case textAfterEnd

      /// What the kind means, in a few words.
      public var description: String {
        switch self {
        case .unknownDataModel: "unknown data model"
        case .invalidProtocolLine: "invalid protocol line"
        case .invalidMethod: "invalid method line"
        case .invalidSignature: "invalid method signature"
        case .duplicateMethod: "duplicate method"
        case .missingEnd: "missing @end"
        case .textAfterEnd: "text after @end"
        }
      }
    }

    /// What is wrong.
    public var kind: Kind
    /// The line, counted from 1 (0: the text as a whole).
    public var line: Int
    /// What is wrong, in lower case.
    public var message: String

    /// Creates an error.
    public init(kind: Kind, line: Int, message: String) {
      self.kind = kind
      self.line = line
      self.message = message
    }

    /// The line, then the message: `line 3: 'x' is not a selector`.
    public var description: String { line > 0 ? "line \(line): \(message)" : message }

    /// Where the problem is: the whole of ``line`` of the text form; nil for the text as a whole.
    public var location: InputLocation? { line > 0 ? InputLocation(.textForm, line: line, bytes: 0..<0) : nil }
  }

  /// Reads the text form ``text`` writes: `@protocol NAME <ADOPTED, …>`, one line per method
  /// (`- SELECTOR required|optional SIGNATURE [variadic] [from ORIGIN]`), then `@end`. A `#`
  /// standing alone starts a comment, to the end of the line; blank lines are skipped. The
  /// C spellings of the types (kept in comments) are not read: ``Method/returnType`` and
  /// ``Method/parameterTypes`` are `nil`.
  ///
  ///     let text = """
  ///       @protocol Counter
  ///       - add:  required  v20@0:8i16
  ///       + shared  optional  @16@0:8
  ///       @end
  ///       """
  ///     let counter = try ObjCProtocolDescription(parsing: text)
  ///     counter.methods[1].isInstanceMethod  // false
  ///
  /// - Parameters:
  ///   - text: The text form.
  ///   - model: The data model the signatures are laid out for (this machine's by default, as
  ///     for every description used for live calls).
  /// - Throws: ``ParsingError`` for a line that is not a method, a signature that is not in
  ///   method form, or a method listed twice; at line 0 when `model` is nil.
  public init(parsing text: String, model: DataModel? = .host) throws(ParsingError) {
    guard let model else {
      throw ParsingError(kind: .unknownDataModel, line: 0, message: "no data model describes this machine: pass one")
    }
    var name: String?
    var adopted: [String] = []
    var methods: [Method] = []
    var ended = false
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let number = index + 1
      var tokens = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
      if let comment = tokens.firstIndex(of: "#") { tokens.removeSubrange(comment...) }
      guard let first = tokens.first else { continue }
      if ended { throw ParsingError(kind: .textAfterEnd, line: number, message: "text after @end") }
      guard let protocolName = name else {
        guard first == "@protocol", tokens.count >= 2 else {
          throw ParsingError(
            kind: .invalidProtocolLine, line: number, message: "expected '@protocol NAME', found '\(first)'")
        }
        name = tokens[1]
        adopted = try Self.adoptedList(tokens.dropFirst(2).joined(separator: " "), line: number)
        continue
      }
      if tokens == ["@end"] {
        ended = true
        continue
      }
      let method = try Self.method(tokens, protocolName: protocolName, model: model, line: number)
      if methods.contains(where: { $0.selector == method.selector && $0.isInstanceMethod == method.isInstanceMethod }) {
        throw ParsingError(
          kind: .duplicateMethod, line: number, message: "method '\(tokens[0]) \(method.selector)' is listed twice")
      }
      methods.append(method)
    }
    guard let name else { throw ParsingError(kind: .invalidProtocolLine, line: 0, message: "no '@protocol NAME' line") }
    guard ended else { throw ParsingError(kind: .missingEnd, line: 0, message: "no '@end' line") }
    self.init(name: name, adoptedProtocols: adopted, methods: methods)
  }

  /// `<A, B>` (or nothing) as `["A", "B"]`.
  static func adoptedList(_ text: String, line: Int) throws(ParsingError) -> [String] {
    guard !text.isEmpty else { return [] }
    guard text.hasPrefix("<"), text.hasSuffix(">") else {
      throw ParsingError(
        kind: .invalidProtocolLine, line: line, message: "expected '<PROTOCOL, …>' after the name, found '\(text)'")
    }
    let names = text.dropFirst().dropLast().split(separator: ",").map { $0.trimmingSpaces }
    guard names.allSatisfy(ClangSession.isIdentifier) else {
      throw ParsingError(kind: .invalidProtocolLine, line: line, message: "'\(text)' is not a list of protocol names")
    }
    return names
  }

  /// One method line, split into tokens, comment removed.
  static func method(_ tokens: [String], protocolName: String, model: DataModel, line: Int) throws(ParsingError)
    -> Method
  {
    guard tokens.count >= 4, tokens[0] == "-" || tokens[0] == "+" else {
      throw ParsingError(
        kind: .invalidMethod, line: line,
        message: "expected '- SELECTOR required|optional SIGNATURE', found '\(tokens.joined(separator: " "))'"
      )
    }
    let selector = tokens[1]
    guard isSelector(selector) else {
      throw ParsingError(kind: .invalidMethod, line: line, message: "'\(selector)' is not a selector")
    }
    guard tokens[2] == "required" || tokens[2] == "optional" else {
      throw ParsingError(
        kind: .invalidMethod, line: line, message: "expected 'required' or 'optional', found '\(tokens[2])'")
    }
    let signature: MethodSignature
    do {
      signature = try MethodSignature(parsing: tokens[3], model: model)
    } catch {
      throw ParsingError(kind: .invalidSignature, line: line, message: "'\(tokens[3])': \(error)")
    }
    guard signature.kind == .method else {
      throw ParsingError(
        kind: .invalidSignature, line: line, message: "'\(tokens[3])' is not a method signature (self and _cmd first)")
    }
    let colons = selector.utf8.filter { $0 == UInt8(ascii: ":") }.count
    guard signature.numberOfArguments == colons + 2 else {
      throw ParsingError(
        kind: .invalidSignature, line: line,
        message: "'\(selector)' takes \(colons) arguments, '\(tokens[3])' has \(signature.numberOfArguments - 2)")
    }
    var isVariadic = false
    var origin = protocolName
    var rest = tokens[4...]
    while let word = rest.first {
      rest = rest.dropFirst()
      if word == "variadic", !isVariadic {
        isVariadic = true
      } else if word == "from", let declaring = rest.first, ClangSession.isIdentifier(declaring) {
        origin = declaring
        rest = rest.dropFirst()
      } else {
        throw ParsingError(kind: .invalidMethod, line: line, message: "unexpected '\(word)' after the signature")
      }
    }
    return Method(
      selector: selector, isInstanceMethod: tokens[0] == "-", isRequired: tokens[2] == "required",
      signature: signature, isVariadic: isVariadic, origin: origin)
  }

  /// Whether `text` is a selector: an identifier (`count`), or identifiers each followed by a
  /// colon, the identifiers maybe empty after the first (`parser:foundCharacters:`, `a::`).
  static func isSelector(_ text: String) -> Bool {
    guard !text.isEmpty else { return false }
    guard text.hasSuffix(":") else { return ClangSession.isIdentifier(text) }
    let parts = text.dropLast().split(separator: ":", omittingEmptySubsequences: false)
    guard let first = parts.first, ClangSession.isIdentifier(String(first)) else { return false }
    return parts.dropFirst().allSatisfy { $0.isEmpty || ClangSession.isIdentifier(String($0)) }
  }
}

extension Substring {
  /// The text without spaces at either end.
  var trimmingSpaces: String {
    String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
  }
}
