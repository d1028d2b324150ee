import ArgumentParser
import BlockSignature
import Foundation

extension BlockSig {
  struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Load a shared library and inspect a live block it provides.",
      discussion: """
        The block is either returned by a `const void *(*)(void)` function (--symbol) or held \
        in a global block variable (--variable). The library is loaded with dlopen into this \
        process, so its constructors run: inspect only libraries you trust.

        Examples:
          blocksig inspect --library libBlockFixtures.so --symbol bf_int_long
          blocksig inspect --library libfoo.so --variable handler --json

        Exit codes: 0 success, 64 usage error, 65 the symbol is not a block-looking object, \
        66 the library cannot be read or loaded, or has no such symbol.
        """
    )

    @Option(name: .long, help: "The shared library to load.")
    var library: String

    @Option(name: .long, help: "A function that takes no arguments and returns the block.")
    var symbol: String?

    @Option(name: .long, help: "A global variable that holds the block.")
    var variable: String?

    @Flag(name: .long, help: "Print one JSON document instead of text.")
    var json = false

    func validate() throws {
      if (symbol == nil) == (variable == nil) {
        throw ValidationError("Give exactly one of --symbol and --variable.")
      }
    }

    @OptionGroup var diagnostics: DiagnosticOptions

    func run() throws {
      diagnostics.apply()
      let name = symbol ?? variable ?? ""
      let library: LoadedLibrary
      let block: UnsafeRawPointer
      do {
        library = try LoadedLibrary(path: self.library)
        block = try symbol != nil ? library.blockReturned(byFunction: name) : library.blockHeld(byVariable: name)
      } catch {
        let code: Int32 = [.noSuchFile, .cannotLoad, .noSuchSymbol].contains(error.kind) ? 66 : 65
        throw Diagnostics.fail(code, "\(error.message)")
      }
      let info: BlockInfo
      do {
        info = try BlockInfo(inspecting: block)
      } catch {
        throw Diagnostics.fail(65, "\(self.library): '\(name)' is not a block: \(error)")
      }
      guard info.isaIsBlockClass else {
        let isa = "0x" + String(info.isa, radix: 16)
        throw Diagnostics.fail(
          65,
          "\(self.library): '\(name)' is not a block: its isa \(isa) (\(info.isaSymbol ?? "no symbol")) is not a blocks runtime class"
        )
      }
      let runtimes = BlocksRuntime.loaded
      var warnings: [String] = []
      if runtimes.count > 1 {
        warnings.append(
          "\(runtimes.count) blocks runtimes are loaded (\(runtimes.map(\.path).joined(separator: ", "))): blocks from one must not be copied or released by the other"
        )
      }
      do {
        _ = try info.parsedSignature()
      } catch {
        warnings.append("the block's signature does not parse: \(error)")
      }
      for warning in warnings { Diagnostics.warn(warning) }
      let report = InspectReportV1(
        library: self.library, symbol: name, source: symbol != nil ? "function" : "variable", info: info,
        runtime: BlocksRuntime.current, loadedRuntimes: runtimes, warnings: warnings)
      if json {
        try JSONOutput.print(report)
      } else {
        print(report.text, terminator: "")
      }
    }
  }
}
