import ArgumentParser
import BlockSignature
import Foundation

/// Writes diagnostics to stderr; stdout holds results only.
enum Diagnostics {
  /// How this run writes diagnostics: bound by `BlockSig.main()` for the whole run (a task
  /// local, read-only below it), never a global that changes.
  struct Context: Sendable {
    /// `blocksig SUBCOMMAND`, the prefix of every diagnostic without a place in an input: the
    /// subcommand parsed, or the one named on the command line when parsing fails.
    var command = "blocksig"
    /// Whether `error:`, `warning:` and `note:` and the location before them are coloured.
    var usesColor = false
  }

  @TaskLocal static var context = Context()

  /// The prefix of this run's diagnostics (``Context/command``).
  static var command: String { context.command }

  /// Prints `blocksig SUBCOMMAND: error: message` to stderr and returns the exit code to throw.
  static func fail(_ code: Int32, _ message: String) -> ExitCode {
    write("\(command): error: \(message)\n")
    return ExitCode(code)
  }

  /// Prints `blocksig SUBCOMMAND: warning: message` to stderr.
  static func warn(_ message: String) {
    write("\(command): warning: \(message)\n")
  }

  static func write(_ text: String) {
    FileHandle.standardError.write(Data(colored(text).utf8))
  }
}

/// `0x…` spelling of an address.
func hex(_ value: some BinaryInteger) -> String { value.hexadecimal() }
