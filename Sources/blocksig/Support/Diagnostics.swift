import ArgumentParser
import BlockSignature
import Foundation

/// Writes diagnostics to stderr; stdout holds results only.
enum Diagnostics {
  /// `blocksig SUBCOMMAND`, the prefix of every diagnostic without a place in an input; set by
  /// `BlockSig.main()` from the subcommand parsed, or named on the command line when parsing fails.
  nonisolated(unsafe) static var command = "blocksig"

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

/// Prints one JSON document on stdout, pretty-printed with sorted keys.
enum JSONOutput {
  static func print(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    var data = try encoder.encode(value)
    data.append(UInt8(ascii: "\n"))
    FileHandle.standardOutput.write(data)
  }
}

/// `0x…` spelling of an address.
func hex(_ value: some BinaryInteger) -> String { value.hexadecimal() }
