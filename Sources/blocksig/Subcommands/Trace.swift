import ArgumentParser
import BlockSignatureBinary
import BlockSignatureSystem
import Foundation

extension BlockSig {
  /// `blocksig trace`: run a program with the trace agent preloaded and report every call of
  /// its blocks.
  struct Trace: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Run a program and print every call of its blocks.",
      discussion: """
        PROGRAM runs with its arguments, standard input, output and error and environment as \
        they are, plus the trace agent (libBlockSignatureTraceAgent.so, next to blocksig) in \
        LD_PRELOAD. The agent traces every global block literal of the program and of each \
        library it loads (at start and after each dlopen), and every block _Block_copy puts on \
        the heap: blocks given to libdispatch, callbacks that are stored. A stack block called \
        where it was made, never copied, is not seen. A block without a signature is traced \
        with its arguments and result unknown; a note says so.

        Trace lines go to --output FILE, or to standard error; never to standard output. Text \
        lines read "[thread N] invoke-symbol  C type  (arguments) -> result". With --json, one \
        object per call: serializationVersion (1), event ("call"), block, invoke, invokeSymbol, \
        signature, arguments and result (blocksig call's value form; result null for void), \
        thread; a last object with event "summary" gives the calls per block.

        Examples:
          blocksig trace -- ./program arg
          blocksig trace --json --output calls.jsonl -- ./program
          blocksig trace --symbol __main_block_invoke_2 -- ./program

        Exits with the program's status, 128 + the signal's number when a signal ends it, 66 \
        when the program does not exist or cannot be run. A statically linked program runs \
        untraced, with a warning; so is said of a program that links no blocks runtime at \
        start (only libraries it loads later can bring blocks).
        """
    )

    @Flag(help: "Print JSON Lines: one object per call, then a summary.")
    var json = false

    @Option(help: ArgumentHelp("Write the trace to FILE (replaced) instead of standard error.", valueName: "file"))
    var output: String?

    @Option(
      name: .customLong("symbol"),
      help: ArgumentHelp(
        "Trace only blocks whose invoke function's symbol, or global literal's symbol, is NAME (repeatable).",
        valueName: "name"))
    var symbols: [String] = []

    @Argument(parsing: .postTerminator, help: "The program and its arguments, after --.")
    var program: [String] = []

    func run() throws {
      let command = program
      guard let name = command.first else {
        throw ValidationError("give the program to run after --")
      }
      guard let program = TraceLauncher.resolve(name) else {
        TraceLauncher.complain("\(name): no such program, or not executable")
        throw ExitCode(66)
      }
      var environment = system_environmentVariables()
      if TraceLauncher.isStaticallyLinked(program) {
        TraceLauncher.complain("warning: \(program) is statically linked: it runs untraced")
      } else if let agent = TraceLauncher.agentPath() {
        if TraceLauncher.linksABlocksRuntime(program) == false {
          TraceLauncher.complain(
            "warning: \(program) links no blocks runtime at start: only blocks of libraries it loads later are traced")
        }
        let preload = environment["LD_PRELOAD"].map { "\(agent) \($0)" } ?? agent
        environment["LD_PRELOAD"] = preload
        // The agent brings the Swift runtime, whose crash reporter would turn a crash into a
        // report and a clean exit: the program must crash as it would untraced.
        if environment["SWIFT_BACKTRACE"] == nil { environment["SWIFT_BACKTRACE"] = "enable=no" }
        environment["BLOCKSIG_TRACE_JSON"] = json ? "1" : "0"
        if !symbols.isEmpty { environment["BLOCKSIG_TRACE_SYMBOLS"] = symbols.joined(separator: "\n") }
        if let output {
          let path = TraceLauncher.absolute(output)
          if case .failure(let error) = system_createEmptyFile(path) {
            TraceLauncher.complain("\(output): cannot write: \(error.reason)")
            throw ExitCode(73)
          }
          environment["BLOCKSIG_TRACE_OUTPUT"] = path
        }
      } else {
        TraceLauncher.complain(
          "warning: the trace agent libBlockSignatureTraceAgent.so is not next to blocksig: the program runs untraced")
      }
      // The terminal's interrupt reaches the program; blocksig waits for it to decide.
      switch system_spawnAndWait(program, arguments: command, environment: environment) {
      case .success(let status):
        throw ExitCode(status)
      case .failure(let error) where error.call == "posix_spawn":
        TraceLauncher.complain("\(name): cannot be run: \(error.reason)")
        throw ExitCode(66)
      case .failure(let error):
        TraceLauncher.complain("\(name): lost: \(error.message)")
        throw ExitCode(1)
      }
    }
  }
}

/// Starting the traced program: finding it and the agent, and what the program links.
enum TraceLauncher {
  /// Writes `message` and a newline to standard error.
  static func complain(_ message: String) {
    var line = "blocksig trace: \(message)\n"
    _ = line.withUTF8 { system_writeAll(2, UnsafeRawBufferPointer($0)) }  // nowhere else to say it failed
  }

  /// `path` made absolute against the current directory.
  static func absolute(_ path: String) -> String {
    guard !path.hasPrefix("/"), let directory = system_currentDirectory() else { return path }
    return directory + "/" + path
  }

  /// The executable `name` names: a path when it has a slash, else the first match on PATH.
  static func resolve(_ name: String) -> String? {
    if name.contains("/") { return system_isExecutable(name) ? name : nil }
    let path = system_environment("PATH") ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":", omittingEmptySubsequences: false) {
      let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + name
      if system_isExecutable(candidate) { return candidate }
    }
    return nil
  }

  /// The agent library next to this executable, if it is there.
  static func agentPath() -> String? {
    guard let executable = system_executablePath(), let slash = executable.lastIndex(of: "/") else { return nil }
    let agent = String(executable[..<slash]) + "/libBlockSignatureTraceAgent.so"
    return system_isRegularFile(agent) ? agent : nil
  }

  /// Whether the libraries the dynamic linker maps for `program` at start (`ldd`, which asks
  /// the linker to list them without running the program) include a blocks runtime: the
  /// toolchain's or Debian's libBlocksRuntime, or GNUstep Base's private one; nil when `ldd`
  /// cannot tell.
  static func linksABlocksRuntime(_ program: String) -> Bool? {
    let candidates: [String] = ["/usr/bin/ldd", "/bin/ldd"]
    guard let ldd = candidates.first(where: system_isExecutable) else { return nil }
    let folder = FileManager.default.temporaryDirectory.path
    let output = "\(folder)/blocksig-ldd-\(system_processID()).txt"
    defer { system_removeFile(output) }
    guard
      case .success(.exited(0)) = system_runProgram(
        ldd, [program], directory: "/", outputPath: output, errorPath: "/dev/null", timeLimit: 10),
      let listed = try? String(contentsOfFile: output, encoding: .utf8)
    else { return nil }
    return listed.contains("libBlocksRuntime") || listed.contains("libgnustep-base")
  }

  /// Whether the ELF file at `path` has no program interpreter (a static executable). A file
  /// that is not ELF (a script) is left to the kernel: not static.
  static func isStaticallyLinked(_ path: String) -> Bool {
    elfNamesProgramInterpreter(atPath: path) == false
  }
}
