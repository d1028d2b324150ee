import ArgumentParser
import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime
import BlockSignatureSystem
import Foundation

extension BlockSig {
  /// `blocksig decode`: parse, lay out and render signatures and type encodings.
  struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Decode block signatures, method signatures and type encodings.",
      discussion: """
        Prints the return type and each argument with its C type, size, alignment and offset, \
        the C declaration and the Swift type, and notes where written offsets differ from what \
        clang would write or where the encoding cannot decide a layout. For a block, a method \
        or a C function, "passed in" names where a call on --target puts each argument \
        (registers, stack+offset from the first stack argument, ? where the encoding does not \
        say) and where the return value comes back (registers, or memory with the pointer to \
        its buffer).

        Examples:
          blocksig decode 'i20@?0i8r*12'
          blocksig decode --json --target i386-linux 'v12@?0q4'
          printf 'v@:@\\n{P=dic}\\n' | blocksig decode

        With --json, one input prints one document; several inputs, or standard input, print \
        JSON Lines (one compact document per input).

        Malformed input exits with 65 and an error naming the byte offset on standard error.
        """
    )

    @OptionGroup var jsonOption: JSONOption
    var json: Bool { jsonOption.json }

    @OptionGroup var targetOption: TargetOption
    var target: DataModel { targetOption.target }

    @Argument(help: "Signatures or type encodings; read one per line from standard input when omitted.")
    var signatures: [String] = []

    @OptionGroup var diagnostics: DiagnosticOptions

    mutating func run() throws {
      let model = target
      let json = json
      // One input: one pretty document. Several, or standard input: JSON Lines, one compact
      // document per input.
      let jsonLines = signatures.count != 1
      var failed = false
      func decode(_ bytes: [UInt8], label: String) {
        do {
          let report = try DecodeReport(decoding: bytes, model: model)
          if let frameLength = report.signature.frameLength, frameLength.value < 0 {
            // GCC-era argument offsets may be negative; a frame length never is.
            failed = true
            let start = report.signature.returnType.description.utf8.count
            Diagnostics.located(
              "negative frame length \(frameLength.value)", input: report.input,
              range: start..<start + frameLength.description.utf8.count, label: label)
            return
          }
          print(json ? try report.json(compact: jsonLines) : report.text())
        } catch let error as EncodingError {
          failed = true
          _ = Diagnostics.malformed(error, label: label)
        } catch let error as LayoutError {
          failed = true
          Diagnostics.layoutFailure(
            error, input: String(decoding: bytes, as: UTF8.self), label: label)
        } catch {
          failed = true
          Diagnostics.write("\(label): error: \(error)\n")
        }
      }
      // The bytes as given, not as `String` repaired them: an invalid UTF-8 byte is reported
      // as itself (`0xff`), not as the first byte of U+FFFD.
      for (index, signature) in signatures.enumerated() {
        decode(Self.rawArgument(signature), label: "<argument \(index + 1)>")
      }
      if signatures.isEmpty {
        // One input per line, decoded as soon as it is read (memory bounded by the longest
        // line); `<stdin>:LINE:COLUMN`, the column counted from 1 as in `file:line:col`.
        var lines = StandardInputLines()
        var decoded = 0
        do {
          while let (number, line) = try lines.next() {
            guard !line.isEmpty else { continue }
            decode(line, label: "<stdin>:\(number)")
            decoded += 1
          }
        } catch {
          Diagnostics.write("<stdin>: error: cannot read standard input: \(error.message)\n")
          throw ExitCode(ExitStatus.noInput)
        }
        if decoded == 0 {
          Diagnostics.write(
            "\(Diagnostics.command): error: no signature given and standard input is empty\nUsage: blocksig \(Self.usageString())\n"
              + "  See 'blocksig decode --help' for more information.\n")
          throw ExitCode(ExitStatus.usage)
        }
      }
      if failed { throw ExitCode(ExitStatus.dataError) }
    }

    /// The command-line argument `argument` came from, byte for byte: the first argument whose
    /// repaired `String` is `argument` (the same bytes when they are valid UTF-8).
    static func rawArgument(_ argument: String) -> [UInt8] {
      guard argument.unicodeScalars.contains("\u{FFFD}") else { return Array(argument.utf8) }
      for index in 1..<Int(CommandLine.argc) {
        guard let raw = CommandLine.unsafeArgv[index] else { continue }
        if String(cString: raw) == argument {
          return Array(
            UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw)))
        }
      }
      return Array(argument.utf8)
    }
  }
}

/// The result of decoding one input, shared by the text and JSON printers.
struct DecodeReport {
  var signature: SignatureEncoding
  var layout: SignatureLayout
  var input: String
  var model: DataModel

  init(decoding bytes: [UInt8], model: DataModel) throws {
    self.input = String(decoding: bytes, as: UTF8.self)
    self.model = model
    signature = try bytes.withUnsafeBufferPointer { try SignatureEncoding(parsingBytes: $0) }
    layout = try signature.layout(for: model)
  }

  var notes: [String] { layout.notes.map(\.message) }

  /// A list of types with a frame length written after the first (`i12i0r*4`): the form of a
  /// C function, as `method --from function` reads it (a return type, then the arguments).
  var isFunction: Bool { signature.kind == .types && signature.frameLength != nil }

  /// `block`, `method`, `function` or `types`.
  var form: String { isFunction ? "function" : signature.kind.rawValue }

  func argumentLabel(_ index: Int) -> String {
    switch (signature.kind, index) {
    case (.block, 0): "block"
    case (.method, 0): "self"
    case (.method, 1): "_cmd"
    case (.types, _): isFunction ? "argument \(index + 1)" : "type \(index + 2)"
    default: "argument \(index)"
    }
  }

  /// The C declaration: a function pointer for the function form.
  var declaration: String {
    guard isFunction else { return signature.cDeclaration(for: model) }
    let parameters = signature.arguments.indices.map { signature.cDeclaration(ofArgument: $0, for: model) }
    let list = parameters.isEmpty ? "void" : parameters.joined(separator: ", ")
    return signature.returnType.cDeclaration(name: "(*)(\(list))", for: model)
  }

  /// The Swift type: `@convention(c)` for the function form.
  var swiftType: String {
    guard isFunction else { return signature.swiftType(for: model) }
    let parameters = signature.arguments.indices.map { signature.swiftType(ofArgument: $0, for: model) }
      .joined(separator: ", ")
    // A return type is never an array, so the parameter spelling is the value's.
    return "@convention(c) (\(parameters)) -> \(signature.returnType.swiftType(for: model))"
  }

  /// An encoding as the table shows it: a lone space (`_Float16`, `__bf16`, `__float128`) quoted,
  /// so the cell is not blank.
  static func cell(_ type: TypeEncoding) -> String {
    let text = type.description
    return text == " " ? "' '" : text
  }

  /// Where the return value comes back (`rax`, `xmm0`, `-` for `void`).
  var returnLocation: String { signature.returnType.returnLocation(for: model) }

  /// Where a call puts each argument: for a block, a method or a C function, not a list of
  /// types.
  var placement: ArgumentPlacement? {
    signature.kind == .types && !isFunction ? nil : signature.argumentPlacement(for: model)
  }

  func text() -> String {
    let placement = placement
    // Once per report, not per row: `hasOffsets` reads every argument.
    let hasOffsets = signature.hasOffsets
    let isTypeList = signature.kind == .types && !isFunction
    var rows: [[String]] = [
      ["", "encoding", "C type", "size", "align", "offset"] + (placement == nil ? [] : ["passed in"])
    ]
    let returnType = signature.returnType
    rows.append(
      [
        isTypeList ? "type 1" : "return", Self.cell(returnType),
        returnType.cDeclaration(for: model),
        String(layout.returnLayout.size), String(layout.returnLayout.alignment), "",
      ] + (placement.map { [$0.returnBufferLocation.map { "memory, buffer in \($0)" } ?? returnLocation] } ?? []))
    for (index, argument) in signature.arguments.enumerated() {
      let argumentLayout = layout.arguments[index]
      rows.append(
        [
          argumentLabel(index), Self.cell(argument.type), signature.cDeclaration(ofArgument: index, for: model),
          String(argumentLayout.layout.size), String(argumentLayout.layout.alignment),
          signature.kind == .types && !hasOffsets
            ? "" : String(argument.offset?.value ?? argumentLayout.offset),
        ] + (placement.map { [$0.arguments[index].locations(for: model)] } ?? []))
    }
    let columns = rows[0].count
    var widths = Array(repeating: 0, count: columns)
    for row in rows { for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) } }
    var output = "\(input)\n"
    output += "  kind: \(form)\n"
    output += "  target: \(model.name)\n"
    output += "  declaration: \(declaration)\n"
    output += "  swift: \(swiftType)\n"
    if signature.kind != .types || hasOffsets {
      output += "  frame length: \(signature.frameLength?.value ?? layout.frameLength)"
      output += signature.frameLength == nil ? " (computed)\n" : "\n"
    }
    for row in rows {
      var line = "  "
      for (column, cell) in row.enumerated() {
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        // Numbers to the right; the places (after the offset) to the left.
        line += column >= 3 && column <= 5 ? padding + cell : cell + padding
        if column < columns - 1 { line += "  " }
      }
      while line.hasSuffix(" ") { line.removeLast() }
      output += line + "\n"
    }
    for note in notes { output += "  note: \(note)\n" }
    output.removeLast()
    return output
  }

  /// The JSON document: pretty-printed, or on one line when `compact` (JSON Lines).
  func json(compact: Bool = false) throws -> String {
    let placement = placement
    let arguments = signature.arguments.enumerated().map { index, argument in
      ArgumentReportV1(
        encoding: argument.type.description, size: layout.arguments[index].layout.size,
        alignment: layout.arguments[index].layout.alignment,
        offset: argument.offset?.value ?? layout.arguments[index].offset,
        slotSize: layout.arguments[index].slotSize,
        declaration: signature.cDeclaration(ofArgument: index, for: model),
        exact: layout.arguments[index].layout.isExact,
        passedIn: placement.map { PlaceReportV1($0.arguments[index], model: model) })
    }
    let report = DecodeReportV1(
      serializationVersion: 1, input: input, kind: signature.kind.rawValue, form: form, target: model.name,
      return: TypeReportV1(
        encoding: signature.returnType.description, size: layout.returnLayout.size,
        alignment: layout.returnLayout.alignment, declaration: signature.returnType.cDeclaration(for: model),
        exact: layout.returnLayout.isExact),
      arguments: arguments, frameLength: signature.frameLength?.value ?? layout.frameLength,
      offsetsWritten: signature.hasOffsets, declaration: declaration, swiftType: swiftType, notes: notes,
      returnsInMemory: placement?.returnsInMemory, returnBufferIn: placement?.returnBufferLocation,
      returnedIn: placement == nil ? nil : returnLocation,
      stackArgumentBytes: placement?.stackSize)
    return try JSONOutput.text(report, style: compact ? .line : .document)
  }
}

/// Standard input, a line at a time (without its `\n` or `\r\n`), as bytes.
struct StandardInputLines {
  struct ReadError: Error {
    /// `strerror` of the failed `read`.
    var message: String
  }

  private var buffer: [UInt8] = []
  private var chunk = [UInt8](repeating: 0, count: 1 << 16)
  private var start = 0
  /// Where the search for the next newline resumes: bytes before it hold none, so a long line
  /// read in many chunks is scanned once, not once per chunk.
  private var scanned = 0
  private var atEnd = false
  private var number = 0

  /// The next line and its number (from 1), or nil at the end.
  mutating func next() throws(ReadError) -> (Int, [UInt8])? {
    while true {
      if let newline = buffer[max(start, scanned)...].firstIndex(of: 0x0A) {
        var line = Array(buffer[start..<newline])
        start = newline + 1
        scanned = start
        if line.last == 0x0D { line.removeLast() }
        number += 1
        return (number, line)
      }
      if atEnd {
        guard start < buffer.count else { return nil }
        var line = Array(buffer[start...])
        start = buffer.count
        if line.last == 0x0D { line.removeLast() }
        number += 1
        return (number, line)
      }
      // Drop what was handed out, then read more.
      buffer.removeFirst(start)
      start = 0
      scanned = buffer.count
      switch chunk.withUnsafeMutableBytes({ system_readStandardInput($0) }) {
      case .success(0): atEnd = true
      case .success(let count): buffer += chunk[..<count]
      case .failure(let error): throw ReadError(message: error.reason)
      }
    }
  }
}
