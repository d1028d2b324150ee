import ArgumentParser
import BlockSignatureSystem
import Foundation
import Glibc

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
      var environment = TraceLauncher.environment()
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
          let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
          guard descriptor >= 0 else {
            TraceLauncher.complain("\(output): cannot write: \(String(cString: strerror(errno)))")
            throw ExitCode(73)
          }
          close(descriptor)
          environment["BLOCKSIG_TRACE_OUTPUT"] = path
        }
      } else {
        TraceLauncher.complain(
          "warning: the trace agent libBlockSignatureTraceAgent.so is not next to blocksig: the program runs untraced")
      }
      let status = TraceLauncher.run(program, arguments: command, environment: environment)
      guard let status else {
        TraceLauncher.complain("\(name): cannot be run: \(String(cString: strerror(errno)))")
        throw ExitCode(66)
      }
      throw ExitCode(status)
    }
  }
}

/// Starting the traced program: finding it, its environment, the agent, waiting for it.
enum TraceLauncher {
  /// Writes `message` and a newline to standard error.
  static func complain(_ message: String) {
    let line = "blocksig trace: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
  }

  /// `path` made absolute against the current directory.
  static func absolute(_ path: String) -> String {
    guard !path.hasPrefix("/") else { return path }
    guard let directory = getcwd(nil, 0) else { return path }
    defer { free(directory) }
    return String(cString: directory) + "/" + path
  }

  /// The executable `name` names: a path when it has a slash, else the first match on PATH.
  static func resolve(_ name: String) -> String? {
    if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":", omittingEmptySubsequences: false) {
      let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + name
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }

  /// This process's environment, by name.
  static func environment() -> [String: String] {
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
      let text = String(cString: pointer)
      if let equals = text.firstIndex(of: "=") {
        result[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      entry += 1
    }
    return result
  }

  /// The agent library next to this executable, if it is there.
  static func agentPath() -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    let executable = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = executable.lastIndex(of: "/") else { return nil }
    let agent = String(executable[..<slash]) + "/libBlockSignatureTraceAgent.so"
    return access(agent, R_OK) == 0 ? agent : nil
  }

  /// Whether the libraries the dynamic linker maps for `program` at start (`ldd`, which asks
  /// the linker to list them without running the program) include a blocks runtime: the
  /// toolchain's or Debian's libBlocksRuntime, or GNUstep Base's private one; nil when `ldd`
  /// cannot tell.
  static func linksABlocksRuntime(_ program: String) -> Bool? {
    let candidates: [String] = ["/usr/bin/ldd", "/bin/ldd"]
    guard let ldd = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
    let folder = FileManager.default.temporaryDirectory.path
    let output = "\(folder)/blocksig-ldd-\(getpid()).txt"
    defer { unlink(output) }
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
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var header = [UInt8](repeating: 0, count: 64)
    guard pread(descriptor, &header, 64, 0) == 64, header[0..<4] == [0x7f, 0x45, 0x4c, 0x46], header[4] == 2 else {
      return false
    }
    let load = { (offset: Int, size: Int) -> Int in
      (0..<size).reduce(0) { $0 | Int(header[offset + $1]) << (8 * $1) }
    }
    let (table, entrySize, count) = (load(32, 8), load(54, 2), load(56, 2))
    var entry = [UInt8](repeating: 0, count: 4)
    for index in 0..<count {
      guard pread(descriptor, &entry, 4, off_t(table + index * entrySize)) == 4 else { return false }
      if entry == [3, 0, 0, 0] { return false }  // PT_INTERP
    }
    return true
  }

  /// Runs `program` with `arguments` (the first is its name) and `environment`, waits for it
  /// and returns its exit status, or 128 + the signal that ended it; nil when it cannot start.
  static func run(_ program: String, arguments: [String], environment: [String: String]) -> Int32? {
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      argv.forEach { free($0) }
      envp.forEach { free($0) }
    }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, program, nil, nil, argv, envp)
    guard spawned == 0 else {
      errno = spawned
      return nil
    }
    // The terminal's interrupt reaches the program; blocksig waits for it to decide.
    signal(SIGINT, SIG_IGN)
    signal(SIGQUIT, SIG_IGN)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { return 1 }
    }
    if status & 0x7f == 0 { return (status >> 8) & 0xff }
    return 128 + (status & 0x7f)
  }
}
