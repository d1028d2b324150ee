import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// Stack blocks built in many ways: two in one function (one capturing a `__block`
/// variable), one returned, one in a loop (whose addresses `-O2` keeps in registers), one
/// inlined into a caller twice, one returning a structure, one inside another block's body.
let constructionSource = """
  extern void *_Block_copy(const void *);
  extern void use(void *);
  extern void take(int (^)(int));
  typedef int (^IntBlock)(int);
  struct Pair { long a; double b; };
  void two(int k, double d) {
    __block int acc = 0;
    IntBlock a = ^(int x) { return x + k; };
    void (^b)(double) = ^(double y) { acc += (int)(y * d); };
    use(_Block_copy(a));
    use(_Block_copy(b));
  }
  IntBlock returned(int k) { return _Block_copy(^(int x) { return x * k; }); }
  void loop(int n) { for (int i = 0; i < n; i++) use(_Block_copy(^(int x) { return x + i; })); }
  static inline __attribute__((always_inline)) void helper(int k) { take(^(int x) { return x - k; }); }
  void inlined_twice(int a, int b) { helper(a); helper(b); }
  struct Pair (^big(long v))(struct Pair) { return _Block_copy(^(struct Pair p) { p.a += v; return p; }); }
  void nested(int k) { use(_Block_copy(^{ use(_Block_copy(^(int x) { return x + k; })); })); }

  """

/// How one image is built for the construction-site tests: the flags of `clang -fblocks`
/// (compiling and linking in one step).
struct SiteBuild: CustomStringConvertible, Sendable {
  var name: String
  var flags: [String]
  var description: String { name }

  /// The flags that change what clang emits (language, target), for the truth IR.
  var languageFlags: [String] {
    flags.filter { $0.hasPrefix("--target=") || $0.hasPrefix("-fobjc-runtime=") }
      + (flags.contains("objective-c") ? ["-x", "objective-c"] : [])
  }
  var isUnoptimized: Bool { flags.contains("-O0") }
  var isObject: Bool { flags.contains("-c") }
  /// Mach-O adds an underscore to every C name.
  var isMachO: Bool { flags.contains { $0.contains("-apple-") } }

  static let shared = ["-fPIC", "-shared", "-nostdlib"]
  static let aarch64 = ["--target=aarch64-linux-gnu", "-fuse-ld=lld"]
  /// Objective-C for GNUstep: clang names descriptors by their contents, so equal ones are
  /// one, shared by several blocks.
  static let objectiveC = ["-x", "objective-c", "-fobjc-runtime=gnustep-2.0"]
  static let fixedAddress = [
    "-fno-pic", "-no-pie", "-nostdlib", "-fuse-ld=lld", "-Wl,--unresolved-symbols=ignore-all", "-Wl,-e,0",
  ]

  static let all: [SiteBuild] = [
    SiteBuild(name: "x86_64-shared-O0", flags: ["-O0"] + shared),
    SiteBuild(name: "x86_64-shared-O2", flags: ["-O2"] + shared),
    SiteBuild(name: "x86_64-fixed-O0", flags: ["-O0"] + fixedAddress),
    SiteBuild(name: "x86_64-fixed-O2", flags: ["-O2"] + fixedAddress),
    SiteBuild(name: "aarch64-shared-O0", flags: aarch64 + ["-O0"] + shared),
    SiteBuild(name: "aarch64-shared-O2", flags: aarch64 + ["-O2"] + shared),
    SiteBuild(name: "objc-x86_64-shared-O2", flags: objectiveC + ["-O2"] + shared),
    SiteBuild(name: "objc-aarch64-shared-O0", flags: objectiveC + aarch64 + ["-O0"] + shared),
    // Objects: the addresses are in the relocations of the code.
    SiteBuild(name: "x86_64-object-O0", flags: ["-O0", "-c"]),
    SiteBuild(name: "x86_64-object-O2", flags: ["-O2", "-c"]),
    SiteBuild(name: "aarch64-object-O0", flags: ["--target=aarch64-linux-gnu", "-O0", "-c"]),
    SiteBuild(name: "aarch64-object-O2", flags: ["--target=aarch64-linux-gnu", "-O2", "-c"]),
    SiteBuild(name: "objc-x86_64-object-O2", flags: objectiveC + ["-O2", "-c"]),
    // Mach-O objects: ARM64_RELOC_PAGE21/PAGEOFF12 and X86_64_RELOC_SIGNED; arm64e signs the
    // invoke pointer (pacia) between loading and storing it, and its data pointers.
    SiteBuild(name: "macho-arm64-object-O0", flags: ["--target=arm64-apple-macos13", "-O0", "-c"]),
    SiteBuild(name: "macho-arm64-object-O2", flags: ["--target=arm64-apple-macos13", "-O2", "-c"]),
    SiteBuild(name: "macho-arm64e-object-O2", flags: ["--target=arm64e-apple-macos13", "-O2", "-c"]),
    SiteBuild(name: "macho-x86_64-object-O2", flags: ["--target=x86_64-apple-macos13", "-O2", "-c"]),
    SiteBuild(
      name: "macho-objc-arm64-object-O2", flags: ["-x", "objective-c", "--target=arm64-apple-macos13", "-O2", "-c"]),
  ]
}

/// `ScannedBlock.constructionSites`: the code that builds each stack block, and its invoke
/// function, read from linked images against what clang's IR stores into each literal.
@Suite struct ConstructionSiteTests {
  /// Compiles `source` with `arguments` and scans the result; returns the report and its
  /// (first) stack block.
  static func scanStackBlock(
    _ source: String, fileName: String = "source.c", arguments: [String], output: String
  ) throws -> (report: BinaryScanReport, block: ScannedBlock) {
    let (directory, binary) = try Toolchain.compileC(source, fileName: fileName, arguments: arguments, output: output)
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = try #require(try BinaryScanner.scan(fileAt: binary.path).first)
    return (report, try #require(report.blocks.first { $0.kind == .stack }))
  }

  /// Builds `build` (and a stripped copy) from `constructionSource`; returns the binary, the
  /// stripped one, the truth (descriptor → the invoke functions of the literals that use it,
  /// and the number of literals) and the directory to remove.
  static func build(_ build: SiteBuild) throws -> (
    binary: URL, stripped: URL, invokes: [String: Set<String>], literals: [String: Int], directory: URL
  ) {
    let clang = try #require(Toolchain.find("clang"), "clang not found on PATH")
    let directory = try Toolchain.temporaryDirectory("sites-\(build.name)")
    let source = directory.appendingPathComponent("sites.c")
    try constructionSource.write(to: source, atomically: true, encoding: .utf8)
    let binary = directory.appendingPathComponent("sites.bin")
    try Toolchain.check(clang, ["-fblocks"] + build.flags + [source.path, "-o", binary.path])
    let strip = try #require(Toolchain.find(anyOf: ["llvm-strip", "strip"]), "no strip tool on PATH")
    let stripped = directory.appendingPathComponent("sites.stripped")
    // Objects keep the symbols their relocations name.
    try Toolchain.check(
      strip, [build.isObject ? "--strip-debug" : "--strip-all", "-o", stripped.path, binary.path])
    // Unoptimized IR: one pair of stores per literal the source builds.
    let ir = ClangIR(
      try Toolchain.check(
        clang, ["-fblocks"] + build.languageFlags + ["-O0", "-S", "-emit-llvm", "-o", "-", source.path]
      ).stdout)
    var invokes: [String: Set<String>] = [:]
    var literals: [String: Int] = [:]
    // The names as the binary has them (Mach-O: one more underscore).
    let prefix = build.isMachO ? "_" : ""
    for construction in ir.stackConstructions {
      invokes[prefix + construction.descriptor, default: []].insert(prefix + construction.invoke)
      literals[prefix + construction.descriptor, default: 0] += 1
    }
    return (binary, stripped, invokes, literals, directory)
  }

  /// Every stack block's descriptor has sites, and their invoke functions are exactly those
  /// clang stores with it; unoptimized code stores both words at once (every invoke is found
  /// by its slot) and has one site per literal. A stripped copy gives the same addresses.
  @Test(arguments: SiteBuild.all)
  func sitesNameTheInvokeFunctionsClangStores(_ build: SiteBuild) throws {
    let built = try Self.build(build)
    defer { try? FileManager.default.removeItem(at: built.directory) }
    #expect(built.literals.values.reduce(0, +) == 9, "\(built.literals)")
    let report = try #require(try BinaryScanner.scan(fileAt: built.binary.path).first)
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    let stack = report.blocks.filter { $0.kind == .stack }
    #expect(Set(stack.compactMap(\.descriptor.symbol)) == Set(built.invokes.keys))
    for block in stack {
      let name = block.descriptor.symbol ?? "?"
      #expect(Set(block.constructionInvokes.compactMap(\.symbol)) == built.invokes[name], "\(name)")
      for site in block.constructionSites {
        let place = "\(name) at \(site.location.section)+\(site.location.sectionOffset)"
        #expect(site.invoke?.symbol != nil, "\(place)")
        #expect((site.invoke?.address != nil) == !build.isObject, "\(place)")
        #expect((site.location.address != nil) == !build.isObject, "\(place)")
        #expect(site.location.section.hasPrefix(build.isMachO ? "__TEXT,__text" : ".text"), "\(place)")
        #expect(site.function != nil, "\(place)")
        #expect(site.invokeMatch != nil, "\(place)")
      }
      // Every invoke is matched by its slot, none guessed: the stores right after the loads
      // (every -O0 build, most -O2 ones), a loop's registers loaded once and stored on each
      // pass (x86_64 -O2), arm64e's invoke signed (pacia) between its load and its store.
      #expect(block.constructionSites.allSatisfy { $0.invokeMatch == .slot }, "\(name)")
      if build.isUnoptimized {
        #expect(block.constructionSites.count == built.literals[name], "\(name)")
      }
    }
    #expect(report.blocks.filter { $0.kind == .global }.allSatisfy { $0.constructionSites.isEmpty })

    let stripped = try #require(try BinaryScanner.scan(fileAt: built.stripped.path).first)
    func addresses(_ report: BinaryScanReport) -> [String] {
      report.blocks.map { block in
        "\(block.descriptor.section)+\(block.descriptor.sectionOffset): "
          + block.constructionSites.map {
            "\($0.location.section)+\($0.location.sectionOffset) \($0.invoke?.address ?? 0) "
              + (build.isObject ? $0.invoke?.symbol ?? "-" : "") + " \($0.invokeMatch?.rawValue ?? "-")"
          }.joined(separator: ", ")
      }
    }
    #expect(addresses(stripped) == addresses(report))
    // In a linked image only exported functions keep their names (from the dynamic symbols).
    let exported = ["two", "returned", "loop", "inlined_twice", "big", "nested"]
    #expect(
      build.isObject
        || stripped.blocks.allSatisfy { $0.constructionSites.allSatisfy { $0.function.map(exported.contains) ?? true } }
    )
  }

  /// Code that loads a descriptor's address and an invoke's, stores neither, and passes them on
  /// in registers (hand-written here: clang stores both): the site is listed, with no invoke
  /// (no guess: the closest code address loaded before is often a closure, not the invoke);
  /// the function's own literal stays matched by slot.
  @Test func unstoredLoadsGiveNoInvoke() throws {
    let (_, block) = try ConstructionSiteTests.scanStackBlock(
      """
      extern void use(void (^)(void));
      void f(int k) { use(^{ (void)k; }); }
      __asm__(".text\\n.globl odd\\n.type odd,@function\\nodd:\\n"
              "lea __f_block_invoke(%rip), %rax\\nlea __block_descriptor_tmp(%rip), %rcx\\nret\\n"
              ".size odd, .-odd\\n");

      """, arguments: ["-fblocks", "-O1", "-shared", "-fPIC", "-nostdlib"], output: "libodd.so")
    let byFunction = Dictionary(grouping: block.constructionSites) { $0.function ?? "?" }
    #expect(Set(byFunction.keys) == ["f", "odd"])
    #expect(byFunction["f"]?.map(\.invokeMatch) == [.slot])
    #expect(byFunction["f"]?.first?.invoke?.symbol == "__f_block_invoke")
    #expect(byFunction["odd"]?.map(\.invokeMatch) == [nil])
    #expect(byFunction["odd"]?.first?.invoke == nil)
  }

  /// Swift merges functions that differ only in constants (`…Tm`) and passes the descriptor
  /// in: the caller loads it into an argument register and jumps to the merged function,
  /// which copies it to another register or spills and reloads it, then stores it beside the
  /// invoke. Hand-written in the shape swiftc gives FoundationNetworking: a `jmp` and a
  /// register copy, and a `call` and a spill. Linked, and as an object whose merged
  /// functions are global, so that the `jmp` and `call` carry their targets in relocations
  /// (`R_X86_64_PLT32`), as in the toolchain's libFoundationNetworking.a.
  @Test(arguments: [
    (["-shared", "-fPIC", "-nostdlib"], ""),
    (["-c"], ".globl merged\\n.globl spilled\\n"),
  ])
  func descriptorsPassedToAMergedFunction(_ flags: [String], _ globals: String) throws {
    let (_, block) = try ConstructionSiteTests.scanStackBlock(
      """
      extern void use(void (^)(void));
      void f(int k) { use(^{ (void)k; }); }
      __asm__(".text\\n\(globals)"
              ".globl viajump\\n.type viajump,@function\\nviajump:\\n"
              "lea helper(%rip), %rdx\\nlea __block_descriptor_tmp(%rip), %rcx\\njmp merged\\n.size viajump, .-viajump\\n"
              ".globl viacall\\n.type viacall,@function\\nviacall:\\n"
              "lea helper(%rip), %rdx\\nlea __block_descriptor_tmp(%rip), %r8\\ncall spilled\\nret\\n.size viacall, .-viacall\\n"
              ".fill 200, 1, 0x90\\n"  // so that only the call's real target leads to the callees
              ".type merged,@function\\nmerged:\\npush %rbx\\nmov %rcx, %r14\\nsub $64, %rsp\\n"
              "lea __f_block_invoke(%rip), %rax\\nmov %rax, 16(%rsp)\\nmov %r14, 24(%rsp)\\nadd $64, %rsp\\npop %rbx\\nret\\n.size merged, .-merged\\n"
              ".type spilled,@function\\nspilled:\\npush %rbp\\nmov %rsp, %rbp\\nsub $96, %rsp\\nmov %r8, -48(%rbp)\\n"
              "lea __f_block_invoke(%rip), %rax\\nmov %rax, -80(%rbp)\\nmov -48(%rbp), %rax\\nmov %rax, -72(%rbp)\\nleave\\nret\\n.size spilled, .-spilled\\n"
              ".type helper,@function\\nhelper:\\nret\\n.size helper, .-helper\\n");

      """, arguments: ["-fblocks", "-O1"] + flags, output: "merged.bin")
    let byFunction = Dictionary(grouping: block.constructionSites) { $0.function ?? "?" }
    #expect(Set(byFunction.keys) == ["f", "viajump", "viacall"])
    for caller in ["viajump", "viacall"] {
      #expect(byFunction[caller]?.map(\.invokeMatch) == [.callee], "\(caller)")
      #expect(byFunction[caller]?.first?.invoke?.symbol == "__f_block_invoke", "\(caller)")
    }
  }

  /// An invoke loaded into a callee-saved register long before the literal is built (300
  /// bytes of other code between, past the window around the descriptor's load), as swiftc
  /// does in FoundationXML: the register stored into the word before the descriptor is traced
  /// back to its `lea`.
  @Test func invokeLoadedLongBefore() throws {
    let (_, block) = try ConstructionSiteTests.scanStackBlock(
      """
      extern void use(void (^)(void));
      void f(int k) { use(^{ (void)k; }); }
      __asm__(".text\\n.globl early\\n.type early,@function\\nearly:\\npush %rbp\\nmov %rsp, %rbp\\n"
              "lea __f_block_invoke(%rip), %r12\\n.fill 300, 1, 0x90\\nmov %r12, -72(%rbp)\\n"
              "lea __block_descriptor_tmp(%rip), %rax\\nmov %rax, -64(%rbp)\\npop %rbp\\nret\\n"
              ".size early, .-early\\n");

      """, arguments: ["-fblocks", "-O1", "-shared", "-fPIC", "-nostdlib"], output: "libearly.so")
    let site = try #require(block.constructionSites.first { $0.function == "early" })
    #expect(site.invokeMatch == .slot)
    #expect(site.invoke?.symbol == "__f_block_invoke")
  }

  /// The toolchain's own libraries, built by clang (libdispatch) and swiftc (Foundation,
  /// FoundationNetworking, FoundationXML, swiftDispatch): every stack block has a site, and
  /// every site an invoke that the compilers' naming says is one: a clang block invoke
  /// (`…_block_invoke…`) or a Swift reabstraction thunk (`…TR`), found by slot or in a merged
  /// function's callee.
  @Test func toolchainLibrariesNameTheirInvokes() throws {
    let directory = try #require(Toolchain.runtimeLibraryDirectory)
    var sites = 0
    for name in [
      "libdispatch.so", "libFoundation.so", "libFoundationNetworking.so", "libFoundationXML.so", "libswiftDispatch.so",
    ] {
      let path = directory.appendingPathComponent(name).path
      guard FileManager.default.fileExists(atPath: path) else { continue }
      let report = try #require(try BinaryScanner.scan(fileAt: path).first)
      for block in report.blocks where block.kind == .stack {
        let place = "\(name) \(block.descriptor.symbol ?? "?")"
        #expect(!block.constructionSites.isEmpty, "\(place)")
        for site in block.constructionSites {
          sites += 1
          let invoke = site.invoke?.symbol ?? ""
          let thunk = invoke.hasPrefix("$s") && (invoke.hasSuffix("TR") || invoke.contains("TR."))
          #expect(invoke.contains("_block_invoke") || thunk, "\(place): \(invoke)")
        }
      }
    }
    #expect(sites >= 300, "\(sites) sites")
  }

  /// The same three shapes in AArch64 code (decoded word by word): a descriptor passed in x1
  /// to a merged function reached by `b` (moved to x20, then stored with `stp`) or by `bl`
  /// (spilled and reloaded into x3), and an invoke loaded into the callee-saved x19 before a
  /// call and 300 bytes of other code.
  @Test func aarch64MergedFunctionsAndEarlyInvokes() throws {
    let (_, block) = try ConstructionSiteTests.scanStackBlock(
      """
      extern void use(void (^)(void));
      void f(int k) { use(^{ (void)k; }); }
      #define LOAD(r, s) "adrp " #r ", " #s "\\n add " #r ", " #r ", :lo12:" #s "\\n"
      __asm__(".text\\n"
              ".globl viajump\\n.type viajump,%function\\nviajump:\\n" LOAD(x2, helper) LOAD(x1, __block_descriptor_tmp)
              "b merged\\n.size viajump, .-viajump\\n"
              ".globl viacall\\n.type viacall,%function\\nviacall:\\n" LOAD(x1, __block_descriptor_tmp)
              "bl spilled\\nret\\n.size viacall, .-viacall\\n"
              ".type merged,%function\\nmerged:\\nsub sp, sp, #64\\nmov x20, x1\\n" LOAD(x0, __f_block_invoke)
              "stp x0, x20, [sp, #16]\\nadd sp, sp, #64\\nret\\n.size merged, .-merged\\n"
              ".type spilled,%function\\nspilled:\\nsub sp, sp, #96\\nstr x1, [sp, #8]\\n" LOAD(x0, __f_block_invoke)
              "str x0, [sp, #40]\\nldr x3, [sp, #8]\\nstr x3, [sp, #48]\\nadd sp, sp, #96\\nret\\n.size spilled, .-spilled\\n"
              ".globl early\\n.type early,%function\\nearly:\\nstp x29, x30, [sp, #-32]!\\n" LOAD(x19, __f_block_invoke)
              "bl helper\\n.fill 75, 4, 0xd503201f\\nstr x19, [sp, #16]\\n" LOAD(x8, __block_descriptor_tmp)
              "str x8, [sp, #24]\\nldp x29, x30, [sp], #32\\nret\\n.size early, .-early\\n"
              ".type helper,%function\\nhelper:\\nret\\n.size helper, .-helper\\n");

      """,
      arguments: [
        "--target=aarch64-linux-gnu", "-fuse-ld=lld", "-fblocks", "-O1", "-shared", "-fPIC", "-nostdlib",
      ], output: "libmerged64.so")
    let byFunction = Dictionary(grouping: block.constructionSites) { $0.function ?? "?" }
    #expect(Set(byFunction.keys) == ["f", "viajump", "viacall", "early"])
    let expected: [String: BlockConstructionSite.InvokeMatch] = [
      "f": .slot, "viajump": .callee, "viacall": .callee, "early": .slot,
    ]
    for (function, match) in expected {
      #expect(byFunction[function]?.map(\.invokeMatch) == [match], "\(function)")
      #expect(byFunction[function]?.first?.invoke?.symbol == "__f_block_invoke", "\(function)")
    }
  }

  /// In an object of a static library the invoke may be defined by another object (swiftc
  /// emits a module's shared reabstraction thunks once, as in the toolchain's libFoundation.a):
  /// the site names the undefined symbol the relocation names, with no address.
  @Test(arguments: [
    (
      ["-c"],
      "sub $40, %rsp\\nlea ext_invoke(%rip), %rax\\nmov %rax, 16(%rsp)\\n"
        + "lea __block_descriptor_tmp(%rip), %rax\\nmov %rax, 24(%rsp)\\nadd $40, %rsp\\nret"
    ),
    (
      ["--target=aarch64-linux-gnu", "-c"],
      "sub sp, sp, #48\\nadrp x0, ext_invoke\\nadd x0, x0, :lo12:ext_invoke\\n"
        + "adrp x1, __block_descriptor_tmp\\nadd x1, x1, :lo12:__block_descriptor_tmp\\n"
        + "stp x0, x1, [sp, #16]\\nadd sp, sp, #48\\nret"
    ),
  ])
  func invokeDefinedInAnotherObject(_ flags: [String], _ body: String) throws {
    let (_, block) = try ConstructionSiteTests.scanStackBlock(
      """
      extern void use(void (^)(void));
      void f(int k) { use(^{ (void)k; }); }
      __asm__(".text\\n.globl other\\n.type other,%function\\nother:\\n\(body)\\n.size other, .-other\\n");

      """, arguments: ["-fblocks", "-O1"] + flags, output: "other.o")
    let site = try #require(block.constructionSites.first { $0.function == "other" })
    #expect(site.invokeMatch == .slot)
    #expect(site.invoke?.symbol == "ext_invoke")
    #expect(site.invoke?.address == nil)
    #expect(block.constructionSites.first { $0.function == "f" }?.invoke?.symbol == "__f_block_invoke")
  }
}
