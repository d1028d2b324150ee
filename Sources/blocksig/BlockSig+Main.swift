import ArgumentParser
import Foundation

extension BlockSig {
  /// Parses and runs the command as argument-parser's `main()` does, with one error prefix:
  /// every diagnostic without a place in an input, argument-parser's usage errors included,
  /// starts `blocksig SUBCOMMAND: error:` (`blocksig: error:` before a subcommand is known).
  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    // The subcommands named on the command line (`objc classes`), for an error found before
    // parsing ends.
    Diagnostics.command = (["blocksig"] + namedPath(in: arguments)).joined(separator: " ")
    // No subcommand is a usage error (the help goes to standard error), and so is help for a
    // subcommand that does not exist.
    if arguments.isEmpty {
      Diagnostics.write(helpMessage(columns: nil) + "\n")
      Foundation.exit(ExitStatus.usage)
    }
    if arguments.first == "help", arguments.count > 1,
      namedPath(in: Array(arguments.dropFirst())).count < arguments.count - 1
    {
      let unknown = arguments.dropFirst(1 + namedPath(in: Array(arguments.dropFirst())).count).first ?? ""
      Diagnostics.write("blocksig help: error: no subcommand '\(unknown)' (blocksig --help lists them)\n")
      Foundation.exit(ExitStatus.usage)
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
    var text =
      message.hasPrefix(prefix) ? "\(Diagnostics.command): error: \(message.dropFirst(prefix.count))" : message
    // `-1` reads as an option: say how to pass a negative number.
    if let option = text.firstRange(of: "Unknown option '-"), let next = text[option.upperBound...].first,
      next.isNumber || next == "."
    {
      let line = text.prefix { $0 != "\n" }
      text =
        line + " (put -- before the arguments when one is a negative number: \(Diagnostics.command) … -- -1)"
        + text.dropFirst(line.count)
    }
    Diagnostics.write(text.hasSuffix("\n") ? text : text + "\n")
    return code.rawValue
  }

  /// The subcommand names that `arguments` start with, as far as they name nested commands.
  static func namedPath(in arguments: [String]) -> [String] {
    var path: [String] = []
    var parent: any ParsableCommand.Type = BlockSig.self
    for argument in arguments {
      guard let next = parent.configuration.subcommands.first(where: { $0._commandName == argument }) else { break }
      path.append(argument)
      parent = next
    }
    return path
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
