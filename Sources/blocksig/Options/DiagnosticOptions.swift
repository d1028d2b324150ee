import ArgumentParser
import Foundation

/// `--color-diagnostics` / `--no-color-diagnostics`, on every subcommand: colours in the
/// diagnostics written to standard error. By default they are coloured when standard error is a
/// terminal, as swift-format does, unless `NO_COLOR` is set to anything but the empty string
/// (no-color.org) or `TERM` is `dumb`; the flags win over both. Results on standard output are
/// never coloured.
struct DiagnosticOptions: ParsableArguments {
  @Flag(inversion: .prefixedNo, help: "Colour the diagnostics on standard error (default: when it is a terminal).")
  var colorDiagnostics: Bool?

  /// Whether this run colours its diagnostics: the last of the two flags before `--` wins,
  /// else ``colorByDefault(environment:)``. Read from the raw arguments, so that errors found
  /// while parsing are coloured the same way.
  static func usesColor(arguments: [String], environment: [String: String]) -> Bool {
    let flag = arguments.prefix { $0 != "--" }.last { $0 == "--color-diagnostics" || $0 == "--no-color-diagnostics" }
    guard let flag else { return colorByDefault(environment: environment) }
    return flag == "--color-diagnostics"
  }

  /// Whether diagnostics are coloured when no flag says: standard error is a terminal, `NO_COLOR`
  /// is unset or empty, and `TERM` is not `dumb`.
  static func colorByDefault(environment: [String: String]) -> Bool {
    guard isatty(2) == 1 else { return false }
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
    return environment["TERM"] != "dumb"
  }
}

extension Diagnostics {
  /// Whether ``write(_:)`` colours `error:`, `warning:` and `note:` and the location before
  /// them (``Context/usesColor``).
  static var usesColor: Bool { context.usesColor }

  /// `text` with, on each line, the location in bold and the severity in colour (red errors,
  /// magenta warnings, cyan notes, as clang and swift-format print them); unchanged when colour
  /// is off.
  static func colored(_ text: String) -> String {
    guard usesColor else { return text }
    return text.split(separator: "\n", omittingEmptySubsequences: false).map(coloredLine).joined(separator: "\n")
  }

  private static func coloredLine(_ line: Substring) -> String {
    for (severity, color) in [("error:", "31"), ("warning:", "35"), ("note:", "36")] {
      let marker = ": " + severity + " "
      if let range = line.range(of: marker) {
        let location = line[..<range.lowerBound]
        let rest = line[range.upperBound...]
        return "\u{1B}[1m\(location):\u{1B}[0m \u{1B}[1;\(color)m\(severity)\u{1B}[0m \(rest)"
      }
    }
    return String(line)
  }
}
