import ArgumentParser
import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime
import Foundation

extension BlockSig {
  struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Inspect a live block: one a shared library provides, or one in a running process.",
      discussion: """
        With --library, the block is either returned by a `const void *(*)(void)` function \
        (--symbol) or held in a global block variable (--variable). --library takes a path, or \
        a bare name searched for as dlopen searches (LD_LIBRARY_PATH, /etc/ld.so.cache, the \
        default folders; ./NAME for a file in the current folder). The file is checked before \
        it is loaded (in range, for this machine). Loading runs the library's code — its \
        constructors, and the --symbol function — in a child process of blocksig's, which \
        prints the report: a crash there is reported as an error (exit 70), never brings \
        blocksig down. Still, that code runs as you: inspect only libraries you trust. A \
        --symbol function that is not a block accessor (one that takes arguments, or returns \
        no block) runs with whatever its registers hold.

        With --pid and --address, the block at that address in another process is read \
        (process_vm_readv: the same user, or CAP_SYS_PTRACE, and a Yama ptrace_scope that \
        allows it), without stopping or changing the process; names come from the image files \
        its /proc/<pid>/maps lists. Take the address from a debugger, a log or the program \
        itself. With --pid and --all, the process's readable memory (heap, stacks, data) is \
        searched for words holding the address of a block class of its runtime, and every one \
        that reads as a block of that class is listed.

        Examples:
          blocksig inspect --library libBlockFixtures.so --symbol bf_int_long
          blocksig inspect --library libfoo.so --variable handler --json
          blocksig inspect --pid 4242 --address 0x55d0c6f4a2c0
          blocksig inspect --pid 4242 --all --json

        Exit codes: 0 success, 64 usage error, 65 the symbol or address is not a block-looking \
        object, 66 the library cannot be found, read or loaded (a damaged file: \
        `FILE: error: …` says what is out of range), or has no such symbol, or the process \
        does not exist, may not be read or is a 32-bit program; 70 the library's code crashed \
        (the signal and where), 130 interrupted.
        """
    )

    @Option(
      name: .long,
      help: "The shared library to load: a path, or a bare name searched for as dlopen does.")
    var library: String?

    @Option(name: .long, help: "A function that takes no arguments and returns the block; it is called.")
    var symbol: String?

    @Option(name: .long, help: "A global variable that holds the block.")
    var variable: String?

    @Option(name: .long, help: "A running process to read the block from (with --address).")
    var pid: Int32?

    @Option(
      name: .long,
      help: ArgumentHelp("The block's address in that process, hex (0x…) or decimal.", valueName: "address"))
    var address: String?

    @Flag(name: .long, help: "With --pid: list every block found in the process's memory.")
    var all = false

    @OptionGroup var jsonOption: JSONOption
    var json: Bool { jsonOption.json }

    @Flag(
      name: [.customShort("C"), .long],
      help: "Show Swift, C++ and block invoke names demangled in the text (JSON has both forms).")
    var demangle = false

    func validate() throws {
      if pid != nil || address != nil || all {
        guard library == nil, symbol == nil, variable == nil else {
          throw ValidationError("Give either --library with --symbol or --variable, or --pid with --address or --all.")
        }
        guard let pid, pid > 0 else {
          throw ValidationError("Give --pid, a process ID above 0, with --address or --all.")
        }
        if all {
          guard address == nil else { throw ValidationError("Give --address or --all, not both.") }
          return
        }
        guard let address else { throw ValidationError("Give --address or --all with --pid.") }
        guard Self.parseAddress(address) != nil else {
          throw ValidationError("--address '\(address)' is not an address: write 0x55d0c6f4a2c0 or a decimal number.")
        }
        return
      }
      guard library != nil else {
        throw ValidationError("Give --library with --symbol or --variable, or --pid with --address.")
      }
      if (symbol == nil) == (variable == nil) {
        throw ValidationError("Give exactly one of --symbol and --variable.")
      }
    }

    /// `0x`-prefixed hexadecimal or decimal, as debuggers print addresses.
    static func parseAddress(_ text: String) -> UInt? {
      if text.hasPrefix("0x") || text.hasPrefix("0X") { return UInt(text.dropFirst(2), radix: 16) }
      return UInt(text)
    }

    @OptionGroup var diagnostics: DiagnosticOptions

    func run() throws {
      if let pid, all {
        try listBlocks(inProcess: pid)
        return
      }
      if let pid, let address = address.flatMap(Self.parseAddress) {
        try inspect(address, inProcess: pid)
        return
      }
      try LibraryCodeRun.run { child in try inspectLibraryBlock(marking: child) }
    }

    /// `--library` with `--symbol` or `--variable`: loads the library and reads the block, in
    /// the child process of a ``LibraryCodeRun``.
    func inspectLibraryBlock(marking child: ContainedRun) throws {
      let name = symbol ?? variable ?? ""
      let loaded: LibraryBlock
      do {
        loaded = try LibraryBlock(library: library ?? "", symbol: symbol, variable: variable, marking: child)
      } catch {
        throw error.report()
      }
      let runtimes = BlocksRuntime.loaded
      try report(loaded.info, place: loaded.place, runtimes: runtimes, loaded: "loaded") {
        InspectReportV1(
          library: loaded.path, symbol: name, source: symbol != nil ? "function" : "variable", info: loaded.info,
          runtime: BlocksRuntime.current, loadedRuntimes: runtimes, warnings: $0)
      }
    }

    /// `--pid` and `--address`: the block in another process.
    func inspect(_ address: UInt, inProcess pid: Int32) throws {
      let info: BlockInfo
      do {
        info = try BlockInfo(inspecting: address, inProcess: pid)
      } catch {
        if error.kind == .processNotReadable || error.kind == .unsupportedProcess {
          throw Diagnostics.fail(ExitStatus.noInput, "\(error)")
        }
        throw Diagnostics.fail(ExitStatus.dataError, "process \(pid): \(error)")
      }
      let runtimes = BlocksRuntime.loaded(inProcess: pid, containing: info.isa)
      try report(
        info, place: "\(hex(address)) in process \(pid)", runtimes: runtimes,
        loaded: "mapped in process \(pid)"
      ) {
        InspectReportV1(
          process: pid, info: info, runtime: runtimes.first, loadedRuntimes: runtimes, warnings: $0)
      }
    }

    /// `--pid` and `--all`: every block in another process, a line each (or one JSON document).
    func listBlocks(inProcess pid: Int32) throws {
      let blocks: [BlockInfo]
      do {
        blocks = try BlockInfo.blocks(inProcess: pid)
      } catch {
        // No block address to name: the reason alone ("cannot read process …").
        throw Diagnostics.fail(ExitStatus.noInput, error.message)
      }
      let runtimes = BlocksRuntime.loaded(inProcess: pid, containing: blocks.first?.isa ?? 0)
      var warnings: [String] = []
      if runtimes.isEmpty {
        warnings.append("no blocks runtime is mapped in process \(pid): there are no block classes to look for")
      } else if runtimes.count > 1 {
        warnings.append(
          "\(runtimes.count) blocks runtimes are mapped in process \(pid) (\(runtimes.map(\.path).joined(separator: ", ")))"
        )
      }
      for warning in warnings { Diagnostics.warn(warning) }
      let reports = blocks.map { block in
        let runtime = runtimes.first { $0.referenceCountConvention == block.referenceCountConvention } ?? runtimes.first
        return InspectReportV1(process: pid, info: block, runtime: runtime, loadedRuntimes: runtimes, warnings: [])
      }
      let report = InspectProcessReportV1(pid: pid, blocks: reports, loadedRuntimes: runtimes, warnings: warnings)
      if json {
        try JSONOutput.print(report)
      } else {
        print(report.text(demangling: demangle), terminator: "")
      }
    }

    /// What both sources share once the block is read: `place` (how the messages name it) must
    /// hold a blocks runtime class as its isa; more than one runtime (`loaded` says where) and
    /// a signature that does not parse are warned about; then `make` gives the report, printed.
    func report(
      _ info: BlockInfo, place: String, runtimes: [BlocksRuntime], loaded: String,
      _ make: ([String]) -> InspectReportV1
    ) throws {
      if let failure = LibraryBlock.blockClassFailure(info, place: place) {
        throw Diagnostics.fail(failure.code, failure.message)
      }
      var warnings: [String] = []
      if runtimes.count > 1 {
        warnings.append(
          "\(runtimes.count) blocks runtimes are \(loaded) (\(runtimes.map(\.path).joined(separator: ", "))): blocks from one must not be copied or released by the other"
        )
      }
      do {
        _ = try info.parsedSignature()
      } catch {
        warnings.append("the block's signature does not parse: \(error)")
      }
      for warning in warnings { Diagnostics.warn(warning) }
      let report = make(warnings)
      if json {
        try JSONOutput.print(report)
      } else {
        print(report.text(demangling: demangle), terminator: "")
      }
    }
  }
}
