import BlockSignature
import Foundation

extension HeaderReader {
  /// The signature clang writes for a block literal of the block type `type`, as `header`
  /// declares it: what a method's block parameter expects, where the runtime's encoding of the
  /// parameter says only `@?`.
  ///
  /// 1. clang's AST of a variable of type `type` gives the type desugared
  ///    (`NSComparisonResult (^)(id, id)` for `NSComparator`);
  /// 2. a block literal of that type, each parameter typed `__typeof__` its spelling, is
  ///    compiled to IR, whose descriptor holds the signature clang wrote.
  ///
  /// The file is compiled as Objective-C for GCC's runtime (`-fobjc-runtime=gcc` is added after
  /// ``arguments``): GNUstep's headers need ``gnustepArguments()``, and under `-fblocks` a
  /// stand-in for libobjc2's `<objc/blocks_runtime.h>` (the package's `ObjCSupport/include`).
  ///
  ///     let reader = HeaderReader(arguments: (HeaderReader.gnustepArguments() ?? []) + ["-I", "ObjCSupport/include"])
  ///     let comparator = try reader.blockSignature(
  ///       ofType: "NSComparator", header: "/usr/include/GNUstep/Foundation/Foundation.h")
  ///     comparator.description  // q24@?0@8@16
  ///
  /// - Parameters:
  ///   - type: A block type as C spells it: a typedef name (`NSComparator`) or a block
  ///     pointer type (`void (^)(id, NSUInteger, BOOL *)`).
  ///   - header: The header that declares it (its path).
  /// - Returns: The signature, in block form.
  /// - Throws: ``HeaderReaderError``: ``HeaderReaderError/Kind/unsupported`` when `type` is not
  ///   a block type, or is variadic; ``HeaderReaderError/Kind/compileFailed`` when clang
  ///   refuses the header or the type.
  public func blockSignature(ofType type: String, header: String) throws(HeaderReaderError) -> MethodSignature {
    guard !type.contains(";"), !type.contains("\n"), !type.contains("{"), !type.contains("}") else {
      throw HeaderReaderError(.invalidName, "'\(type)' is not a C type")
    }
    return try withSession(header: header, prefix: "blocksig-block-type") { session throws(HeaderReaderError) in
      let spelled = try session.desugaredType(of: type)
      let typedef = ClangSession.isIdentifier(type) ? try session.typedefDeclaration(named: type) : nil
      guard let parts = typedef.flatMap(ClangSession.blockTypeParts(typedef:)) ?? ClangSession.blockTypeParts(spelled)
      else {
        throw HeaderReaderError(.unsupported, "'\(type)' is '\(spelled)', not a block type R (^)(…)")
      }
      guard !parts.isVariadic, parts.parameters.last != "..." else {
        throw HeaderReaderError(.unsupported, "'\(type)' is '\(spelled)': a variadic block's signature lists none")
      }
      let text = try session.literalSignature(of: type, returning: parts.returnType, parameters: parts.parameters)
      guard let model = DataModel.host else {
        throw HeaderReaderError(.unsupported, "this machine has no built-in data model")
      }
      do {
        return try MethodSignature(parsing: text, model: model)
      } catch {
        throw HeaderReaderError(.probeFailed, "clang wrote '\(text)' for a block of type '\(type)': \(error)")
      }
    }
  }
}

extension ClangSession {
  /// `type` desugared, as clang's JSON AST gives a variable's type in a file that includes the
  /// header (Objective-C, for GCC's runtime).
  func desugaredType(of type: String) throws(HeaderReaderError) -> String {
    let file = try write(Self.includeLine(header) + "\n__typeof__(\(type)) blocksig_block_type;\n", to: "block-type.m")
    let output = try run(
      [
        "-fsyntax-only", "-fblocks", "-w", "-Xclang", "-ast-dump=json", "-Xclang",
        "-ast-dump-filter=blocksig_block_type",
      ]
        + objcArguments + ["-x", "objective-c", file])
    let nodes: [ClangNode]
    do {
      nodes = try ClangNode.sequence(output)
    } catch {
      throw HeaderReaderError(.probeFailed, "clang's AST does not read as JSON: \(error)")
    }
    guard let variable = nodes.first(where: { $0.kind == "VarDecl" && $0.name == "blocksig_block_type" }),
      let spelled = variable.type?.desugared
    else {
      throw HeaderReaderError(.probeFailed, "clang's AST has no variable of type '\(type)'")
    }
    return spelled
  }

  /// The typedef `name` in clang's JSON AST of the header, with its type's tree.
  func typedefDeclaration(named name: String) throws(HeaderReaderError) -> ClangNode? {
    let file = try write(Self.includeLine(header) + "\n", to: "typedef.m")
    let output = try run(
      ["-fsyntax-only", "-fblocks", "-w", "-Xclang", "-ast-dump=json", "-Xclang", "-ast-dump-filter=\(name)"]
        + objcArguments + ["-x", "objective-c", file])
    do {
      return try ClangNode.sequence(output).last { $0.kind == "TypedefDecl" && $0.name == name }
    } catch {
      throw HeaderReaderError(.probeFailed, "clang's AST does not read as JSON: \(error)")
    }
  }

  /// Type nodes that only name another type (a typedef, parentheses, an attribute).
  static let sugarKinds: Set<String> = [
    "ElaboratedType", "TypedefType", "ParenType", "AttributedType", "MacroQualifiedType", "ObjCTypeParamType",
  ]

  /// The return and parameter types of a typedef of a block type, from its type's tree: each
  /// spelled without typedefs, so that a type only valid where it was declared (an Objective-C
  /// class's type parameter, `ElementT`) reads as what it stands for (`id`).
  static func blockTypeParts(typedef: ClangNode) -> (returnType: String, parameters: [String], isVariadic: Bool)? {
    var node = typedef.inner?.first
    while let current = node, current.kind != "BlockPointerType" {
      guard let kind = current.kind, sugarKinds.contains(kind) else { return nil }
      node = current.inner?.first
    }
    var function = node?.inner?.first
    while let current = function, current.kind != "FunctionProtoType" {
      guard let kind = current.kind, sugarKinds.contains(kind) else { return nil }
      function = current.inner?.first
    }
    guard let function, let types = function.inner, let returned = types.first else { return nil }
    return (unsugared(returned), types.dropFirst().map(unsugared), function.variadic ?? false)
  }

  /// A type node's spelling once its sugar is gone.
  static func unsugared(_ node: ClangNode) -> String {
    var current = node
    while let kind = current.kind, sugarKinds.contains(kind), let next = current.inner?.first { current = next }
    return current.type?.qualType ?? ""
  }

  /// The return type and parameter types of a block type as clang prints it,
  /// `R (^)(P1, P2)`; nil when it is not one (a block returning a block or a function pointer
  /// prints otherwise, and is refused). `(void)` gives no parameters.
  static func blockTypeParts(_ spelled: String) -> (returnType: String, parameters: [String], isVariadic: Bool)? {
    guard let marker = spelled.range(of: " (^)("), spelled.hasSuffix(")") else { return nil }
    let returnType = String(spelled[..<marker.lowerBound])
    let list = spelled[marker.upperBound..<spelled.index(before: spelled.endIndex)]
    guard !returnType.contains("(^"), depthStaysPositive(list) else { return nil }
    var parameters: [String] = []
    var depth = 0
    var current = ""
    for character in list {
      switch character {
      case "(", "[", "<": depth += 1
      case ")", "]", ">": depth -= 1
      default: break
      }
      if character == ",", depth == 0 {
        parameters.append(current.trimmingCharacters(in: .whitespaces))
        current = ""
      } else {
        current.append(character)
      }
    }
    parameters.append(current.trimmingCharacters(in: .whitespaces))
    if parameters == ["void"] || parameters == [""] { parameters = [] }
    return (returnType, parameters, parameters.last == "...")
  }

  /// Whether the brackets of `text` never close more than they opened.
  private static func depthStaysPositive(_ text: Substring) -> Bool {
    var depth = 0
    for character in text {
      if "([<".contains(character) { depth += 1 }
      if ")]>".contains(character) { depth -= 1 }
      if depth < 0 { return false }
    }
    return depth == 0
  }

  /// The signature clang writes for a literal of `type` that returns `returnType` and takes
  /// `parameters`: the string its descriptor points to in clang's IR.
  func literalSignature(of type: String, returning returnType: String, parameters: [String]) throws(HeaderReaderError)
    -> String
  {
    let declared =
      parameters.isEmpty
      ? "void" : parameters.indices.map { "__typeof__(\(parameters[$0])) blocksig_a\($0)" }.joined(separator: ", ")
    let body =
      returnType == "void"
      ? "{}"
      : "{ __typeof__(\(returnType)) blocksig_r; __builtin_memset(&blocksig_r, 0, sizeof blocksig_r); return blocksig_r; }"
    let source =
      Self.includeLine(header)
      + "\n__typeof__(\(type)) blocksig_block_literal = ^__typeof__(\(returnType)) (\(declared)) \(body);\n"
    let file = try write(source, to: "block-literal.m")
    let ir = try run(
      ["-S", "-emit-llvm", "-fblocks", "-w", "-O0", "-o", "-"] + objcArguments + ["-x", "objective-c", file])
    guard let signature = Self.globalBlockSignature(inIR: ir, invoking: "blocksig_block_literal") else {
      throw HeaderReaderError(.probeFailed, "clang's IR holds no signature for a block literal of type '\(type)'")
    }
    return signature
  }

  /// The signature string of the global block literal whose invoke function's name contains
  /// `name`: `{ ptr isa, i32 flags, i32 reserved, ptr invoke, ptr descriptor }`, the descriptor
  /// `{ i64 reserved, i64 size, ptr signature, ptr layout }` (a literal that captures nothing
  /// has no copy and dispose helpers).
  static func globalBlockSignature(inIR ir: String, invoking name: String) -> String? {
    var strings: [String: String] = [:]
    var operands: [String: [String]] = [:]
    for line in ir.split(separator: "\n") where line.hasPrefix("@") {
      guard let equals = line.range(of: " = ") else { continue }
      let symbol = String(line[..<equals.lowerBound])
      let value = line[equals.upperBound...]
      if value.contains(" constant ["), let open = value.range(of: " c\"") {
        var bytes = unescape(value[open.upperBound...].prefix { $0 != "\"" })
        if bytes.last == 0 { bytes.removeLast() }
        strings[symbol] = String(decoding: bytes, as: UTF8.self)
      } else if let open = value.range(of: "} { ") {
        // `{ ptr, i32 } { ptr @a, i32 1 }, align 8`: the last word of each operand.
        let body = value[open.upperBound...]
        operands[symbol] = body[..<(body.range(of: " }")?.lowerBound ?? body.endIndex)].split(separator: ",").map {
          String($0.split(separator: " ").last ?? "")
        }
      }
    }
    guard
      let literal = operands.values.first(where: { $0.count == 5 && $0[3].contains(name) && $0[3].contains("invoke") }),
      let descriptor = operands[literal[4]], descriptor.count >= 3
    else { return nil }
    return strings[descriptor[2]]
  }
}
