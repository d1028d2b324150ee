import Foundation

/// Reads what clang emitted for blocks out of textual LLVM IR (`clang -S -emit-llvm`):
/// the string constants, the block descriptors and the global block literals.
package struct ClangIR {
  /// A block descriptor global: its name, recorded size, helpers and signature.
  package struct Descriptor: Hashable {
    package var name: String
    package var size: Int
    package var hasHelpers: Bool
    package var signature: String?
  }

  /// A global block literal: flags, invoke function and descriptor.
  package struct Literal: Hashable {
    package var name: String
    package var flags: Int32
    package var invoke: String
    package var descriptor: String
  }

  /// A stack block built in a function's body: the invoke function and the descriptor its
  /// code stores in the literal (`store ptr @invoke, …` then `store ptr @descriptor, …`).
  package struct StackConstruction: Hashable {
    package var invoke: String
    package var descriptor: String
  }

  package var strings: [String: [UInt8]] = [:]
  /// Every stack block construction, in the order of the IR (unoptimized IR has one per
  /// literal the source builds, inlined `always_inline` copies included).
  package var stackConstructions: [StackConstruction] = []
  package var descriptors: [String: Descriptor] = [:]
  package var literals: [Literal] = []
  /// Global variables initialised with a block literal: variable name → literal name.
  package var blockVariables: [String: String] = [:]

  package init(_ ir: String) {
    var descriptorLines: [(String, String)] = []
    for line in ir.split(separator: "\n") {
      guard line.hasPrefix("@") else { continue }
      let name = String(line.prefix { $0 != " " }.dropFirst())
      if let range = line.range(of: "c\""), line.contains("constant [") {
        let body = line[range.upperBound...].prefix { $0 != "\"" }
        strings[name] = Self.unescape(body)
      } else if line.contains(" x i8] zeroinitializer") {
        strings[name] = []
      } else if line.contains(" global ptr @__block_literal_global") {
        blockVariables[name] = Self.symbol(
          String(line[line.range(of: " global ptr ")!.upperBound...].prefix { $0 != "," }))
      } else if name.contains("block_descriptor") {
        descriptorLines.append((name, String(line)))
      } else if name.hasPrefix("__block_literal_global") || line.contains("@_NSConcreteGlobalBlock, i32") {
        let fields = Self.initializerFields(line[...])
        guard fields.count >= 5, fields[0].contains("_NSConcreteGlobalBlock") else { continue }
        literals.append(
          Literal(
            name: name, flags: Int32(truncatingIfNeeded: Int64(fields[1].split(separator: " ").last!) ?? 0),
            invoke: Self.symbol(fields[3]), descriptor: Self.symbol(fields[4])))
      }
    }
    // In function bodies: the last invoke function named (stored, or signed first on arm64e:
    // `@llvm.ptrauth.sign(i64 ptrtoint (ptr @…_block_invoke to i64), …)`) before a descriptor
    // is stored is that literal's invoke.
    var storedFunction: String?
    for line in ir.split(separator: "\n") where line.hasPrefix("  ") {
      if line.hasPrefix("  store ptr @") {
        let name = Self.symbol(String(line.dropFirst("  store ptr ".count).prefix { $0 != "," }))
        if descriptorLines.contains(where: { Self.symbol("@" + $0.0) == name }) {
          if let invoke = storedFunction {
            stackConstructions.append(
              StackConstruction(invoke: invoke, descriptor: String(decoding: Self.unescape(name[...]), as: UTF8.self)))
          }
          storedFunction = nil
          continue
        }
      }
      if let at = line.range(of: "ptr @"), line.contains("_block_invoke") {
        let name = String(line[at.upperBound...].prefix { $0 != "," && $0 != " " && $0 != ")" })
        if name.contains("_block_invoke") { storedFunction = name }
      }
    }
    for (name, line) in descriptorLines {
      let fields = Self.initializerFields(line[...])
      guard fields.count >= 4, let size = Int(fields[1].split(separator: " ").last ?? "") else { continue }
      let hasHelpers = fields.count >= 6
      let signatureField = hasHelpers ? fields[4] : fields[2]
      let symbol = Self.symbol(signatureField)
      descriptors[name] = Descriptor(
        name: name, size: size, hasHelpers: hasHelpers,
        signature: strings[symbol].map { String(decoding: $0, as: UTF8.self) })
    }
  }

  /// The literal whose invoke function is `invoke`.
  package func literal(invoking invoke: String) -> Literal? { literals.first { $0.invoke == invoke } }

  /// The literal a global block variable holds.
  package func literal(heldBy variable: String) -> Literal? {
    blockVariables[variable].flatMap { name in literals.first { $0.name == name } }
  }

  /// The comma-separated fields of a global's last `{ … }` initializer.
  static func initializerFields(_ line: Substring) -> [String] {
    guard let open = line.range(of: "} {", options: .backwards)?.upperBound ?? line.range(of: "{")?.upperBound,
      let close = line.range(of: "}", options: .backwards)?.lowerBound, open < close
    else { return [] }
    return line[open..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
  }

  /// `ptr @name` → `name` (quotes removed).
  static func symbol(_ field: String) -> String {
    guard let at = field.firstIndex(of: "@") else { return field }
    return String(field[field.index(after: at)...]).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
  }

  /// LLVM's `\XX` escapes to bytes.
  package static func unescape(_ text: Substring) -> [UInt8] {
    var bytes: [UInt8] = []
    var iterator = Array(text.utf8)[...]
    while let byte = iterator.popFirst() {
      if byte == UInt8(ascii: "\\"), iterator.count >= 2,
        let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
      {
        iterator = iterator.dropFirst(2)
        if value != 0 { bytes.append(value) }
      } else {
        bytes.append(byte)
      }
    }
    return bytes
  }
}
