import ArgumentParser
import Foundation

extension BlockSig {
  /// Parses and runs the command as argument-parser's `main()` does, with one error prefix:
  /// every diagnostic without a place in an input, argument-parser's usage errors included,
  /// starts `blocksig SUBCOMMAND: error:` (`blocksig: error:` before a subcommand is known).
  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    // The subcommand named on the command line, for an error found before parsing ends.
    if let first = arguments.first, configuration.subcommands.contains(where: { $0._commandName == first }) {
      Diagnostics.command = "blocksig \(first)"
    }
    do {
      var command = try parseAsRoot(arguments)
      Diagnostics.command = (["blocksig"] + commandPath(to: type(of: command))).joined(separator: " ")
      try command.run()
    } catch {
      Foundation.exit(exitStatus(reporting: error))
    }
  }

  /// Prints what `error` says, as argument-parser would but with the one error prefix, and
  /// returns the status to exit with; help and `--version` print on standard output.
  static func exitStatus(reporting error: any Error) -> Int32 {
    let code = exitCode(for: error)
    // Help, --version, and exit codes whose message was already written.
    let message = fullMessage(for: error)
    guard code != .success, !message.isEmpty else {
      if !message.isEmpty { print(message) }
      return code.rawValue
    }
    let prefix = "Error: "
    let text =
      message.hasPrefix(prefix) ? "\(Diagnostics.command): error: \(message.dropFirst(prefix.count))" : message
    Diagnostics.write(text.hasSuffix("\n") ? text : text + "\n")
    return code.rawValue
  }

  /// The names of the subcommands that lead from the root to `command` (`["objc", "classes"]`;
  /// empty for the root itself).
  static func commandPath(to command: any ParsableCommand.Type, from parent: any ParsableCommand.Type = BlockSig.self)
    -> [String]
  {
    for subcommand in parent.configuration.subcommands {
      if subcommand == command { return [subcommand._commandName] }
      let below = commandPath(to: command, from: subcommand)
      if !below.isEmpty { return [subcommand._commandName] + below }
    }
    return []
  }
}
