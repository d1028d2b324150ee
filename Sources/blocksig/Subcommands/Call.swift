import ArgumentParser
import BlockSignature
import BlockSignatureFFI
import BlockSignatureRuntime

extension BlockSig {
  /// `blocksig call`: call a block a shared library provides, with arguments given as JSON.
  struct Call: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Call a block a shared library provides, with one JSON value per parameter.",
      discussion: """
        The block is loaded as inspect loads it: returned by a `const void *(*)(void)` \
        function (--symbol) or held in a global block variable (--variable), from a library \
        given by path or by a bare name searched for as dlopen searches; the file is checked \
        before it is loaded. The library's code — its constructors, the --symbol function and \
        the block itself — runs in a child process of blocksig's, which prints the result: a \
        crash there is an error (exit 70: "the block crashed with SIGSEGV at …"), never \
        brings blocksig down. That code runs as you: call only libraries you trust. The call \
        follows the block's own signature, or --signature (block, method or function form), \
        which must fit the block's own at --level (the levels of check; default abi).

        One ARG per parameter after the block itself, each a JSON value, read by the \
        parameter's C type:
          integers, enums     a number, or a string of decimal or 0x hex digits
                              ("0xffffffffffffffffffffffffffffffff" for 128 bits)
          _Bool               true or false (1 and 0 accepted)
          float, double,      a number, or "inf", "-inf", "nan"
          long double
          _Complex T          [real, imaginary]
          char *              a string, null, or an address (a number, as a pointer)
          other pointers,     an address (an integer as above), or null
          objects, blocks,
          selectors
          struct              an array of its members in order (an array member as an
                              array of its elements)
          union               {"member": K, "value": V}: V for member K (from 0)
        Put -- before the arguments when one starts with '-', a negative number.

        The result is printed as `return  C-TYPE  VALUE`, the value in the same syntax (a \
        union as member 0, `void` without a value). --json prints {"declaration", \
        "return": {"encoding", "value"}, "serializationVersion": 1, "signature"}, `void` as null; integers are exact at \
        any width, floating point the shortest text that reads back the same.

        Examples:
          blocksig call --library libBlockFixtures.so --symbol bf_int_long 7 9
          blocksig call --library libfoo.so --variable cb --json '"text"' '[1, 2]'
          blocksig call --library libfoo.so --symbol make --signature 'v16@?0q8' -- -1

        Exit codes: 0 the block was called, 64 usage error, 65 a wrong number of arguments, \
        malformed JSON (with its byte offset), a value that does not fit its parameter, a type \
        that cannot be called, a --signature that does not fit the block (with check's \
        diagnostics), or not a block; 66 the library cannot be found, read or loaded (a \
        damaged file: `FILE: error: …` says what is out of range), or has no such symbol; 70 \
        the library's code or the block crashed (the signal and where); 130 interrupted.
        """
    )

    @Option(
      help: "The shared library to load: a path, or a bare name searched for as dlopen does.")
    var library: String

    @Option(help: "A function that takes no arguments and returns the block; it is called.")
    var symbol: String?

    @Option(help: "A global variable that holds the block.")
    var variable: String?

    @Option(help: "The block's signature, declared (block, method or function form).")
    var signature: String?

    @Option(help: "How strictly --signature must fit the block's own signature.")
    var level: CompatibilityLevel = .abi

    @OptionGroup var jsonOption: JSONOption
    var json: Bool { jsonOption.json }

    @Argument(help: ArgumentHelp("One JSON value per parameter.", valueName: "arg"))
    var values: [String] = []

    @OptionGroup var diagnostics: DiagnosticOptions

    func validate() throws {
      if (symbol == nil) == (variable == nil) {
        throw ValidationError("Give exactly one of --symbol and --variable.")
      }
    }

    func run() throws {
      try LibraryCodeRun.run { child in try call(marking: child) }
    }

    /// Loads the library, reads and calls the block, and prints the result, in the child
    /// process of a ``LibraryCodeRun``.
    func call(marking child: ContainedRun) throws {
      let loaded: LibraryBlock
      do {
        loaded = try LibraryBlock(library: library, symbol: symbol, variable: variable, marking: child)
      } catch {
        throw error.report()
      }
      if let failure = LibraryBlock.blockClassFailure(loaded.info, place: loaded.place)
        ?? LibraryBlock.codeFailure(loaded.info, place: loaded.place)
      {
        throw failure.report()
      }
      let invocation: BlockInvocation
      do {
        invocation = try BlockInvocation(block: loaded.block, declaredSignature: signature, level: level)
      } catch {
        throw refused(error, info: loaded.info)
      }
      let result: CValue
      do {
        let arguments = try arguments(for: invocation)
        child.mark("the block")
        result = try invocation.invoke(arguments)
      } catch {
        throw fail(ExitStatus.dataError, error.description)
      }
      if case .pointer(let address) = result {
        if case .primitive(.cString) = invocation.signature.encoding.returnType.unqualified {
          Diagnostics.write(
            "blocksig call: warning: the returned char * \(hex(address)) cannot be read: shown as an address\n")
        }
      }
      print(output(result, signature: invocation.signature))
    }

    /// The values, one per parameter, parsed and converted by each parameter's type.
    func arguments(for invocation: BlockInvocation) throws(InvocationError) -> [CValue] {
      try invocation.checkArgumentCount(values.count)
      let model = invocation.signature.model
      var arguments: [CValue] = []
      for (index, text) in values.enumerated() {
        let type = invocation.signature.encoding.arguments[index + 1].type
        do {
          arguments.append(try CValue(json: text, as: type, model: model))
        } catch {
          var placed = error
          placed.argument = index + 1
          throw placed
        }
      }
      return arguments
    }

    /// The text line or the JSON document for the result.
    func output(_ result: CValue, signature: MethodSignature) -> String {
      let returnType = signature.encoding.returnType
      guard json else {
        let type = returnType.cDeclaration(for: signature.model)
        return result == .void ? "return  \(type)" : "return  \(type)  \(result.jsonText)"
      }
      // A JSONValue, so that a value keeps its exact text (128-bit integers, long double).
      let document = JSONValue.object([
        .init(key: "declaration", value: .string(signature.encoding.cDeclaration(for: signature.model))),
        .init(
          key: "return",
          value: .object([
            .init(key: "encoding", value: .string(returnType.description)),
            .init(key: "value", value: result.jsonValue),
          ])),
        .init(key: "serializationVersion", value: .number("1")),
        .init(key: "signature", value: .string(signature.description)),
      ])
      return JSONOutput.text(document, keepingCompact: ["value"])
    }

    /// Exit 65 for a block that cannot be called as asked; an incompatible --signature also
    /// prints the checker's diagnostics, both signatures underlined, as `check` does.
    func refused(_ error: InvocationError, info: BlockInfo) -> ExitCode {
      let code = fail(ExitStatus.dataError, error.description)
      guard error.kind == .incompatibleSignature, let signature, let model = DataModel.host,
        let own = try? MethodSignature(block: info, model: model),
        let declared = try? MethodSignature(parsing: signature, model: model).converted(to: .block)
      else { return code }
      for diagnostic in error.diagnostics {
        Diagnostics.write(Check.text(diagnostic, candidate: own.description, expected: declared.description))
      }
      return code
    }

    func fail(_ code: Int32, _ message: String) -> ExitCode {
      Diagnostics.fail(code, message)
    }
  }
}
