// clang on a header's Objective-C protocol, three ways: its textual AST dump (the methods and
// the types as clang spells them), the IR it writes for `@protocol(P)` on GCC's runtime (which
// methods are optional, and the method string clang writes), and a probe program that prints
// `@encode` of each type.
//
// The JSON AST dump is not used here: clang 21 crashes dumping a protocol's methods as JSON
// for GCC's and GNUstep's runtimes (it mangles a method that has no class).

import Foundation

/// A protocol as clang's AST declares it.
struct ASTProtocol {
  /// One method: the selector, the kind, and the types as clang spells them.
  struct Method {
    var selector: String
    var isInstanceMethod: Bool
    var returnType: String
    var parameterTypes: [String]
    var isVariadic: Bool
  }

  var name: String
  var adopted: [String]
  var methods: [Method]
}

/// A method of a protocol as clang's IR lists it for GCC's runtime.
struct IRProtocolMethod {
  var selector: String
  var isInstanceMethod: Bool
  var isRequired: Bool
  /// The method type string clang wrote.
  var types: String
}

extension ClangSession {
  /// The arguments every Objective-C run ends with: the caller's, then GCC's runtime (the
  /// layout of the protocol metadata read from the IR), and no colours in what clang prints.
  var objcArguments: [String] { arguments + ["-fobjc-runtime=gcc", "-fno-color-diagnostics"] }

  /// The protocol `name`, from clang's textual AST dump of a file that includes the header.
  func protocolDeclaration(named name: String) throws(HeaderReaderError) -> ASTProtocol {
    let file = try write(Self.includeLine(header) + "\n", to: "declaration.m")
    let output = try run(
      ["-fsyntax-only", "-w", "-Xclang", "-ast-dump", "-Xclang", "-ast-dump-filter=\(name)"] + objcArguments
        + ["-x", "objective-c", file])
    let blocks = Self.dumpedDeclarations(output, named: name).filter {
      $0.first?.text.hasPrefix("ObjCProtocolDecl ") == true
    }
    guard !blocks.isEmpty else {
      throw HeaderReaderError(.notFound, "\(header) declares no protocol named '\(name)'")
    }
    // Each declaration dumps the definition's contents; a forward one (`@protocol P;`) ends
    // where its name is, a definition at its `@end`.
    guard let definition = blocks.last(where: { Self.isDefinition($0[0].text) }) else {
      throw HeaderReaderError(.notFound, "\(header) declares protocol '\(name)' but does not define it")
    }
    return try Self.dumpedProtocol(named: name, from: definition)
  }

  /// Whether a dumped `ObjCProtocolDecl` line is a definition: `… <f.h:2:1, line:3:2> line:2:11
  /// P`, whose source range ends past the name, where a forward declaration's ends at it.
  static func isDefinition(_ line: String) -> Bool {
    let words = line.split(separator: " ")
    guard words.count >= 3 else { return false }
    let location = words[words.count - 2]
    let end = words[words.count - 3]
    return end.hasSuffix(">") && end.dropLast() != location
  }

  /// One line of a textual AST dump: its depth in the tree and its text without the tree.
  struct DumpLine {
    var depth: Int
    var text: String
  }

  /// The dump's declarations named `name` (`Dumping NAME:` blocks), each as its lines.
  static func dumpedDeclarations(_ output: String, named name: String) -> [[DumpLine]] {
    var blocks: [[DumpLine]] = []
    var current: [DumpLine]?
    for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("Dumping ") {
        if let current { blocks.append(current) }
        current = line == "Dumping \(name):" ? [] : nil
        continue
      }
      guard current != nil, !line.isEmpty else { continue }
      let tree = line.prefix { $0 == "|" || $0 == " " || $0 == "`" || $0 == "-" }
      current?.append(DumpLine(depth: tree.count / 2, text: String(line.dropFirst(tree.count))))
    }
    if let current { blocks.append(current) }
    return blocks
  }

  /// The protocol in a dumped `ObjCProtocolDecl`: its adopted protocols and its methods.
  static func dumpedProtocol(named name: String, from lines: [DumpLine]) throws(HeaderReaderError) -> ASTProtocol {
    var adopted: [String] = []
    var methods: [ASTProtocol.Method] = []
    for line in lines.dropFirst() {
      if line.depth == 1, line.text.hasPrefix("ObjCProtocol "), let adoptedName = quoted(in: line.text) {
        adopted.append(adoptedName)
      } else if line.depth == 1, line.text.hasPrefix("ObjCMethodDecl ") {
        methods.append(try method(line.text, protocolName: name))
      } else if line.depth == 2, line.text.hasPrefix("ParmVarDecl "), !methods.isEmpty {
        guard let type = quoted(in: line.text) else {
          throw HeaderReaderError(.probeFailed, "clang's AST gives no type in '\(line.text)'")
        }
        methods[methods.count - 1].parameterTypes.append(type)
      }
    }
    for method in methods {
      let colons = method.selector.utf8.filter { $0 == UInt8(ascii: ":") }.count
      guard colons == method.parameterTypes.count else {
        throw HeaderReaderError(
          .probeFailed,
          "clang's AST gives \(method.parameterTypes.count) parameters to '\(method.selector)' in '\(name)'")
      }
    }
    return ASTProtocol(name: name, adopted: adopted, methods: methods)
  }

  /// A dumped `ObjCMethodDecl` line: `ObjCMethodDecl 0x… <…> col:1 - a:b: 'void' variadic`.
  static func method(_ text: String, protocolName: String) throws(HeaderReaderError) -> ASTProtocol.Method {
    guard let quote = text.firstIndex(of: "'"), let returnType = quoted(in: text) else {
      throw HeaderReaderError(.probeFailed, "clang's AST gives no return type in '\(text)'")
    }
    let words = text[..<quote].split(separator: " ")
    guard words.count >= 2, let sign = words.dropLast().last, sign == "-" || sign == "+", let selector = words.last,
      ObjCProtocolDescription.isSelector(String(selector))
    else {
      throw HeaderReaderError(.probeFailed, "clang's AST line '\(text)' in '\(protocolName)' names no method")
    }
    let after = text[quote...].split(separator: " ")
    return ASTProtocol.Method(
      selector: String(selector), isInstanceMethod: sign == "-", returnType: returnType, parameterTypes: [],
      isVariadic: after.last == "variadic")
  }

  /// The first `'…'` in `text`: a type as clang spells it, before any `:'desugared'` form.
  static func quoted(in text: String) -> String? {
    guard let open = text.firstIndex(of: "'") else { return nil }
    let rest = text[text.index(after: open)...]
    guard let close = rest.firstIndex(of: "'") else { return nil }
    return String(rest[..<close])
  }

  /// The methods clang's IR lists for each protocol that `@protocol(name)` emits (the protocol
  /// and those it adopts), by protocol name.
  func protocolMetadata(referencing name: String) throws(HeaderReaderError) -> [String: [IRProtocolMethod]] {
    let file = try write(
      Self.includeLine(header) + "\nvoid blocksig_reference(void) { (void)@protocol(\(name)); }\n",
      to: "metadata.m")
    let ir = try run(["-S", "-emit-llvm", "-w", "-O0", "-o", "-"] + objcArguments + ["-x", "objective-c", file])
    return Self.protocolMetadata(inIR: ir)
  }

  /// The protocols in clang's IR for GCC's runtime: `{ ptr isa, ptr name, ptr adopted, ptr
  /// required instance methods, ptr required class methods, ptr optional instance methods,
  /// ptr optional class methods, … }`, each method list `{ i32 n, [n x { ptr name, ptr types }] }`.
  static func protocolMetadata(inIR ir: String) -> [String: [IRProtocolMethod]] {
    var strings: [String: String] = [:]
    var lists: [String: [(String, String)]] = [:]
    var protocols: [(name: String, lists: [String])] = []
    for line in ir.split(separator: "\n") where line.hasPrefix("@") {
      guard let equals = line.range(of: " = ") else { continue }
      let symbol = String(line[..<equals.lowerBound])
      let value = line[equals.upperBound...]
      if value.contains(" constant ["), let open = value.range(of: " c\"") {
        let body = value[open.upperBound...].prefix { $0 != "\"" }
        var bytes = unescape(body)
        if bytes.last == 0 { bytes.removeLast() }
        strings[symbol] = String(decoding: bytes, as: UTF8.self)
      } else if symbol.hasPrefix("@.objc_method_list") {
        var pairs: [(String, String)] = []
        var rest = value[...]
        while let start = rest.range(of: "{ ptr @") {
          let afterStart = rest[rest.index(before: start.upperBound)...]
          guard let comma = afterStart.range(of: ", ptr "), let close = afterStart.range(of: " }") else { break }
          pairs.append(
            (String(afterStart[..<comma.lowerBound]), String(afterStart[comma.upperBound..<close.lowerBound])))
          rest = afterStart[close.upperBound...]
        }
        lists[symbol] = pairs
      } else if symbol.hasPrefix("@.objc_protocol"), !symbol.hasPrefix("@.objc_protocol_list"),
        let open = value.range(of: "} { ptr ")
      {
        // `inttoptr (i32 2 to ptr), ptr @7, ptr @.objc_protocol_list.4, ptr @.objc_method_list.5, …`:
        // the last word of each operand is its symbol (the first operand, the isa, is not read).
        let operands = value[open.upperBound...].split(separator: ",").map {
          $0.split(separator: " ").last.map(String.init) ?? ""
        }
        guard operands.count >= 7 else { continue }
        protocols.append((operands[1], Array(operands[3...6])))
      }
    }
    var result: [String: [IRProtocolMethod]] = [:]
    for (nameSymbol, methodLists) in protocols {
      guard let name = strings[nameSymbol] else { continue }
      var methods: [IRProtocolMethod] = []
      for (slot, list) in methodLists.enumerated() {
        for (selectorSymbol, typesSymbol) in lists[list] ?? [] {
          guard let selector = strings[selectorSymbol], let types = strings[typesSymbol] else { continue }
          methods.append(
            IRProtocolMethod(selector: selector, isInstanceMethod: slot % 2 == 0, isRequired: slot < 2, types: types))
        }
      }
      result[name] = methods
    }
    return result
  }

  /// The bytes of an IR string constant's body: `\XX` is a byte in hex, `\\` a backslash.
  static func unescape(_ body: Substring) -> [UInt8] {
    var bytes: [UInt8] = []
    var input = Array(body.utf8)[...]
    while let byte = input.popFirst() {
      guard byte == UInt8(ascii: "\\"), input.count >= 2,
        let value = UInt8(String(decoding: input.prefix(2), as: UTF8.self), radix: 16)
      else {
        bytes.append(byte)
        continue
      }
      bytes.append(value)
      input = input.dropFirst(2)
    }
    return bytes
  }

  /// Compiles and runs a probe that prints `@encode` of each type, one per line; the types are
  /// spelled as clang's AST spells them, valid where the header is included.
  func encodings(of types: [String]) throws(HeaderReaderError) -> [String] {
    var lines = [
      Self.includeLine(header), "#include <stdio.h>",
      // What a module's load function calls: no Objective-C runtime is linked to the probe.
      "void blocksig_exec_class(void *module) __asm__(\"__objc_exec_class\");",
      "void blocksig_exec_class(void *module) { (void)module; }",
      "int main(void) {",
    ]
    lines += types.map { "  puts(@encode(\($0)));" }
    lines.append("  return 0;\n}\n")
    let output = try compileAndRun(
      lines.joined(separator: "\n"), named: "encodings.m", flags: objcArguments, language: "objective-c")
    let printed = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    guard printed.count == types.count, output.hasSuffix("\n") || types.isEmpty else {
      throw HeaderReaderError(.probeFailed, "the probe printed what it should not:\n\(output)")
    }
    return printed
  }
}
