import ArgumentParser
import Foundation

/// Writes diagnostics to stderr; stdout holds results only.
enum Diagnostics {
  /// Prints `blocksig: error: message` (`blocksig call: error: …` with a `command`) to stderr
  /// and returns the exit code to throw.
  static func fail(_ code: Int32, _ message: String, command: String? = nil) -> ExitCode {
    write("blocksig\(command.map { " " + $0 } ?? ""): error: \(message)\n")
    return ExitCode(code)
  }

  /// Prints `blocksig: warning: message` to stderr.
  static func warn(_ message: String) {
    write("blocksig: warning: \(message)\n")
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
func hex(_ value: UInt) -> String { "0x" + String(value, radix: 16) }
