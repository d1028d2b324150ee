import BlockSignature

/// An Objective-C protocol as a header declares it: each method's selector, whether it is an
/// instance or a class method, whether it is `@required` or `@optional`, and its method type
/// encoding as clang writes it (`v48@0:8@16@24@32@40@48`).
///
/// ``HeaderReader/objcProtocol(header:named:includingAdopted:)`` reads one with clang, which
/// is where the types of `@optional` methods must come from on GCC's runtime: it records none.
///
///     let reader = HeaderReader(arguments: HeaderReader.gnustepArguments() ?? [])
///     let delegate = try reader.objcProtocol(
///       header: "/usr/include/GNUstep/Foundation/NSXMLParser.h", named: "NSXMLParserDelegate")
///     let method = delegate.method(selector: "parser:foundCharacters:")
///     method?.signature.description  // v32@0:8@16@24
///     method?.isRequired              // false
///     print(delegate.text)            // one line per method; ObjCProtocolDescription(parsing:) reads it
public struct ObjCProtocolDescription: Hashable, Sendable, CustomStringConvertible {
  /// One method of the protocol.
  public struct Method: Hashable, Sendable {
    /// The selector's name: `parser:didStartElement:namespaceURI:qualifiedName:attributes:`.
    public var selector: String
    /// An instance method (`-`), as opposed to a class method (`+`).
    public var isInstanceMethod: Bool
    /// Declared under `@required` (the default), as opposed to `@optional`.
    public var isRequired: Bool
    /// The method type encoding in method form (`self` and `_cmd` first), with clang's
    /// offsets. For a variadic method, the fixed part (what clang writes).
    public var signature: MethodSignature
    /// The method takes more arguments after its fixed ones (`...`).
    public var isVariadic: Bool
    /// The protocol that declares the method: this one, or one it adopts.
    public var origin: String
    /// The return type as clang spells it (`NSData *`); `nil` when read from the text form.
    public var returnType: String?
    /// The type of each explicit parameter as clang spells it; `nil` when read from the text
    /// form.
    public var parameterTypes: [String]?

    /// A method with these properties.
    public init(
      selector: String, isInstanceMethod: Bool, isRequired: Bool, signature: MethodSignature,
      isVariadic: Bool = false, origin: String, returnType: String? = nil, parameterTypes: [String]? = nil
    ) {
      self.selector = selector
      self.isInstanceMethod = isInstanceMethod
      self.isRequired = isRequired
      self.signature = signature
      self.isVariadic = isVariadic
      self.origin = origin
      self.returnType = returnType
      self.parameterTypes = parameterTypes
    }

    /// The method as Objective-C declares it, parameter names left out:
    /// `- (void)parser:(NSXMLParser *) foundCharacters:(NSString *)`; `nil` without the types.
    public var declaration: String? {
      guard let returnType, let parameterTypes else { return nil }
      let sign = isInstanceMethod ? "- " : "+ "
      let parts = selector.split(separator: ":", omittingEmptySubsequences: false)
      guard parameterTypes.count == parts.count - 1 else { return nil }
      if parameterTypes.isEmpty { return "\(sign)(\(returnType))\(selector)" }
      let pieces = parameterTypes.enumerated().map { "\(parts[$0]):(\($1))" }
      return sign + "(\(returnType))" + pieces.joined(separator: " ") + (isVariadic ? ", ..." : "")
    }
  }

  /// The protocol's name.
  public var name: String
  /// The protocols it adopts (`<NSObject>`), as declared.
  public var adoptedProtocols: [String]
  /// The methods, in declaration order; with adopted protocols included, theirs follow.
  public var methods: [Method]

  /// A protocol with these methods.
  public init(name: String, adoptedProtocols: [String] = [], methods: [Method]) {
    self.name = name
    self.adoptedProtocols = adoptedProtocols
    self.methods = methods
  }

  /// The method with `selector`, an instance method before a class method of the same name.
  public func method(selector: String, isInstanceMethod: Bool? = nil) -> Method? {
    let matches = methods.filter { $0.selector == selector }
    if let isInstanceMethod { return matches.first { $0.isInstanceMethod == isInstanceMethod } }
    return matches.first { $0.isInstanceMethod } ?? matches.first
  }

  /// The text form, as ``text``.
  public var description: String { text }

  /// The text form ``init(parsing:model:)`` reads: `@protocol NAME <ADOPTED>`, one line per
  /// method, then `@end`. A method line is its kind (`-` or `+`), selector, `required` or
  /// `optional`, and signature, then `variadic` and `from ORIGIN` where they apply; the
  /// Objective-C declaration follows as a comment.
  ///
  ///     @protocol NSXMLParserDelegate <NSObject>
  ///     - parser:foundCharacters:  optional  v32@0:8@16@24  # - (void)parser:(NSXMLParser *) foundCharacters:(NSString *)
  ///     @end
  public var text: String {
    let adopted = adoptedProtocols.isEmpty ? "" : " <\(adoptedProtocols.joined(separator: ", "))>"
    let selectorWidth = (methods.map(\.selector.utf8.count).max() ?? 0) + 2
    let signatureWidth = (methods.map(\.signature.description.utf8.count).max() ?? 0) + 2
    var lines = ["@protocol \(name)\(adopted)"]
    for method in methods {
      var line = (method.isInstanceMethod ? "- " : "+ ") + Self.padded(method.selector, selectorWidth)
      line += method.isRequired ? "required  " : "optional  "
      var extras: [String] = []
      if method.isVariadic { extras.append("variadic") }
      if method.origin != name { extras.append("from \(method.origin)") }
      let declaration = method.declaration.map { "# " + $0 }
      if extras.isEmpty, declaration == nil {
        line += method.signature.description
      } else {
        line += Self.padded(method.signature.description, signatureWidth)
        line += (extras + (declaration.map { [$0] } ?? [])).joined(separator: "  ")
      }
      lines.append(line)
    }
    lines.append("@end")
    return lines.joined(separator: "\n") + "\n"
  }

  static func padded(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(width - text.utf8.count, 1))
  }
}
