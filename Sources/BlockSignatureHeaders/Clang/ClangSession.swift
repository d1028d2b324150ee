import BlockSignatureSystem
import Dispatch
import Foundation

/// A member of the struct, as clang's AST declares it.
struct HeaderField {
  var name: String
  /// The type as clang prints it, desugared (`void (*)(void *, const xmlChar *)`).
  var type: String

  /// A pointer to a function: what clang prints as `R (*)(…)`, the pointer maybe qualified
  /// (`R (*const)(…)`). `R (*[2])(…)` is an array, `R (**)(…)` a pointer to one: data.
  var isFunctionPointer: Bool {
    var rest = Substring(type)
    while let star = rest.range(of: "(*") {
      rest = rest[star.upperBound...]
      var after = rest
      while true {
        after = after.drop { $0 == " " }
        guard let qualifier = Self.pointerQualifiers.first(where: { after.hasPrefix($0) }) else { break }
        after = after.dropFirst(qualifier.count)
      }
      if after.hasPrefix(")(") { return true }
    }
    return false
  }

  static let pointerQualifiers = [
    "const", "volatile", "restrict", "__restrict__", "__restrict", "_Nonnull", "_Nullable", "_Null_unspecified",
  ]
  /// An array, which as a parameter would become a pointer.
  var isArray: Bool { type.hasSuffix("]") }
}

/// The function type of a function pointer member: its parameter types as clang prints them
/// (valid C where the header is included), and whether it takes more after them.
struct HeaderFunctionType {
  var parameters: [String]
  var isVariadic: Bool
}

/// clang run on files that include one header, in a folder of its own.
struct ClangSession {
  var clang: String
  var arguments: [String]
  var folder: URL
  /// The header's absolute path.
  var header: String
  /// How long clang or the probe may run, in seconds, before it is killed.
  var timeLimit: Int

  /// The struct named `name` (a tag, `struct TAG`, or a typedef of a named struct): how C code
  /// spells its type, and its members in order.
  func recordFields(named name: String) throws(HeaderReaderError) -> (spelling: String, fields: [HeaderField]) {
    let tag = Self.tag(of: name)
    let declarations = try ast(of: "", filter: tag)
    if let record = Self.definition(of: tag, in: declarations) {
      return ("struct \(tag)", try Self.fields(of: record, named: tag))
    }
    let typedef = declarations.first { $0.kind == "TypedefDecl" && $0.name == tag }
    guard !name.hasPrefix("struct "), let typedef else {
      throw HeaderReaderError(.notFound, "\(header) defines no struct or typedef named '\(tag)'")
    }
    let type = typedef.type?.desugared ?? ""
    let target = type.hasPrefix("struct ") ? String(type.dropFirst(7)) : ""
    guard Self.isIdentifier(target) else {
      throw HeaderReaderError(
        .unsupported,
        "'\(tag)' is '\(type)', not a named struct (an anonymous struct has no tag to read it by)")
    }
    guard let record = Self.definition(of: target, in: try ast(of: "", filter: target)) else {
      throw HeaderReaderError(.notFound, "'\(tag)' is '\(type)', which \(header) does not define")
    }
    return (tag, try Self.fields(of: record, named: tag))
  }

  /// `name` without a leading `struct `.
  static func tag(of name: String) -> String {
    name.hasPrefix("struct ") ? String(name.dropFirst(7)).trimmingCharacters(in: .whitespaces) : name
  }

  /// Whether `name` is a C identifier: what a struct tag or a typedef name must be.
  static func isIdentifier(_ name: String) -> Bool {
    guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
    return name.utf8.allSatisfy { byte in
      byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
  }

  /// The function type of each function pointer member, by member index.
  func functionTypes(of fields: [HeaderField], in spelling: String) throws(HeaderReaderError) -> [Int:
    HeaderFunctionType]
  {
    let indices = fields.indices.filter { fields[$0].isFunctionPointer }
    guard !indices.isEmpty else { return [:] }
    let declarations = try ast(of: Self.functionDeclarations(fields, in: spelling), filter: "blocksig_function_")
    var types: [Int: HeaderFunctionType] = [:]
    for declaration in declarations where declaration.kind == "FunctionDecl" {
      guard let name = declaration.name, name.hasPrefix("blocksig_function_"),
        let index = Int(name.dropFirst("blocksig_function_".count)), indices.contains(index)
      else { continue }
      let type = declaration.type?.desugared
      if type?.hasSuffix("()") == true {
        throw HeaderReaderError(
          .unsupported,
          "member '\(fields[index].name)' is '\(fields[index].type)', a function with no prototype: "
            + "its parameters are unknown")
      }
      let parameters = (declaration.inner ?? []).filter { $0.kind == "ParmVarDecl" }
      types[index] = HeaderFunctionType(
        parameters: parameters.compactMap { $0.type?.qualType },
        isVariadic: declaration.variadic ?? false)
    }
    if let missing = indices.first(where: { types[$0] == nil }) {
      throw HeaderReaderError(
        .probeFailed, "clang gave no function type for '\(fields[missing].name)'")
    }
    return types
  }

  /// One function declared with the type each function pointer member points to:
  /// `__typeof__(*((T *)0)->member) blocksig_function_3;`.
  static func functionDeclarations(_ fields: [HeaderField], in spelling: String) -> String {
    fields.indices.filter { fields[$0].isFunctionPointer }.map { index in
      "__typeof__(*((\(spelling) *)0)->\(fields[index].name)) blocksig_function_\(index);\n"
    }.joined()
  }

  /// The complete definition of the struct `tag` among `declarations`.
  static func definition(of tag: String, in declarations: [ClangNode]) -> ClangNode? {
    declarations.first { $0.kind == "RecordDecl" && $0.name == tag && $0.completeDefinition == true }
  }

  /// The members of a struct definition; a union, a bitfield or an unnamed member is refused.
  static func fields(of record: ClangNode, named name: String) throws(HeaderReaderError) -> [HeaderField] {
    guard record.tagUsed == "struct" else {
      throw HeaderReaderError(.unsupported, "'\(name)' is a union, not a struct")
    }
    var fields: [HeaderField] = []
    for field in record.inner ?? [] where field.kind == "FieldDecl" {
      let type = field.type?.desugared ?? ""
      guard let fieldName = field.name, !fieldName.isEmpty else {
        throw HeaderReaderError(
          .unsupported, "'\(name)' has an unnamed member (\(type)): members need names")
      }
      if field.isBitfield == true {
        throw HeaderReaderError(
          .unsupported,
          "member '\(fieldName)' of '\(name)' is a bitfield, which a table cannot hold")
      }
      fields.append(HeaderField(name: fieldName, type: type))
    }
    guard !fields.isEmpty else { throw HeaderReaderError(.unsupported, "'\(name)' has no members") }
    return fields
  }

  /// The declarations clang's JSON AST dump has for names containing `filter`, in a file
  /// that includes the header and then `source`.
  func ast(of source: String, filter: String) throws(HeaderReaderError) -> [ClangNode] {
    let file = try write(Self.includeLine(header) + "\n" + source, to: "ast.c")
    let output = try run(
      [
        "-fsyntax-only", "-fblocks", "-w", "-Xclang", "-ast-dump=json", "-Xclang", "-ast-dump-filter=\(filter)",
      ] + arguments + [file])
    do {
      return try ClangNode.sequence(output)
    } catch {
      throw HeaderReaderError(.probeFailed, "clang's AST does not read as JSON: \(error)")
    }
  }

  /// `#include "PATH"` (C has no escapes there: a path with a quote or a line break is refused
  /// before any file is written).
  static func includeLine(_ path: String) -> String { "#include \"\(path)\"" }

  /// Writes `text` as `name` in the folder; returns its path.
  func write(_ text: String, to name: String) throws(HeaderReaderError) -> String {
    let path = folder.appendingPathComponent(name).path
    guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
      throw HeaderReaderError(.unavailable, "cannot write \(path)")
    }
    return path
  }

  /// The probes' one step: writes `source` as `name` in the folder, compiles it with clang
  /// (`flags`, and `-x language` around the source when given) and runs the program; its
  /// standard output, or `probeFailed` when it exits with an error.
  func compileAndRun(_ source: String, named name: String, flags: [String], language: String? = nil)
    throws(HeaderReaderError) -> String
  {
    let file = try write(source, to: name)
    let program = folder.appendingPathComponent((name as NSString).deletingPathExtension).path
    let input = language.map { ["-x", $0, file, "-x", "none"] } ?? [file]
    _ = try run(["-w", "-O0", "-o", program] + flags + input)
    let result = try run(program, [])
    guard result.status == 0 else {
      throw HeaderReaderError(.probeFailed, "the probe of \(header) exited \(result.status)")
    }
    return result.stdout
  }

  /// Runs clang with `arguments`; its standard output, or a failure with what it said.
  func run(_ arguments: [String]) throws(HeaderReaderError) -> String {
    let result = try run(clang, arguments)
    guard result.status == 0 else {
      let said = result.stderr.split(separator: "\n").prefix(12).joined(separator: "\n")
      throw HeaderReaderError(.compileFailed, "clang failed on \(header):\n\(said)")
    }
    return result.stdout
  }

  /// Runs `executable` in the folder and waits, at most ``timeLimit`` seconds (then it is
  /// killed: a header's constructor runs in the probe). Its output goes through files, so
  /// neither stream can fill and stall it. It runs in this process's process group: an
  /// interrupt from the terminal stops both, and one that stops it alone is reported as
  /// `interrupted`, not as a failure of the header.
  func run(_ executable: String, _ arguments: [String]) throws(HeaderReaderError)
    -> (status: Int32, stdout: String, stderr: String)
  {
    let out = folder.appendingPathComponent("stdout.txt").path
    let err = folder.appendingPathComponent("stderr.txt").path
    let end: ProgramEnd
    switch system_runProgram(
      executable, arguments, directory: folder.path, outputPath: out, errorPath: err, timeLimit: timeLimit)
    {
    case .success(let ended): end = ended
    case .failure(let error): throw HeaderReaderError(.unavailable, "cannot run \(executable): \(error.message)")
    }
    let stdout = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: out))) ?? Data(), as: UTF8.self)
    let stderr = String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: err))) ?? Data(), as: UTF8.self)
    switch end {
    case .exited(let status):
      return (status, stdout, stderr)
    case .timedOut:
      throw HeaderReaderError(.timedOut, "\(executable) did not finish in \(timeLimit) s: it was killed")
    case .signaled(let signal) where system_stopSignals.contains(signal):
      throw HeaderReaderError(.interrupted, "\(executable) was stopped by \(system_signalName(signal))")
    case .signaled(let signal):
      // A crash: reported as the status a shell shows (128 + the signal), with what it said.
      return (128 + signal, stdout, stderr + "\n\(executable) crashed with \(system_signalName(signal))")
    }
  }
}
