import Foundation

/// A failed tool run in a test (the URL-based runners below).
package struct ToolRunFailure: Error, CustomStringConvertible {
  package var command: [String]
  package var status: Int32
  package var output: String
  package var description: String { "\(command.joined(separator: " ")) exited \(status): \(output)" }

  package init(command: [String], status: Int32, output: String) {
    self.command = command
    self.status = status
    self.output = output
  }
}

/// The result of running a process.
package struct ToolRun: Sendable {
  package var status: Int32
  package var stdout: String
  package var stderr: String
}

/// Finding and running the toolchain's tools (clang, strip, ar) at test time.
extension Toolchain {
  /// The first executable called `name` on PATH.
  package static func find(_ name: String) -> URL? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for directory in path.split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }

  /// The first of `names` found on PATH.
  package static func find(anyOf names: [String]) -> URL? {
    names.lazy.compactMap(find).first
  }

  /// Runs `executable` with `arguments`, collecting stdout and stderr.
  @discardableResult
  package static func run(_ executable: URL, _ arguments: [String], stdin: Data? = nil) throws -> ToolRun {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    if stdin == nil { process.standardInput = FileHandle.nullDevice }
    try process.run()
    // Read both pipes concurrently so that neither fills up.
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    group.enter()
    DispatchQueue.global().async {
      errData = err.fileHandleForReading.readDataToEndOfFile()
      group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return ToolRun(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self))
  }

  /// Runs a tool and throws unless it exits 0.
  @discardableResult
  package static func check(_ executable: URL, _ arguments: [String]) throws -> ToolRun {
    let result = try run(executable, arguments)
    guard result.status == 0 else {
      throw ToolRunFailure(command: [executable.path] + arguments, status: result.status, output: result.stderr)
    }
    return result
  }

}

/// One descriptor as clang's `-emit-llvm` output defines it: the truth for scanner tests.
package struct TruthDescriptor: Hashable, Sendable, CustomStringConvertible {
  package var name: String
  package var size: UInt64
  package var signature: String?
  package var description: String { "\(name) size \(size) \(signature ?? "nil")" }
}

/// Reading descriptors out of LLVM IR text.
package enum LLVMTruth {
  /// Decodes an IR `c"..."` string body (`\XX` hex escapes), dropping the final NUL.
  static func decodeCString(_ body: Substring) -> String {
    var bytes: [UInt8] = []
    var iterator = Array(body.utf8)[...]
    while let byte = iterator.popFirst() {
      if byte == UInt8(ascii: "\\"), iterator.count >= 2,
        let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        iterator = iterator.dropFirst(2)
      } else {
        bytes.append(byte)
      }
    }
    if bytes.last == 0 { bytes.removeLast() }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Unquotes an IR global name (`@"x\01y"` → `x\u{1}y`, `@.str` → `.str`).
  static func globalName(_ token: Substring) -> String {
    var name = token.drop { $0 == " " }.dropFirst()  // '@'
    while name.last == " " { name = name.dropLast() }
    if name.first == "\"" { return decodeCString(name.dropFirst().dropLast()) }
    while let last = name.last, ",}) ".contains(last) { name = name.dropLast() }
    return String(name)
  }

  /// Every block descriptor global (`__block_descriptor…` from clang, `block_descriptor…` from
  /// Swift) with its size (second word) and signature (the `ptr @…` that names a string).
  package static func descriptors(inIR ir: String) -> [TruthDescriptor] {
    var strings: [String: String] = [:]
    var definitions: [(name: String, body: Substring)] = []
    for line in ir.split(separator: "\n") where line.hasPrefix("@") {
      guard let equals = line.range(of: " = ") else { continue }
      let name = globalName(line[..<equals.lowerBound])
      let rest = line[equals.upperBound...]
      if let open = rest.range(of: "c\""), let close = rest.range(of: "\"", range: open.upperBound..<rest.endIndex) {
        strings[name] = decodeCString(rest[open.upperBound..<close.lowerBound])
      }
      if name.hasPrefix("__block_descriptor") || name.hasPrefix("block_descriptor") { definitions.append((name, rest)) }
    }
    return definitions.compactMap { definition in
      // The initializer is the second `{ … }` group: `{ i64 0, i64 32, ptr @.str, ptr null }`.
      guard let typeClose = definition.body.range(of: "} {") else { return nil }
      let initializer = definition.body[typeClose.upperBound...]
      let fields = initializer.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      guard fields.count >= 2 else { return nil }
      let sizeField = fields[1].split(separator: " ")
      guard sizeField.count == 2, let size = UInt64(sizeField[1]) else { return nil }
      var signature: String?
      for field in fields.dropFirst(2) {
        let parts = field.split(separator: " ", maxSplits: 1)
        if parts.count == 2, parts[0] == "ptr", parts[1].hasPrefix("@"),
          let text = strings[globalName(parts[1].split(separator: "}")[0])]
        {
          signature = text
        }
      }
      return TruthDescriptor(name: definition.name, size: size, signature: signature)
    }
  }
}

/// Precision and recall of `found` against `truth`, both multisets.
package func precisionRecall<T: Hashable>(found: [T], truth: [T]) -> (precision: Double, recall: Double) {
  var remaining: [T: Int] = [:]
  for item in truth { remaining[item, default: 0] += 1 }
  var hits = 0
  for item in found where remaining[item, default: 0] > 0 {
    remaining[item]! -= 1
    hits += 1
  }
  let precision = found.isEmpty ? (truth.isEmpty ? 1 : 0) : Double(hits) / Double(found.count)
  let recall = truth.isEmpty ? 1 : Double(hits) / Double(truth.count)
  return (precision, recall)
}
