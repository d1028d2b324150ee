import ArgumentParser
import Foundation

extension BlockSig {
  /// Parses and runs the command as argument-parser's `main()` does, with one error prefix:
  /// every diagnostic without a place in an input, argument-parser's usage errors included,
  /// starts `blocksig SUBCOMMAND: error:` (`blocksig: error:` before a subcommand is known).
  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    // The subcommands named on the command line (`objc classes`), for an error found before
    // parsing ends; colour as the flags and the environment say.
    let context = Diagnostics.Context(
      command: (["blocksig"] + namedPath(in: arguments)).joined(separator: " "),
      usesColor: DiagnosticOptions.usesColor(
        arguments: arguments, environment: ProcessInfo.processInfo.environment))
    Foundation.exit(Diagnostics.$context.withValue(context) { run(arguments) })
  }

  /// Parses and runs the command line; the status to exit with.
  static func run(_ arguments: [String]) -> Int32 {
    // No subcommand is a usage error (the help goes to standard error), and so is help for a
    // subcommand that does not exist.
    if arguments.isEmpty {
      Diagnostics.write(helpMessage(columns: nil) + "\n")
      return ExitStatus.usage
    }
    let named = namedPath(in: Array(arguments.dropFirst()))
    if arguments.first == "help", arguments.count > 1, named.count < arguments.count - 1 {
      let unknown = arguments.dropFirst(1 + named.count).first ?? ""
      Diagnostics.write("blocksig help: error: no subcommand '\(unknown)' (blocksig --help lists them)\n")
      return ExitStatus.usage
    }
    do {
      let parsed = try parseAsRoot(arguments)
      var context = Diagnostics.context
      context.command = (["blocksig"] + commandPath(to: type(of: parsed))).joined(separator: " ")
      return try Diagnostics.$context.withValue(context) {
        var command = parsed
        try command.run()
        return 0
      }
    } catch {
      return exitStatus(reporting: error)
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
