import ArgumentParser
import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime
import Foundation

extension BlockSig {
  /// `blocksig check`: can a candidate signature be used where another is expected.
  struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Check whether a candidate signature can be used where another is expected.",
      discussion: """
        Compares the return type and the explicit arguments (after the block, or after self and \
        _cmd), so a block can be checked against a block, a method or a function: method \
        arguments 2… meet block arguments 1…. Every difference is explained with its position, \
        both encodings, the numbers and the encoding that would match.

        Levels, strictest first:
          identical   the same types; offsets ignored
          equivalent  also ignores qualifiers, class names, object kinds, *≈^c,
                      anonymous against named structs ({?=ii}≈{P=ii}, but not
                      {A=ii}≈{B=ii}), opaque against expanded, field names
          abi         the same size, register class and place (registers, or
                      stack once the argument registers run out) on --target;
                      signedness differences warn
          blockskit   BlocksKit's first-character rule (the longer signature is
                      the method), without its flaw that passes any two types
          aspects     Aspects' rule: fewer block arguments allowed, argument 1
                      an object, return ignored

        Examples:
          blocksig check 'v16@?0@8' 'v24@0:8@16'
          blocksig check --level abi --json 'v20@?0i8q12' 'v16@?0i8i12'

        Exit codes: 0 compatible, 1 not compatible, 64 usage error, 65 malformed signature \
        (the byte offset and the input underlined on standard error).
        """
    )

    @Option(help: "How strictly to compare.")
    var level: CompatibilityLevel = .equivalent

    @OptionGroup var targetOption: TargetOption
    var target: DataModel { targetOption.target }

    @OptionGroup var jsonOption: JSONOption
    var json: Bool { jsonOption.json }

    @Argument(help: "The signature to check (usually a block).")
    var candidate: String

    @Argument(help: "The signature it must fit (a block, method or function).")
    var expected: String

    @OptionGroup var diagnostics: DiagnosticOptions

    func run() throws {
      let parsedCandidate: SignatureEncoding
      let parsedExpected: SignatureEncoding
      do {
        parsedCandidate = try SignatureEncoding(parsing: candidate)
      } catch {
        throw Diagnostics.malformed(error, label: "<candidate>")
      }
      do {
        parsedExpected = try SignatureEncoding(parsing: expected)
      } catch {
        throw Diagnostics.malformed(error, label: "<expected>")
      }
      let report = CompatibilityChecker(level: level, model: target).check(
        parsedCandidate, against: parsedExpected)
      if json {
        try JSONOutput.print(CheckReportV1(report, candidate: candidate, expected: expected))
      } else {
        print(text(report), terminator: "")
      }
      if !report.isCompatible { throw ExitCode(ExitStatus.findings) }
    }

    /// The human-readable report: a verdict line, then each diagnostic with both signatures
    /// underlined at its position, its notes and its fix-it.
    func text(_ report: CompatibilityReport) -> String {
      var output =
        "\(report.isCompatible ? "compatible" : "not compatible") at level \(level.rawValue) (\(report.model.name))\n"
      for diagnostic in report.diagnostics {
        output += Self.text(diagnostic, candidate: candidate, expected: expected)
      }
      return output
    }

    /// One diagnostic as `check` prints it: severity and message, both signatures underlined
    /// at its position, its notes and its fix-it (`call` prints them the same way). A signature
    /// over 100 bytes is shown as the 100 bytes around its underline, with `…` where it is cut.
    static func text(_ diagnostic: Diagnostic, candidate: String, expected: String) -> String {
      var output = "\(diagnostic.severity.rawValue): \(diagnostic.message)\n"
      output += "  candidate: " + excerpt(candidate, underlining: diagnostic.location.candidateRange)
      output += "  expected:  " + excerpt(expected, underlining: diagnostic.location.expectedRange)
      for note in diagnostic.notes { output += "  note: \(note.message)\n" }
      for fixIt in diagnostic.fixIts { output += "  fix-it: \(fixIt.message)\n" }
      return output
    }

    /// `signature`'s line, cut to 100 bytes around `range`, and the underline of `range` (what
    /// of it is shown) indented past the 13 columns of `  candidate: `.
    static func excerpt(_ signature: String, underlining range: Range<Int>?) -> String {
      let shown = Diagnostics.excerpt(signature, around: range?.lowerBound ?? 0)
      guard let range else { return shown.text + "\n" }
      let length = max(1, min(range.count, shown.end - shown.column))
      return shown.text + "\n" + underline(0..<length, indent: 13 + shown.column) + "\n"
    }
  }
}

extension CompatibilityLevel: ExpressibleByArgument {}
