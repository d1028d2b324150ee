import Foundation
import TestSupport
import Testing

/// One way of writing diagnostics on every subcommand: the `blocksig SUBCOMMAND: error:` prefix
/// (argument-parser's usage errors included), and colour only on a terminal that wants it.
@Suite struct DiagnosticStyleCLITests {
  @Test(
    arguments: zip(
      [
        ["check", "i"], ["dump"], ["inspect", "--pid", "0"], ["decode", "--target", "vax"], ["nosuch"],
        ["objc", "classes"], ["objc", "protocol", "h.h"], ["call", "--library", "x.so", "--symbol", "f", "-1"],
      ],
      [
        "blocksig check: error: Missing expected argument '<expected>'",
        "blocksig dump: error: Missing expected argument '<paths> ...'",
        "blocksig inspect: error: Give --pid, a process ID above 0, with --address or --all.",
        "blocksig decode: error: The value 'vax' is invalid for '--target <target>'. Please provide one of "
          + "'x86_64-linux', 'aarch64-linux', 'arm64-apple', 'i386-linux' or 'x86_64-windows'.",
        "blocksig: error: Unexpected argument 'nosuch'",
        "blocksig objc classes: error: Missing expected argument '<library>'",
        "blocksig objc protocol: error: Missing expected argument '--protocol <protocol>'",
        "blocksig call: error: Unknown option '-1' (put -- before the arguments when one is a negative number: "
          + "blocksig call … -- -1)",
      ]))
  func usageErrorsHaveTheCommandPrefix(arguments: [String], firstLine: String) throws {
    let output = try blocksig(arguments)
    #expect(output.status == 64)
    #expect(output.stdout == "")
    #expect(output.stderr.split(separator: "\n").first.map(String.init) == firstLine)
  }

  /// Every subcommand takes the colour flags.
  @Test(arguments: [
    ["decode", "i"], ["check", "i", "i"], ["method", "v8@?0"], ["block", "v16@0:8"], ["dump", "/nonexistent"],
    ["inspect", "--pid", "1", "--address", "0"], ["call", "--library", "/nonexistent", "--symbol", "f"],
    ["table", "/nonexistent.h", "--struct", "s"], ["objc", "protocol", "/nonexistent.h", "--protocol", "P"],
    ["objc", "classes", "/nonexistent.so"],
  ])
  func everySubcommandTakesTheColourFlags(_ arguments: [String]) throws {
    for flag in ["--color-diagnostics", "--no-color-diagnostics"] {
      let output = try blocksig(arguments + [flag])
      #expect(output.status != 64, "\(arguments) \(flag): \(output.stderr)")
      #expect(!output.stderr.contains("Unknown option"), "\(arguments) \(flag): \(output.stderr)")
    }
  }

  @Test func failuresAfterParsingHaveTheCommandPrefix() throws {
    let call = try blocksig("call", "--library", "/nonexistent/libnone.so", "--symbol", "f")
    #expect(call.status == 66)
    #expect(call.stderr == "blocksig call: error: /nonexistent/libnone.so: No such file or directory\n")
    let inspect = try blocksig("inspect", "--library", "/nonexistent/libnone.so", "--symbol", "f")
    #expect(inspect.status == 66)
    #expect(inspect.stderr == "blocksig inspect: error: /nonexistent/libnone.so: No such file or directory\n")
  }

  /// `blocksig decode 'i!'` with standard error on a terminal (`script` gives it one), in
  /// `environment`; what the terminal showed.
  static func onTerminal(_ environment: [String: String], flags: [String] = []) throws -> String {
    let command = ([Toolchain.blocksig, "decode"] + flags + ["'i!'"]).joined(separator: " ")
    let output = try Toolchain.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment)
    #expect(output.stdout.contains("unexpected byte '!'"), "\(output.stdout)")
    return output.stdout
  }

  @Test func colourOnATerminalUnlessNoColorOrDumb() throws {
    let escape = "\u{1B}["
    #expect(try Self.onTerminal(["TERM": "xterm", "NO_COLOR": ""]).contains(escape))
    #expect(!(try Self.onTerminal(["TERM": "xterm", "NO_COLOR": "1"]).contains(escape)))
    #expect(!(try Self.onTerminal(["TERM": "dumb", "NO_COLOR": ""]).contains(escape)))
    // The flag wins over the environment.
    #expect(try Self.onTerminal(["TERM": "dumb", "NO_COLOR": "1"], flags: ["--color-diagnostics"]).contains(escape))
  }
}
