import ArgumentParser
import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime
import BlockSignatureSystem
import Dispatch
import Foundation

extension BlockSig {
  /// `blocksig dump`: every block descriptor, its signature and its literals in binaries.
  struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "List every block in ELF and Mach-O binaries, stripped or not.",
      discussion: """
        Finds global block literals (through relocations, dynamic relocations or the copied \
        _NSConcreteGlobalBlock), descriptors by symbol, and, in stripped files, descriptors by a \
        structural scan for signature strings and the descriptor words that point at them. \
        In x86_64 and AArch64 images (linked, or objects), each stack block's construction \
        sites are found in \
        the code (the instructions that load its descriptor's address) with the invoke function \
        stored beside it.

        Human output has one line per block, sorted by address, then a summary. With --json, \
        the output is JSON Lines: each binary (each archive member) gives one compact JSON \
        document on a line of its own, with "serializationVersion": 2, "schema": \
        "blocksig-dump/2" and camelCase keys (Schemas/blocksig-dump-2.schema.json describes it).

        A file that cannot be read or is damaged gives a diagnostic on stderr and the scan goes \
        on; the exit status is 1 if any file failed. Files found by -r that are not ELF, Mach-O \
        or ar archives are skipped; -r follows symbolic links to files (each file is scanned \
        once) but not to directories.

        Files are scanned on all cores; each file's output is written, in the order the files \
        are given, as soon as it and every file before it are scanned. A last line on stderr \
        counts the files, blocks and errors.

        Examples:
          blocksig dump libdispatch.so
          blocksig dump --json -r build/
        """)

    @OptionGroup var jsonOption: JSONOption
    var json: Bool { jsonOption.json }

    @Flag(name: [.short, .customLong("recursive")], help: "Scan directories recursively.")
    var recursive = false

    @Flag(
      name: [.customShort("C"), .long],
      help: "Show Swift, C++ and block invoke names demangled in the text (JSON has both forms).")
    var demangle = false

    @Argument(help: "Binaries, archives or directories to scan.")
    var paths: [String]

    func validate() throws {
      if paths.isEmpty { throw ValidationError("Missing expected argument '<paths> ...'") }
    }

    @OptionGroup var diagnostics: DiagnosticOptions

    func run() throws {
      let errors = StandardError()
      var inputs: [BinaryBatchScan.Input] = []
      var failed = false
      // A path that cannot be scanned counts as a file with an error, as an unreadable file does.
      var pathErrors = 0
      var emptyFolders: [String] = []
      for path in paths {
        guard let kind = system_fileKind(path, followingLinks: true) else {
          errors.write("\(path): error: no such file or directory\n")
          failed = true
          pathErrors += 1
          continue
        }
        if kind == .directory {
          guard recursive else {
            errors.write("\(path): error: is a directory (use -r to scan directories)\n")
            failed = true
            pathErrors += 1
            continue
          }
          let files = BinaryBatchScan.files(under: path)
          if files.isEmpty { emptyFolders.append(path) }
          inputs.append(contentsOf: files.map { .init(path: $0, explicit: false) })
        } else {
          inputs.append(.init(path: path, explicit: true))
        }
      }

      // Files are scanned on all cores; each one's output is written, in input order, as soon
      // as it and every file before it are done, and its report is then let go.
      // On a terminal, a line counting the files done, erased at the end.
      var progress: (@Sendable (Int, Int) -> Void)?
      if system_isTerminal(2) {
        progress = { (done: Int, total: Int) in
          errors.write("\rscanned \(done)/\(total)" + (done == total ? "\r\u{1b}[K" : ""))
        }
      }
      let outcomes = BinaryBatchScan(files: inputs, progress: progress)
      var summary = DumpSummary(files: pathErrors, errors: pathErrors)
      // Nothing to scan at all is no input (66), not a clean run; an empty folder beside other
      // input is only warned about.
      for folder in emptyFolders { errors.write("\(folder): warning: no files in this folder\n") }
      if inputs.isEmpty && pathErrors == 0 {
        errors.write("\(Diagnostics.command): error: no files to scan in \(emptyFolders.joined(separator: ", "))\n")
        throw ExitCode(ExitStatus.noInput)
      }
      for index in inputs.indices {
        var output = ""
        switch outcomes.take(index) {
        case .skipped:
          continue
        case .failed(path: let path, error: let error):
          let offset = error.offset.map { ":\(String(format: "0x%llx", $0))" } ?? ""
          errors.write("\(path)\(offset): error: \(error.message)\n")
          failed = true
          summary.files += 1
          summary.errors += 1
        case .scanned(let reports):
          summary.files += 1
          for report in reports {
            summary.blocks += report.blocks.count
            for warning in report.warnings {
              errors.write("\(report.file): warning: \(warning.message)\n")
            }
            if json {
              output += try JSONOutput.text(DumpReportV2(report), style: .line) + "\n"
            } else {
              output += Self.humanReadable(report, demangling: demangle)
            }
          }
        }
        FileHandle.standardOutput.write(Data(output.utf8))
      }
      errors.write("\(Diagnostics.command): \(summary)\n")
      if failed { throw ExitCode(ExitStatus.findings) }
    }

    // MARK: Human output

    /// `text` with control bytes as `\x01` escapes: names and signatures come from the binary
    /// (clang's descriptor symbols hold the signature, `\x01` included), not from a terminal.
    static func escaped(_ text: String) -> String {
      guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return text }
      var result = ""
      for scalar in text.unicodeScalars {
        if scalar.value < 0x20 || scalar.value == 0x7F {
          result += "\\x" + scalar.value.hexadecimal(digits: 2, prefixed: false)
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
      return result
    }

    /// The distinct invoke functions of a block, by symbol (else address): its global literals'
    /// and its construction sites'.
    static func invokeNames(_ block: ScannedBlock, demangling: Bool = false) -> [String] {
      func name(_ code: CodeReference) -> String? {
        let symbol = demangling ? code.symbol.map { SymbolDemangler.demangle($0) ?? $0 } : code.symbol
        return symbol.map(escaped) ?? code.address.map(hex)
      }
      var names: [String] = []
      for literal in block.literals { if let name = name(literal.invoke) { names.append(name) } }
      for site in block.constructionSites {
        guard let invoke = site.invoke, let name = name(invoke) else { continue }
        names.append(name)
      }
      var seen = Set<String>()
      return names.filter { seen.insert($0).inserted }
    }

    static func humanReadable(_ report: BinaryScanReport, demangling: Bool = false) -> String {
      var text = "\(report.file): \(report.format.rawValue) \(report.architecture) \(report.kind.rawValue)"
      text += report.hasSymbols ? "\n" : ", stripped\n"
      for block in report.blocks {
        let place: String
        if let address = block.descriptor.address {
          place =
            hex(address) + " " + block.descriptor.section + "+" + hex(block.descriptor.sectionOffset)
        } else {
          place = block.descriptor.section + "+" + hex(block.descriptor.sectionOffset)
        }
        var line = "  \(place)  \(block.kind.rawValue)  size \(block.size)  \(escaped(block.signature ?? "-"))"
        if let declaration = block.declaration { line += "  \(escaped(declaration))" }
        if let symbol = block.descriptor.symbol { line += "  \(escaped(symbol))" }
        if block.copyHelper != nil { line += "  copy/dispose" }
        if !block.literals.isEmpty { line += "  literals \(block.literals.count)" }
        if !block.constructionSites.isEmpty { line += "  sites \(block.constructionSites.count)" }
        let invokes = invokeNames(block, demangling: demangling)
        if !invokes.isEmpty { line += "  invoke " + invokes.joined(separator: ", ") }
        line += "  [" + block.evidence.map(\.rawValue).joined(separator: ",") + "]"
        text += line + "\n"
      }
      text +=
        "  \(counted(report.blocks.count, "descriptor")), \(counted(report.globalLiteralCount, "global literal")), "
        + "\(counted(report.distinctSignatureCount, "distinct signature"))\n"
      return text
    }
  }
}

/// Serialised writes to stderr.
final class StandardError: @unchecked Sendable {
  private let lock = NSLock()

  func write(_ text: String) {
    lock.lock()
    defer { lock.unlock() }
    FileHandle.standardError.write(Data(Diagnostics.colored(text).utf8))
  }
}
