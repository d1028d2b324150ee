import BlockFixtures
import Foundation
import TestSupport
import Testing

/// `blocksig inspect` end to end: the built executable against fixture libraries compiled
/// here from Fixtures/ with the toolchain's clang.
@Suite(.serialized) struct InspectCLITests {
  /// Builds the fixtures as a shared library linked against `runtime`'s libBlocksRuntime.
  static func buildFixturesLibrary(linkingDebianRuntime: Bool) throws -> URL {
    let folder = try Toolchain.temporaryDirectory("blocksig-inspect")
    let output = folder.appendingPathComponent("libBlockFixtures.so")
    let root = Toolchain.packageRoot
    var arguments = [
      "-fblocks", "-shared", "-fPIC", "-O1", "-I", root.appendingPathComponent("Fixtures/include").path,
      root.appendingPathComponent("Fixtures/BlockFixtures.c").path, "-o", output.path,
    ]
    if linkingDebianRuntime {
      // Debian's libblocksruntime (soname libBlocksRuntime.so.0), from the system library path.
      arguments += ["-l:libBlocksRuntime.so.0"]
    } else {
      let lib = try #require(Toolchain.runtimeLibraryDirectory).path
      arguments += ["-L", lib, "-lBlocksRuntime", "-Wl,-rpath,\(lib)"]
    }
    _ = try Toolchain.runClang(arguments)
    return output
  }

  static let library: Result<URL, any Error> = Result { try buildFixturesLibrary(linkingDebianRuntime: false) }

  func json(_ output: Toolchain.Output) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
  }

  @Test func globalBlockFromAFunction() throws {
    let library = try Self.library.get().path
    let output = try blocksig("inspect", "--library", library, "--symbol", "bf_int_long", "--json")
    #expect(output.status == 0)
    #expect(output.stderr == "")
    let document = try json(output)
    #expect(document["serializationVersion"] as? Int == 1)
    #expect(document["kind"] as? String == "global")
    #expect(document["source"] as? String == "function")
    // The signature clang wrote for this literal, read back from clang's own IR.
    let ir = try Toolchain.runClang([
      "-fblocks", "-I", Toolchain.packageRoot.appendingPathComponent("Fixtures/include").path, "-S", "-emit-llvm",
      "-o", "-", Toolchain.packageRoot.appendingPathComponent("Fixtures/BlockFixtures.c").path,
    ]).stdout
    let parsed = ClangIR(ir)
    let literal = try #require(parsed.literal(invoking: "__bf_int_long_block_invoke"))
    #expect(document["signature"] as? String == parsed.descriptors[literal.descriptor]?.signature)
    let fixture = try #require(bf_fixture_named("int_long"))
    #expect(document["declaration"] as? String == String(cString: fixture.pointee.declaration))
    let flags = try #require(document["flags"] as? [String: Any])
    #expect(flags["raw"] as? String == "0x" + String(UInt32(bitPattern: literal.flags), radix: 16))
    // The invoke function is local; its name comes from the library's own symbol table.
    #expect((document["invoke"] as? [String: Any])?["symbol"] as? String == literal.invoke)
    #expect(document["referenceCount"] == nil)
    let runtime = try #require(document["runtime"] as? [String: Any])
    #expect(runtime["exportsSignatureQueries"] as? Bool == true)
    #expect((document["loadedRuntimes"] as? [Any])?.count == 1)
    #expect((document["warnings"] as? [Any])?.isEmpty == true)
  }

  @Test func heapBlockWithHelpersAndACount() throws {
    let library = try Self.library.get().path
    let document = try json(blocksig("inspect", "--library", library, "--symbol", "bf_heap_captures_byref", "--json"))
    #expect(document["kind"] as? String == "heap")
    #expect(document["referenceCount"] as? Int == 1)
    #expect(document["copyHelper"] as? [String: Any] != nil)
    let copySymbol = try #require((document["copyHelper"] as? [String: Any])?["symbol"] as? String)
    #expect(copySymbol.hasPrefix("__copy_helper_block_"))
    #expect(document["disposeHelper"] as? [String: Any] != nil)
    let names = try #require((document["flags"] as? [String: Any])?["names"] as? [String])
    #expect(names.contains("BLOCK_HAS_COPY_DISPOSE"))
    #expect(names.contains("BLOCK_NEEDS_FREE"))
  }

  @Test func blockVariableInText() throws {
    let library = try Self.library.get().path
    let output = try blocksig("inspect", "--library", library, "--variable", "bf_global_block_variable")
    #expect(output.status == 0)
    let lines = output.stdout.split(separator: "\n").map(String.init)
    #expect(
      lines.map { $0.components(separatedBy: "  ").first ?? "" } == [
        "block", "flags", "isa", "descriptor", "size", "copy helper", "dispose helper", "signature",
        "declaration", "struct return", "extended layout", "invoke", "reference count", "runtime",
      ])
    #expect(lines.contains { $0.hasPrefix("isa") && $0.hasSuffix("_NSConcreteGlobalBlock") })
    #expect(lines.contains { $0.hasPrefix("signature") && $0.hasSuffix(" d24@?0d8d16") })
    // The fixture's own declaration, as the C source writes it.
    let declaration = String(cString: try #require(bf_fixture_named("global_block_variable")).pointee.declaration)
    #expect(lines.contains { $0.hasPrefix("declaration") && $0.hasSuffix(" " + declaration) })
    // The runtime line says where the count sits in words (JSON keeps the case names).
    let runtime = try #require(lines.last)
    #expect(
      runtime.hasSuffix("; count in bits 1–15, units of 2)") || runtime.hasSuffix("; count in bits 0–15, units of 1)"))
  }

  /// A block read from a variable says so: `from variable '…'` in the text and `"source" :
  /// "variable"` in JSON (`function` is for --symbol only).
  @Test func blockVariableIsReportedAsAVariable() throws {
    let library = try Self.library.get().path
    let text = try blocksig("inspect", "--library", library, "--variable", "bf_global_block_variable")
    #expect(text.status == 0)
    let first = try #require(text.stdout.split(separator: "\n").first)
    #expect(first.hasSuffix(" (global) from variable 'bf_global_block_variable' in \(library)"), "\(first)")
    let document = try json(
      blocksig("inspect", "--library", library, "--variable", "bf_global_block_variable", "--json"))
    #expect(document["source"] as? String == "variable")
  }

  @Test(arguments: [
    (["--symbol", "no_such_symbol"], Int32(66), "no symbol named 'no_such_symbol'"),
    (["--symbol", "bf_global_block_variable"], 65, "is not a function"),
    (["--variable", "bf_fixtures"], 65, "is not a readable variable"),
    (["--variable", "bf_not_a_block_variable"], 65, "is not a block"),
  ])
  func errors(_ arguments: [String], status: Int32, message: String) throws {
    let library = try Self.library.get().path
    let output = try blocksig(["inspect", "--library", library] + arguments)
    #expect(output.status == status)
    #expect(output.stdout == "")
    #expect(output.stderr.hasPrefix("blocksig inspect: error: "))
    #expect(output.stderr.contains(message), "\(output.stderr)")
  }

  /// A block without a signature says why it has none: the flag is clear, or set with a
  /// NULL pointer.
  @Test func aMissingSignatureSaysWhy() throws {
    let library = try Self.library.get().path
    let clear = try blocksig("inspect", "--library", library, "--symbol", "bf_block_without_signature")
    #expect(clear.stdout.contains("none (BLOCK_HAS_SIGNATURE is not set: the compiler wrote none)"), "\(clear.stdout)")
    let null = try blocksig("inspect", "--library", library, "--symbol", "bf_block_with_null_signature")
    #expect(
      null.stdout.contains("none (BLOCK_HAS_SIGNATURE is set, but the signature pointer is NULL)"), "\(null.stdout)")
  }

  @Test func missingLibraryAndUsage() throws {
    let missing = try blocksig("inspect", "--library", "no-such-library.so", "--symbol", "x")
    #expect(missing.status == 66)
    #expect(
      missing.stderr
        == "blocksig inspect: error: no-such-library.so: no such library (searched LD_LIBRARY_PATH, "
        + "/etc/ld.so.cache and the default folders; write ./no-such-library.so for a file in the current folder)\n")
    let both = try blocksig("inspect", "--library", "x.so", "--symbol", "a", "--variable", "b")
    #expect(both.status == 64)
    #expect(both.stderr.contains("Give exactly one of --symbol and --variable."))
  }

  /// A file that exists but is no shared library (here text, not ELF) is refused before dlopen
  /// with 66, as a missing file is, the file named first; `./name` names one in the current folder.
  @Test func unloadableLibraryExits66() throws {
    let folder = try Toolchain.temporaryDirectory("blocksig-inspect-text")
    defer { try? FileManager.default.removeItem(at: folder) }
    let text = folder.appendingPathComponent("notes.txt")
    try String(repeating: "This is not a shared library, only text.\n", count: 10)
      .write(to: text, atomically: true, encoding: .utf8)
    let output = try blocksig("inspect", "--library", text.path, "--symbol", "x")
    #expect(output.status == 66)
    #expect(output.stdout == "")
    let notELF = "error: not a shared library: the file is not ELF (it does not start with 0x7f 'ELF')\n"
    #expect(output.stderr == "\(text.path): \(notELF)")
    let relative = try blocksig(["inspect", "--library", "./notes.txt", "--symbol", "x"], currentDirectory: folder)
    #expect(relative.status == 66)
    #expect(relative.stderr == "./notes.txt: \(notELF)")
  }

  /// A block written in a C++ function: its invoke's name is mangled (`___ZN1N4makeEv_block_invoke`);
  /// the JSON gives it demangled too, and `-C` shows that form in the text.
  @Test func demangledInvokeName() throws {
    let lib = try #require(Toolchain.runtimeLibraryDirectory).path
    let (directory, library) = try Toolchain.compileC(
      """
      namespace N { const void *make() { return (const void *)^(int x) { return x + 1; }; } }
      extern "C" const void *mk() { return N::make(); }

      """, fileName: "mk.cpp",
      arguments: ["-fblocks", "-shared", "-fPIC", "-L", lib, "-lBlocksRuntime", "-Wl,-rpath,\(lib)"],
      output: "libmk.so")
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try blocksig("inspect", "--library", library.path, "--symbol", "mk", "--json")
    #expect(run.status == 0, "\(run.stderr)")
    let invoke = try #require(try json(run)["invoke"] as? [String: Any])
    #expect(invoke["symbol"] as? String == "___ZN1N4makeEv_block_invoke")
    #expect(invoke["demangled"] as? String == "block in N::make()")
    let plain = try blocksig("inspect", "--library", library.path, "--symbol", "mk")
    #expect(plain.stdout.contains(" ___ZN1N4makeEv_block_invoke\n"), "\(plain.stdout)")
    let demangled = try blocksig("inspect", "-C", "--library", library.path, "--symbol", "mk")
    #expect(demangled.status == 0)
    #expect(demangled.stdout.contains(" block in N::make()\n"), "\(demangled.stdout)")
  }

  /// A bare `--library` name is a file in the current directory, as for any other path:
  /// dlopen alone would search the library path (where this folder is not) and fail.
  /// A bare name is searched for as dlopen searches (here through LD_LIBRARY_PATH), never
  /// taken from the current folder; `./name` is the file there.
  @Test func bareLibraryNameIsSearchedForAsDlopenDoes() throws {
    let folder = try Toolchain.temporaryDirectory("blocksig-inspect-bare")
    defer { try? FileManager.default.removeItem(at: folder) }
    let source = folder.appendingPathComponent("blk.c")
    try """
    int (^gb)(int) = ^(int x) { return x + 1; };
    const void *mk(void) { return (const void *)gb; }

    """.write(to: source, atomically: true, encoding: .utf8)
    let lib = try #require(Toolchain.runtimeLibraryDirectory).path
    _ = try Toolchain.runClang([
      "-fblocks", "-shared", "-fPIC", source.path, "-o", folder.appendingPathComponent("libblk.so").path,
      "-L", lib, "-lBlocksRuntime", "-Wl,-rpath,\(lib)",
    ])
    let notSearched = try blocksig(["inspect", "--library", "libblk.so", "--symbol", "mk"], currentDirectory: folder)
    #expect(notSearched.status == 66)
    #expect(notSearched.stderr.contains("libblk.so: no such library"))
    let searched = try blocksig(
      ["inspect", "--library", "libblk.so", "--symbol", "mk"], environment: ["LD_LIBRARY_PATH": folder.path])
    #expect(searched.status == 0, "\(searched.stderr)")
    #expect(searched.stderr == "")
    let first = try #require(searched.stdout.split(separator: "\n").first)
    #expect(first.hasPrefix("block "))
    #expect(first.hasSuffix(" (global) from function 'mk' in \(folder.path)/libblk.so"))
    let here = try blocksig(["inspect", "--library", "./libblk.so", "--symbol", "mk"], currentDirectory: folder)
    #expect(here.status == 0, "\(here.stderr)")
    #expect(here.stdout.split(separator: "\n").first?.hasSuffix(" in ./libblk.so") == true)
  }

  /// A library linked against Debian's runtime brings a second runtime into blocksig's
  /// process (which has the toolchain's, through Foundation): blocksig says so.
  @Test func twoRuntimesAreReported() throws {
    let library = try Self.buildFixturesLibrary(linkingDebianRuntime: true).path
    let output = try blocksig("inspect", "--library", library, "--symbol", "bf_int_int", "--json")
    #expect(output.status == 0)
    #expect(output.stderr.contains("blocksig inspect: warning: 2 blocks runtimes are loaded"))
    let document = try json(output)
    let runtimes = try #require(document["loadedRuntimes"] as? [[String: Any]])
    #expect(runtimes.count == 2)
    #expect(Set(runtimes.compactMap { $0["referenceCountConvention"] as? String }) == ["unitsOfTwo", "unitsOfOne"])
  }
}
