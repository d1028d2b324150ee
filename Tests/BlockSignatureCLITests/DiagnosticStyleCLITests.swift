import Foundation
import TestSupport
import Testing

/// One way of writing diagnostics on every subcommand: the `blocksig SUBCOMMAND: error:` prefix
/// (argument-parser's usage errors included), and colour only on a terminal that wants it.
@Suite struct DiagnosticStyleCLITests {
  @Test(
    arguments: zip(
      [["check", "i"], ["dump"], ["inspect", "--pid", "0"], ["decode", "--target", "vax"], ["nosuch"]],
      [
        "blocksig check: error: Missing expected argument '<expected>'",
        "blocksig dump: error: Missing expected argument '<paths> ...'",
        "blocksig inspect: error: Give --pid, a process ID above 0, with --address or --all.",
        "blocksig decode: error: The value 'vax' is invalid for '--target <target>'. Please provide one of "
          + "'x86_64-linux', 'aarch64-linux', 'arm64-apple', 'i386-linux' or 'x86_64-windows'.",
        "blocksig: error: Unexpected argument 'nosuch'",
      ]))
  func usageErrorsHaveTheCommandPrefix(arguments: [String], firstLine: String) throws {
    let output = try blocksig(arguments)
    #expect(output.status == 64)
    #expect(output.stdout == "")
    #expect(output.stderr.split(separator: "\n").first.map(String.init) == firstLine)
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
