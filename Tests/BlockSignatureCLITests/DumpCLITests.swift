import Foundation
import TestSupport
import Testing

/// End-to-end runs of the built `blocksig dump`.
@Suite struct DumpCLITests {
  static let source = """
    int (^gb)(int, long) = ^(int a, long b) { return a + (int)b; };
    void take(void (^)(void)); int use(int (^)(int));
    int f(int k) { __block int acc = 0; take(^{ (void)k; }); return use(^(int x) { acc += x; return x; }) + acc; }
    """

  /// Compiles `source` to an object in a fresh directory; returns (directory, object, truth).
  static func object() throws -> (URL, URL, [TruthDescriptor]) {
    let clang = try #require(Toolchain.find("clang"))
    let directory = try Toolchain.temporaryDirectory("cli")
    let sourceURL = directory.appendingPathComponent("b.c")
    try source.write(to: sourceURL, atomically: true, encoding: .utf8)
    let object = directory.appendingPathComponent("b.o")
    try Toolchain.check(clang, ["-fblocks", "-c", "-o", object.path, sourceURL.path])
    let ir = try Toolchain.check(clang, ["-fblocks", "-S", "-emit-llvm", "-o", "-", sourceURL.path]).stdout
    return (directory, object, LLVMTruth.descriptors(inIR: ir))
  }

  /// Names come from the binary, not from a terminal: clang's Objective-C descriptor symbols
  /// on Apple targets hold the signature with `@` as a 0x01 byte, which the text output
  /// escapes (`\x01`); JSON escapes it as `\u0001`.
  @Test func controlBytesInSymbolNamesAreEscaped() throws {
    let (directory, object) = try Toolchain.compileC(
      """
      __attribute__((objc_root_class)) @interface R @end
      void (^make(id o))(id) { return ^(id x) { (void)o; }; }
      """, fileName: "escape.m",
      arguments: ["--target=arm64-apple-macos13", "-fblocks", "-fobjc-arc", "-c"], output: "escape.o")
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try blocksig(["dump", object.path])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("_e8_v16\\x01?0\\x018l"), "\(run.stdout)")
    #expect(!run.stdout.utf8.contains { $0 < 0x20 && $0 != 0x0A }, "\(run.stdout)")
    let json = try blocksig(["dump", "--json", object.path])
    #expect(json.stdout.contains("v16\\u0001?0"), "\(json.stdout)")
  }

  @Test func jsonContract() throws {
    let (directory, object, truth) = try Self.object()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try blocksig(["dump", "--json", object.path])
    #expect(run.status == 0)
    #expect(run.stderr == "blocksig dump: 1 file, 3 blocks, 0 errors\n")
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    #expect(
      Set(document.keys) == [
        "serializationVersion", "schema", "file", "format", "arch", "dataModel", "kind", "hasSymbols", "summary",
        "blocks", "warnings",
      ])
    #expect(document["schema"] as? String == "blocksig-dump/2")
    #expect(document["serializationVersion"] as? Int == 2)
    #expect(document["file"] as? String == object.path)
    #expect(document["format"] as? String == "ELF64")
    #expect(document["arch"] as? String == "x86_64")
    #expect(document["dataModel"] as? String == "x86_64-linux")
    #expect(document["kind"] as? String == "relocatable")
    #expect(document["hasSymbols"] as? Bool == true)
    let summary = try #require(document["summary"] as? [String: Int])
    #expect(
      summary == [
        "descriptors": truth.count, "globalLiterals": 1,
        "distinctSignatures": Set(truth.compactMap(\.signature)).count,
      ])
    let blocks = try #require(document["blocks"] as? [[String: Any]])
    #expect(blocks.count == truth.count)
    for block in blocks {
      #expect(
        Set(block.keys) == [
          "descriptor", "kind", "size", "copyDispose", "signature", "declaration", "extendedLayout", "literals",
          "constructionSites", "evidence",
        ])
      // An object's sites: no addresses, the invoke named by the code's relocations.
      let sites = try #require(block["constructionSites"] as? [[String: Any]])
      #expect(sites.count == (block["kind"] as? String == "stack" ? 1 : 0))
      for site in sites {
        #expect(
          Set(site.keys) == [
            "vaddr", "section", "sectionOffset", "fileOffset", "function", "functionDemangled", "invoke",
            "invokeMatch",
          ])
        #expect(site["vaddr"] is NSNull)
        #expect(site["section"] as? String == ".text")
        #expect(site["function"] as? String == "f")
        let invoke = (site["invoke"] as? [String: Any])?["symbol"] as? String
        #expect(invoke?.hasPrefix("__f_block_invoke") == true, "\(invoke ?? "none")")
      }
      let descriptor = try #require(block["descriptor"] as? [String: Any])
      #expect(Set(descriptor.keys) == ["vaddr", "section", "sectionOffset", "fileOffset", "symbol"])
      #expect(descriptor["vaddr"] is NSNull)  // no final addresses in a .o file
      #expect(descriptor["section"] as? String == ".data.rel.ro")
    }
    let signatures = blocks.compactMap { $0["signature"] as? String }.sorted()
    #expect(signatures == truth.compactMap(\.signature).sorted())
    let global = try #require(blocks.first { $0["kind"] as? String == "global" })
    let literal = try #require((global["literals"] as? [[String: Any]])?.first)
    #expect(Set(literal.keys).isSuperset(of: ["vaddr", "flags", "invoke"]))
    let invoke = try #require(literal["invoke"] as? [String: Any])
    #expect(invoke["symbol"] as? String == "gb_block_invoke")
    #expect(invoke["vaddr"] is NSNull)
    #expect(global["evidence"] as? [String] == ["literal", "symbol", "structural"])
    let withHelpers = try #require(blocks.first { !($0["copyDispose"] is NSNull) })
    let helpers = try #require(withHelpers["copyDispose"] as? [String: Any])
    #expect(Set(helpers.keys) == ["copy", "dispose"])
  }

  /// A linked library's stack blocks: the text line names the sites' count and the invoke
  /// functions; `constructionSites` gives each site's address, function, invoke and how the
  /// invoke was matched. The truth is clang's IR (what it stores with each descriptor) and the
  /// library's symbol table (where each function is).
  @Test func constructionSitesInTextAndJSON() throws {
    let (directory, library) = try Toolchain.compileC(
      """
      extern void use(void (^)(int));
      void both(int k) { use(^(int x) { (void)(x + k); }); use(^(int x) { (void)(x - k); }); }

      """, arguments: ["-fblocks", "-O2", "-shared", "-fPIC", "-nostdlib"], output: "libsites.so")
    defer { try? FileManager.default.removeItem(at: directory) }
    let symbols = try Toolchain.check(try #require(Toolchain.find(anyOf: ["llvm-nm", "nm"])), [library.path]).stdout
    var addressOf: [String: UInt64] = [:]
    for line in symbols.split(separator: "\n") {
      let fields = line.split(separator: " ")
      if fields.count == 3, let address = UInt64(fields[0], radix: 16) { addressOf[String(fields[2])] = address }
    }
    let first = try #require(addressOf["__both_block_invoke"])
    let second = try #require(addressOf["__both_block_invoke_2"])
    let both = try #require(addressOf["both"])

    let text = try blocksig(["dump", library.path])
    #expect(text.status == 0, "\(text.stderr)")
    for (descriptor, invoke) in [
      ("__block_descriptor_tmp", "__both_block_invoke"), ("__block_descriptor_tmp.1", "__both_block_invoke_2"),
    ] {
      #expect(text.stdout.contains("\(descriptor)  sites 1  invoke \(invoke)  [symbol,structural]\n"), "\(text.stdout)")
    }

    let run = try blocksig(["dump", "--json", library.path])
    #expect(run.status == 0)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let blocks = try #require(document["blocks"] as? [[String: Any]])
    #expect(blocks.count == 2)
    for (block, invoke) in zip(blocks, [first, second]) {
      let sites = try #require(block["constructionSites"] as? [[String: Any]])
      let site = try #require(sites.first)
      #expect(sites.count == 1)
      #expect(
        Set(site.keys) == [
          "vaddr", "section", "sectionOffset", "fileOffset", "function", "functionDemangled", "invoke",
          "invokeMatch",
        ])
      #expect(site["function"] as? String == "both")
      let address = try #require(site["vaddr"] as? UInt64)
      #expect(address > both && address < min(first, second), "\(address)")
      let code = try #require(site["invoke"] as? [String: Any])
      #expect(code["vaddr"] as? UInt64 == invoke)
      #expect(site["invokeMatch"] as? String == "slot")
    }
  }

  /// C++: the invoke and function names are mangled; `-C` shows them demangled in the text,
  /// the JSON has both (`demangled`, `functionDemangled`).
  @Test func demangledNames() throws {
    let (directory, library) = try Toolchain.compileC(
      """
      extern "C" void use(int (^)(int));
      namespace NS { struct Foo { void bar(int x); }; }
      void NS::Foo::bar(int x) { use(^(int y) { return y + x; }); use(^(int y) { return y * x; }); }

      """, fileName: "foo.cpp", arguments: ["-fblocks", "-O1", "-shared", "-fPIC", "-nostdlib"], output: "libfoo.so")
    defer { try? FileManager.default.removeItem(at: directory) }
    let plain = try blocksig(["dump", library.path])
    #expect(plain.stdout.contains("  invoke ___ZN2NS3Foo3barEi_block_invoke  "), "\(plain.stdout)")
    let text = try blocksig(["dump", "-C", library.path])
    #expect(text.status == 0)
    #expect(text.stdout.contains("  invoke block in NS::Foo::bar(int)  "), "\(text.stdout)")
    #expect(text.stdout.contains("  invoke block 2 in NS::Foo::bar(int)  "), "\(text.stdout)")
    let run = try blocksig(["dump", "--json", "-C", library.path])
    let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let blocks = try #require(document["blocks"] as? [[String: Any]])
    let sites = blocks.flatMap { $0["constructionSites"] as? [[String: Any]] ?? [] }
    #expect(sites.count == 2)
    for site in sites {
      #expect(site["function"] as? String == "_ZN2NS3Foo3barEi")
      #expect(site["functionDemangled"] as? String == "NS::Foo::bar(int)")
      let invoke = try #require(site["invoke"] as? [String: Any])
      let symbol = try #require(invoke["symbol"] as? String)
      #expect(
        invoke["demangled"] as? String == (symbol.hasSuffix("_2") ? "block 2" : "block") + " in NS::Foo::bar(int)")
    }
  }

  @Test func humanOutputIsOneLinePerBlockThenSummary() throws {
    let (directory, object, truth) = try Self.object()
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try blocksig(["dump", object.path])
    #expect(run.status == 0)
    let lines = run.stdout.split(separator: "\n")
    #expect(lines.first == "\(object.path): ELF64 x86_64 relocatable")
    #expect(lines.count == truth.count + 2)
    #expect(
      lines.last
        == "  \(truth.count) descriptors, 1 global literal, \(Set(truth.compactMap(\.signature)).count) distinct signatures"
    )
    let offsets = lines.dropFirst().dropLast().map { line in
      UInt64(line.split(separator: " ")[0].split(separator: "+")[1].dropFirst(2), radix: 16)!
    }
    #expect(offsets == offsets.sorted())
  }

  /// The human header line ends with ", stripped" for a file without a symbol table, and
  /// only then: a shared library and its `--strip-all` copy.
  @Test func humanHeaderSaysStrippedOnlyWithoutSymbols() throws {
    let strip = try #require(Toolchain.find(anyOf: ["llvm-strip", "strip"]), "no strip tool on PATH")
    let (directory, library) = try Toolchain.compileC(
      "int (^gb)(int) = ^(int x) { return x + 1; };\n", arguments: ["-fblocks", "-shared", "-fPIC"],
      output: "libg.so")
    defer { try? FileManager.default.removeItem(at: directory) }
    let stripped = directory.appendingPathComponent("libg-stripped.so")
    try Toolchain.check(strip, ["--strip-all", "-o", stripped.path, library.path])
    let full = try blocksig(["dump", library.path])
    #expect(full.status == 0)
    #expect(full.stdout.split(separator: "\n").first == "\(library.path): ELF64 x86_64 shared")
    let bare = try blocksig(["dump", stripped.path])
    #expect(bare.status == 0)
    #expect(bare.stdout.split(separator: "\n").first == "\(stripped.path): ELF64 x86_64 shared, stripped")
  }

  /// `copy/dispose` marks exactly the blocks with helpers: the stack block that captures a
  /// `__block` variable has them, the global block does not.
  @Test func humanOutputMarksCopyDisposeOnlyWhereThereAreHelpers() throws {
    let (directory, object) = try Toolchain.compileC(
      """
      struct E {};
      void take(void (^)(void));
      void (^gb)(struct E) = ^(struct E e) { };
      void f(int *p) { __block int x = 1; take(^{ x++; (void)p; }); }

      """, arguments: ["-fblocks", "-c"], output: "cd.o")
    defer { try? FileManager.default.removeItem(at: directory) }
    let run = try blocksig(["dump", object.path])
    #expect(run.status == 0)
    #expect(run.stderr == "blocksig dump: 1 file, 2 blocks, 0 errors\n")
    #expect(
      run.stdout == """
        \(object.path): ELF64 x86_64 relocatable
          .data.rel.ro+0x0  global  size 32  v8@?0{E=}8  void (^)(struct E)  __block_descriptor_tmp  literals 1  \
        invoke gb_block_invoke  [literal,symbol,structural]
          .data.rel.ro+0x40  stack  size 48  v8@?0  void (^)(void)  __block_descriptor_tmp.2  copy/dispose  \
        sites 1  invoke __f_block_invoke  [symbol,structural]
          2 descriptors, 1 global literal, 2 distinct signatures

        """)
  }

  /// A scan warning on stderr has its location in bold and `warning:` in magenta with
  /// `--color-diagnostics`, and no escape codes without it (stderr is a pipe here).
  @Test func warningsAreMagentaWithColorDiagnostics() throws {
    // Points at _NSConcreteGlobalBlock like a global literal, but without BLOCK_IS_GLOBAL.
    let (directory, object) = try Toolchain.compileC(
      """
      extern void *_NSConcreteGlobalBlock[32];
      struct { void *isa; int flags; int reserved; void *invoke; void *descriptor; } notglobal = {
        _NSConcreteGlobalBlock, 0, 0, 0, 0 };

      """, arguments: ["-c"], output: "w.o")
    defer { try? FileManager.default.removeItem(at: directory) }
    let message = "global block literal at .data+0x0 has flags 0x0 without BLOCK_IS_GLOBAL"
    let colored = try blocksig(["dump", "--color-diagnostics", object.path])
    #expect(colored.status == 0)
    #expect(
      colored.stderr
        == "\u{1B}[1m\(object.path):\u{1B}[0m \u{1B}[1;35mwarning:\u{1B}[0m \(message)\nblocksig dump: 1 file, 0 blocks, 0 errors\n"
    )
    let plain = try blocksig(["dump", object.path])
    #expect(plain.status == 0)
    #expect(plain.stderr == "\(object.path): warning: \(message)\nblocksig dump: 1 file, 0 blocks, 0 errors\n")
  }

  @Test func failuresWarnAndTheScanGoesOn() throws {
    let (directory, object, _) = try Self.object()
    defer { try? FileManager.default.removeItem(at: directory) }
    let text = directory.appendingPathComponent("notes.txt")
    try "not a binary @?0".write(to: text, atomically: true, encoding: .utf8)
    let run = try blocksig(["dump", text.path, object.path])
    #expect(run.status == 1)
    #expect(
      run.stderr
        == "\(text.path):0x0: error: not an ELF, Mach-O or archive file\nblocksig dump: 2 files, 3 blocks, 1 error\n")
    #expect(run.stdout.hasPrefix("\(object.path): ELF64"))
  }

  /// A truncated Mach-O object fails like a truncated ELF file (exit 1, an error with the
  /// offset), and is not listed as a stripped file with no blocks.
  @Test func truncatedMachOObjectIsAnErrorNotAStrippedFile() throws {
    let (directory, object) = try Toolchain.compileC(
      Self.source, arguments: ["--target=arm64-apple-macos", "-fblocks", "-c"], output: "d.o")
    defer { try? FileManager.default.removeItem(at: directory) }
    let cut = directory.appendingPathComponent("cut.o")
    try Data(try Data(contentsOf: object).prefix(1000)).write(to: cut)
    let run = try blocksig(["dump", cut.path])
    #expect(run.status == 1, "\(run.stdout)")
    #expect(run.stdout == "")
    #expect(run.stderr.hasPrefix("\(cut.path):0x"), "\(run.stderr)")
    #expect(
      run.stderr.contains(": error: ") && run.stderr.contains("goes past end of file (size 0x3e8)"), "\(run.stderr)")
  }

  /// A folder with nothing to scan is no input: a warning for it, and 66 when nothing else
  /// was given; a missing path counts as a file with an error, as an unreadable file does.
  @Test func emptyFoldersAndMissingPaths() throws {
    let folder = try Toolchain.temporaryDirectory("dump-empty")
    defer { try? FileManager.default.removeItem(at: folder) }
    let empty = try blocksig(["dump", "-r", folder.path])
    #expect(empty.status == 66)
    #expect(
      empty.stderr
        == "\(folder.path): warning: no files in this folder\nblocksig dump: error: no files to scan in \(folder.path)\n"
    )
    let missing = try blocksig(["dump", "/nonexistent"])
    #expect(missing.status == 1)
    #expect(missing.stderr.hasSuffix("blocksig dump: 1 file, 0 blocks, 1 error\n"))
  }

  @Test func directoriesNeedRecursionAndSkipNonBinaries() throws {
    let (directory, object, truth) = try Self.object()
    defer { try? FileManager.default.removeItem(at: directory) }
    let withoutFlag = try blocksig(["dump", directory.path])
    #expect(withoutFlag.status == 1)
    #expect(
      withoutFlag.stderr
        == "\(directory.path): error: is a directory (use -r to scan directories)\nblocksig dump: 1 file, 0 blocks, 1 error\n"
    )
    let nested = directory.appendingPathComponent("sub")
    try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: object, to: nested.appendingPathComponent("copy.o"))
    let recursive = try blocksig(["dump", "-r", "--json", directory.path])
    #expect(recursive.status == 0)
    #expect(recursive.stderr == "blocksig dump: 2 files, 6 blocks, 0 errors\n")
    // JSON Lines: two documents (b.o and sub/copy.o), one per line, the C source and IR-less
    // files skipped.
    let lines = recursive.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 3 && lines.last == "", "\(recursive.stdout)")
    for line in lines.dropLast() {
      let parsed = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      #expect((parsed["blocks"] as? [Any])?.count == truth.count)
      #expect(parsed["schema"] as? String == "blocksig-dump/2")
    }
  }

  /// `-r` names files from the directory as given (a relative one stays relative), scans a
  /// file reached through a symbolic link once (a library and its `.so` link), follows no link
  /// to a directory (a cycle cannot loop) and passes over FIFOs; a FIFO named on the command
  /// line is an error at once, not a wait for a writer.
  @Test func recursionFollowsFileLinksOnceAndNeverWaits() throws {
    let (directory, object, _) = try Self.object()
    defer { try? FileManager.default.removeItem(at: directory) }
    let tree = directory.appendingPathComponent("tree")
    let nested = tree.appendingPathComponent("lib")
    try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: object, to: nested.appendingPathComponent("b.o.1"))
    try FileManager.default.createSymbolicLink(
      atPath: nested.appendingPathComponent("b.o").path, withDestinationPath: "b.o.1")
    try FileManager.default.createSymbolicLink(
      atPath: tree.appendingPathComponent("outside.o").path, withDestinationPath: object.path)
    try FileManager.default.createSymbolicLink(
      atPath: nested.appendingPathComponent("loop").path, withDestinationPath: "..")
    let fifo = tree.appendingPathComponent("pipe")
    #expect(mkfifo(fifo.path, 0o600) == 0)

    let run = try blocksig(["dump", "-r", "tree"], currentDirectory: directory)
    #expect(run.status == 0, "\(run.stderr)")
    let headers = run.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { $0.prefix { $0 != ":" } }
    #expect(headers == ["tree/lib/b.o.1", "tree/outside.o"])

    let named = try blocksig(["dump", fifo.path])
    #expect(named.status == 1)
    #expect(
      named.stderr
        == "\(fifo.path): error: cannot read file: not a regular file\nblocksig dump: 1 file, 0 blocks, 1 error\n")
  }

  @Test func missingArgumentIsAUsageError() throws {
    let run = try blocksig(["dump"])
    #expect(run.status == 64)
    #expect(run.stderr.contains("Usage: blocksig dump [--json] [--recursive] [--demangle] <paths> ..."))
  }
}
