import BlockSignature
import Foundation

/// A block parameter of an Objective-C method as a header declares it, with the signature clang
/// writes for a block literal of its type: what the runtime's `@?` for that parameter leaves out.
public struct ObjCBlockParameter: Hashable, Sendable {
  /// The method's selector.
  public var selector: String
  /// Whether the method is an instance method (`-`), not a class method (`+`).
  public var isInstanceMethod: Bool
  /// The parameter's position among the method's explicit parameters, from 0.
  public var index: Int
  /// The parameter's type as the header spells it (`NSComparator`).
  public var type: String
  /// The signature clang writes for a block of that type (`q24@?0@8@16`).
  public var signature: MethodSignature

  /// Creates a description of a block parameter.
  public init(selector: String, isInstanceMethod: Bool, index: Int, type: String, signature: MethodSignature) {
    self.selector = selector
    self.isInstanceMethod = isInstanceMethod
    self.index = index
    self.type = type
    self.signature = signature
  }
}

extension HeaderReader {
  /// The block parameters of the methods `header` declares for the class `className`, in its
  /// interface and its categories, each with the signature clang writes for its type
  /// (``blockSignature(ofType:header:)``), in declaration order.
  ///
  ///     let reader = HeaderReader(arguments: (HeaderReader.gnustepArguments() ?? []) + ["-I", "ObjCSupport/include"])
  ///     let parameters = try reader.objcBlockParameters(
  ///       header: "/usr/include/GNUstep/Foundation/Foundation.h", className: "NSArray")
  ///     parameters.first { $0.selector == "sortedArrayUsingComparator:" }?.signature.description
  ///     // q24@?0@8@16
  ///
  /// - Parameters:
  ///   - header: The header's path.
  ///   - className: The class.
  /// - Returns: One entry per block parameter; none when no method takes a block.
  /// - Throws: ``HeaderReaderError``: ``HeaderReaderError/Kind/notFound`` when the header
  ///   declares no interface or category of the class; as ``blockSignature(ofType:header:)`` for
  ///   a block type clang writes no signature for.
  public func objcBlockParameters(header: String, className: String) throws(HeaderReaderError)
    -> [ObjCBlockParameter]
  {
    guard ClangSession.isIdentifier(className) else {
      throw HeaderReaderError(.invalidName, "'\(className)' is not an Objective-C class name")
    }
    let declared = try withSession(header: header, prefix: "blocksig-objc-class") {
      session throws(HeaderReaderError) in try session.blockParameterTypes(ofClass: className)
    }
    var signatures: [String: MethodSignature] = [:]
    var parameters: [ObjCBlockParameter] = []
    for entry in declared {
      let signature: MethodSignature
      if let known = signatures[entry.type] {
        signature = known
      } else {
        signature = try blockSignature(ofType: entry.type, header: header)
        signatures[entry.type] = signature
      }
      parameters.append(
        ObjCBlockParameter(
          selector: entry.selector, isInstanceMethod: entry.isInstanceMethod, index: entry.index, type: entry.type,
          signature: signature))
    }
    return parameters
  }
}

extension ClangSession {
  /// A method parameter of block type, as clang's textual AST spells it.
  struct DeclaredBlockParameter: Hashable {
    var selector: String
    var isInstanceMethod: Bool
    var index: Int
    var type: String
  }

  /// The block parameters of the methods declared for `className` (its interface, and its
  /// categories, which clang dumps as `NAME::selector` or within `NAME`), first declaration of
  /// each method only.
  func blockParameterTypes(ofClass className: String) throws(HeaderReaderError) -> [DeclaredBlockParameter] {
    let file = try write(Self.includeLine(header) + "\n", to: "class.m")
    let output = try run(
      ["-fsyntax-only", "-fblocks", "-w", "-Xclang", "-ast-dump", "-Xclang", "-ast-dump-filter=\(className)"]
        + objcArguments + ["-x", "objective-c", file])
    var found = false
    var seen: Set<String> = []
    var parameters: [DeclaredBlockParameter] = []
    var current: (method: ASTProtocol.Method, depth: Int, index: Int, isNew: Bool)?
    var inClass = false
    for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("Dumping ") {
        inClass = line == "Dumping \(className):" || line.hasPrefix("Dumping \(className)::")
        current = nil
        continue
      }
      guard inClass, !line.isEmpty else { continue }
      let tree = line.prefix { $0 == "|" || $0 == " " || $0 == "`" || $0 == "-" }
      let depth = tree.count / 2
      let text = String(line.dropFirst(tree.count))
      if text.hasPrefix("ObjCInterfaceDecl ") || text.hasPrefix("ObjCCategoryDecl ") { found = true }
      if text.hasPrefix("ObjCMethodDecl ") {
        found = true
        let method = try Self.method(text, protocolName: className)
        let key = "\(method.isInstanceMethod ? "-" : "+")\(method.selector)"
        current = (method, depth, 0, seen.insert(key).inserted)
      } else if let method = current, depth == method.depth + 1, text.hasPrefix("ParmVarDecl ") {
        if method.isNew, Self.isBlockType(text), let type = Self.quoted(in: text) {
          parameters.append(
            DeclaredBlockParameter(
              selector: method.method.selector, isInstanceMethod: method.method.isInstanceMethod, index: method.index,
              type: type))
        }
        current?.index += 1
      } else if let method = current, depth <= method.depth {
        current = nil
      }
    }
    guard found else {
      throw HeaderReaderError(.notFound, "\(header) declares no interface or category of class '\(className)'")
    }
    return parameters
  }

  /// Whether a dumped `ParmVarDecl` line's type, or its desugared form, is a block pointer
  /// (`R (^)(…)`; a pointer to a block, `R (^*)(…)`, is not).
  static func isBlockType(_ text: String) -> Bool {
    guard let open = text.firstIndex(of: "'") else { return false }
    return text[open...].contains(" (^)(")
  }
}
