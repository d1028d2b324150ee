import Foundation
import TestSupport
import Testing

/// The whole `--help` of `blocksig` and of each subcommand, as printed 80 columns wide, against
/// the pinned text in `Fixtures/Help/` (`blocksig.txt`, `decode.txt`, `objc-protocol.txt`, …): a
/// changed line of help fails here, so that help changes only on purpose. To change the help,
/// change the pinned file with it (`COLUMNS=80 LINES=25 blocksig decode --help`).
@Suite struct HelpCLITests {
  /// `blocksig ARGUMENTS --help`, with the width fixed (COLUMNS, LINES) so that a terminal's
  /// size in the environment cannot change where ArgumentParser wraps.
  static func help(_ arguments: [String]) throws -> Toolchain.Output {
    try blocksig(arguments + ["--help"], environment: ["COLUMNS": "80", "LINES": "25"])
  }

  @Test(arguments: [
    "", "decode", "inspect", "call", "dump", "method", "block", "check", "table", "objc", "objc protocol",
    "objc class", "objc classes", "trace",
  ])
  func helpIsAsPinned(_ command: String) throws {
    let output = try Self.help(command.split(separator: " ").map(String.init))
    #expect(output.status == 0)
    #expect(output.stderr == "")
    #expect(output.stdout == (try Self.pinned(command)))
  }

  /// `blocksig` alone is a usage error (its help on standard error), and so is help for a
  /// subcommand that does not exist.
  @Test func noSubcommandIsAUsageError() throws {
    let bare = try blocksig([])
    #expect(bare.status == 64)
    #expect(bare.stdout == "")
    #expect(bare.stderr.hasPrefix("OVERVIEW: Inspect and call clang blocks"))
    let unknown = try blocksig(["help", "nosuch"])
    #expect(unknown.status == 64)
    #expect(unknown.stderr == "blocksig help: error: no subcommand 'nosuch' (blocksig --help lists them)\n")
    #expect(try blocksig(["help", "objc", "classes"]).status == 0)
  }

  /// Each subcommand the top-level help lists has its help pinned in `Fixtures/Help/` (and the
  /// subcommands of a group as `GROUP-SUBCOMMAND.txt`).
  @Test func everySubcommandIsPinned() throws {
    let listed = try Self.help([]).stdout.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
      let name = line.dropFirst(2).prefix { $0 != " " }
      return !name.isEmpty && name.allSatisfy(\.isLowercase) ? String(name) : nil
    }
    #expect(listed.count == 10)
    let pinned = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path)
      .filter { $0.hasSuffix(".txt") && $0 != "blocksig.txt" && !$0.contains("-") }
      .map { String($0.dropLast(4)) }
    #expect(Set(listed) == Set(pinned))
  }

  /// The folder of the pinned help texts.
  static let folder = Toolchain.packageRoot.appendingPathComponent("Fixtures/Help")

  /// The pinned help of `command` ("" for `blocksig` itself; "objc class" in `objc-class.txt`).
  static func pinned(_ command: String) throws -> String {
    let name = command.isEmpty ? "blocksig" : command.replacingOccurrences(of: " ", with: "-")
    return try String(contentsOf: folder.appendingPathComponent("\(name).txt"), encoding: .utf8)
  }
}
