import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// C source compiled at test time: global, stack, copy/dispose and struct-return blocks, plus decoys
/// (signature-like strings no descriptor refers to, and descriptor look-alikes with the wrong shape).
let blockSource = """
  int puts(const char *);
  typedef struct P { double d; int i; char c; } P;
  struct Big { long a, b, c; };
  int (^gb)(int, long) = ^(int a, long b) { return a + (int)b; };
  void (^gv)(void) = ^{ puts("x"); };
  struct Big (^gbig)(struct Big) = ^(struct Big b) { return b; };
  __attribute__((noinline)) int use(int (^b)(int)) { return b(3); }
  __attribute__((noinline)) void use2(void (^b)(const char *, double)) { b("s", 1.0); }
  __attribute__((noinline)) P useP(P (^b)(const char *, P *), P *p) { return b("a", p); }
  int stackish(int k) {
    __block int acc = 0;
    int r = use(^(int x) { acc += x; return x + k; });
    use2(^(const char *s, double d) { acc += (int)d + k + s[0]; });
    P pp = {1, 2, 3};
    P q = useP(^(const char *s, P *p) { P t = *p; t.i += k + s[0]; return t; }, &pp);
    return r + acc + q.i;
  }
  typedef struct { unsigned long reserved, size; const char *sig, *layout; } Fake;
  const char *decoy_table[] = {"v8@?0", "i12@?0i8", "hello @?0 world"};
  const Fake decoy_small = {0, 3, "v8@?0", 0};
  const Fake decoy_reserved = {0x12345, 32, "v16@?0i8", 0};
  const Fake decoy_text = {0, 32, "not a signature @?0", 0};
  const char decoy_inline[] = "q16@?0q8";
  int main(void) {
    return gb(1, 2) + stackish(2) + gbig((struct Big){1, 2, 3}).a + decoy_table[0][0]
      + decoy_small.sig[0] + decoy_reserved.sig[0] + decoy_text.sig[0] + decoy_inline[0];
  }
  """

/// Objective-C for the GNUstep runtime: descriptors shared by several blocks (`__block_descriptor_<size>_…`).
let objcSource = """
  void take(void (^b)(void));
  void take2(int (^b)(int));
  void f(int k) { take(^{ (void)k; }); take(^{ (void)k; }); take2(^(int x) { return x + k; }); }
  void (^g)(void) = ^{};
  void (^g2)(void) = ^{};
  """

/// How one test binary is built: compile flags (shared with the `-emit-llvm` truth), link flags.
struct BuildCase: CustomStringConvertible, Sendable {
  var name: String
  var compileFlags: [String]
  var linkFlags: [String]?  // nil: stop at the object file
  var strip = false
  var objectiveC = false
  var description: String { name }

  static let all: [BuildCase] = {
    let base: [BuildCase] = [
      BuildCase(name: "elf64-o-O0", compileFlags: ["-O0"], linkFlags: nil),
      BuildCase(name: "elf64-o-O2", compileFlags: ["-O2"], linkFlags: nil),
      BuildCase(name: "elf64-shared-O2", compileFlags: ["-O2", "-fPIC"], linkFlags: ["-shared"]),
      BuildCase(name: "elf64-shared-lld", compileFlags: ["-O0", "-fPIC"], linkFlags: ["-shared", "-fuse-ld=lld"]),
      BuildCase(name: "elf64-pie-O0", compileFlags: ["-O0", "-fPIE"], linkFlags: ["-pie", "-lBlocksRuntime"]),
      BuildCase(
        name: "elf64-pie-lld-relr", compileFlags: ["-O2", "-fPIE"],
        linkFlags: ["-pie", "-fuse-ld=lld", "-Wl,-z,pack-relative-relocs", "-lBlocksRuntime"]),
      BuildCase(name: "elf64-nopie-O0", compileFlags: ["-O0", "-fno-pic"], linkFlags: ["-no-pie", "-lBlocksRuntime"]),
      BuildCase(name: "elf64-nopie-O2", compileFlags: ["-O2", "-fno-pic"], linkFlags: ["-no-pie", "-lBlocksRuntime"]),
      BuildCase(name: "elf64-static", compileFlags: ["-O2"], linkFlags: ["-static", "-lBlocksRuntime"]),
      BuildCase(name: "elf32-o", compileFlags: ["-m32", "-O0"], linkFlags: nil),
      BuildCase(
        name: "elf32-shared-lld", compileFlags: ["-m32", "-O2", "-fPIC"],
        linkFlags: ["-m32", "-shared", "-nostdlib", "-fuse-ld=lld"]),
      BuildCase(name: "aarch64-o", compileFlags: ["--target=aarch64-linux-gnu", "-O2"], linkFlags: nil),
      BuildCase(
        name: "aarch64-shared-lld", compileFlags: ["--target=aarch64-linux-gnu", "-O0", "-fPIC"],
        linkFlags: ["--target=aarch64-linux-gnu", "-shared", "-nostdlib", "-fuse-ld=lld"]),
      BuildCase(name: "macho-arm64-o", compileFlags: ["-target", "arm64-apple-macos13", "-O0"], linkFlags: nil),
      BuildCase(name: "macho-x86_64-o", compileFlags: ["-target", "x86_64-apple-macos13", "-O2"], linkFlags: nil),
      // arm64e: data pointers are ARM64_RELOC_AUTHENTICATED_POINTER relocations.
      BuildCase(name: "macho-arm64e-o", compileFlags: ["-target", "arm64e-apple-macos13", "-O2"], linkFlags: nil),
      BuildCase(
        name: "objc-gnustep-o", compileFlags: ["-x", "objective-c", "-fobjc-runtime=gnustep-2.0", "-O0"],
        linkFlags: nil, objectiveC: true),
    ]
    // Every case again, stripped.
    return base
      + base.map {
        var copy = $0; copy.name += "-stripped"; copy.strip = true; return copy
      }
  }()
}

/// Builds `source` as `build` says in a fresh directory; returns the binary and clang's IR truth.
func buildBinary(_ build: BuildCase, source: String) throws -> (
  binary: URL, truth: [TruthDescriptor], literalCount: Int, directory: URL
) {
  let clang = try #require(Toolchain.find("clang"), "clang not found on PATH")
  let directory = try Toolchain.temporaryDirectory(build.name)
  let sourceURL = directory.appendingPathComponent(build.objectiveC ? "blocks.m" : "blocks.c")
  try source.write(to: sourceURL, atomically: true, encoding: .utf8)
  let common = ["-fblocks"] + build.compileFlags
  let ir = try Toolchain.check(clang, common + ["-S", "-emit-llvm", "-o", "-", sourceURL.path]).stdout
  let object = directory.appendingPathComponent("blocks.o")
  try Toolchain.check(clang, common + ["-c", "-o", object.path, sourceURL.path])
  var binary = object
  if let linkFlags = build.linkFlags {
    binary = directory.appendingPathComponent("blocks.bin")
    try Toolchain.check(clang, [object.path, "-o", binary.path] + linkFlags)
  }
  if build.strip {
    let strip = try #require(Toolchain.find(anyOf: ["llvm-strip", "strip"]), "no strip tool on PATH")
    let stripped = directory.appendingPathComponent("blocks.stripped")
    // Objects keep the symbols relocations need; everything else loses its symbol table.
    try Toolchain.check(
      strip, (build.linkFlags == nil ? ["--strip-debug"] : ["--strip-all"]) + ["-o", stripped.path, binary.path])
    binary = stripped
  }
  let literals = ir.split(separator: "\n").filter { $0.hasPrefix("@__block_literal_global") }.count
  return (binary, LLVMTruth.descriptors(inIR: ir), literals, directory)
}

struct Found: Hashable, CustomStringConvertible {
  var size: UInt64
  var signature: String?
  var description: String { "size \(size) \(signature ?? "nil")" }
}

@Suite struct BinaryScanTests {
  @Test(arguments: BuildCase.all)
  func clangTruthPrecisionAndRecall(_ build: BuildCase) throws {
    let built = try buildBinary(build, source: build.objectiveC ? objcSource : blockSource)
    defer { try? FileManager.default.removeItem(at: built.directory) }
    let reports = try BinaryScanner.scan(fileAt: built.binary.path)
    let report = try #require(reports.first)
    #expect(reports.count == 1)
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    #expect(!built.truth.isEmpty)
    let found = report.blocks.map { Found(size: $0.size, signature: $0.signature) }
    let truth = built.truth.map { Found(size: $0.size, signature: $0.signature) }
    let score = precisionRecall(found: found, truth: truth)
    #expect(
      score.precision == 1.0,
      "found \(found.sorted { $0.description < $1.description }), truth \(truth.sorted { $0.description < $1.description })"
    )
    #expect(
      score.recall == 1.0,
      "found \(found.sorted { $0.description < $1.description }), truth \(truth.sorted { $0.description < $1.description })"
    )
    #expect(report.globalLiteralCount == built.literalCount)
    #expect(report.blocks.filter { $0.kind == .global }.count <= built.literalCount)
    // Every signature parses: the structural validator accepts it.
    for block in report.blocks { #expect(block.signature?.contains("@?0") == true) }
    // With symbols, each descriptor carries clang's name for it.
    if report.hasSymbols {
      let prefix = report.format == .machO64 ? "_" : ""
      let names = report.blocks.compactMap(\.descriptor.symbol).map {
        $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0
      }
      #expect(Set(names) == Set(built.truth.map(\.name)))
      #expect(report.blocks.allSatisfy { $0.evidence.contains(.symbol) })
    }
    // Addresses only where they are final.
    let relocatable = build.linkFlags == nil
    #expect(report.kind == .relocatable ? relocatable : !relocatable)
    #expect(report.blocks.allSatisfy { ($0.descriptor.address == nil) == relocatable })
    // Copy/dispose helpers appear exactly for the blocks that capture a __block variable.
    if !build.objectiveC {
      let withHelpers = report.blocks.filter { $0.copyHelper != nil }
      #expect(withHelpers.allSatisfy { $0.disposeHelper != nil && $0.kind == .stack })
      #expect(!withHelpers.isEmpty)
    }
  }

  @Test func formatsAndKindsAreReported() throws {
    let cases: [(String, BinaryFormat, BinaryKind, String)] = [
      ("elf64-o-O0", .elf64, .relocatable, "x86_64"),
      ("elf64-shared-O2", .elf64, .sharedLibrary, "x86_64"),
      ("elf64-pie-O0", .elf64, .positionIndependentExecutable, "x86_64"),
      ("elf64-nopie-O0", .elf64, .executable, "x86_64"),
      ("elf64-static", .elf64, .staticExecutable, "x86_64"),
      ("elf32-o", .elf32, .relocatable, "i386"),
      ("aarch64-shared-lld", .elf64, .sharedLibrary, "aarch64"),
      ("macho-arm64-o", .machO64, .relocatable, "arm64"),
    ]
    for (name, format, kind, arch) in cases {
      let build = try #require(BuildCase.all.first { $0.name == name })
      let built = try buildBinary(build, source: blockSource)
      defer { try? FileManager.default.removeItem(at: built.directory) }
      let report = try #require(try BinaryScanner.scan(fileAt: built.binary.path).first)
      #expect(report.format == format, "\(name)")
      #expect(report.kind == kind, "\(name)")
      #expect(report.architecture == arch, "\(name)")
    }
  }

  @Test func globalLiteralsReportInvokeAndFlags() throws {
    let build = try #require(BuildCase.all.first { $0.name == "elf64-o-O0" })
    let built = try buildBinary(build, source: blockSource)
    defer { try? FileManager.default.removeItem(at: built.directory) }
    let report = try #require(try BinaryScanner.scan(fileAt: built.binary.path).first)
    let global = try #require(report.blocks.first { $0.signature == "i20@?0i8q12" })
    #expect(global.kind == .global)
    let literal = try #require(global.literals.first)
    #expect(literal.invoke.symbol == "gb_block_invoke")
    #expect(literal.flags & (1 << 28) != 0)  // BLOCK_IS_GLOBAL
    #expect(literal.flags & (1 << 30) != 0)  // BLOCK_HAS_SIGNATURE
    #expect(literal.location.symbol == "__block_literal_global")
    #expect(global.evidence == [.literal, .symbol, .structural])
    let helpers = try #require(report.blocks.first { $0.copyHelper != nil })
    #expect(helpers.copyHelper?.symbol?.hasPrefix("__copy_helper_block_") == true)
    #expect(helpers.disposeHelper?.symbol?.hasPrefix("__destroy_helper_block_") == true)
  }

  @Test func archiveMembersAreScannedOneByOne() throws {
    let ar = try #require(Toolchain.find(anyOf: ["llvm-ar", "ar"]))
    let first = try buildBinary(try #require(BuildCase.all.first { $0.name == "elf64-o-O0" }), source: blockSource)
    let second = try buildBinary(try #require(BuildCase.all.first { $0.name == "objc-gnustep-o" }), source: objcSource)
    defer {
      try? FileManager.default.removeItem(at: first.directory)
      try? FileManager.default.removeItem(at: second.directory)
    }
    let renamed = second.directory.appendingPathComponent("a-rather-long-member-name-for-gnu-ar.o")
    try FileManager.default.copyItem(at: second.binary, to: renamed)
    let archive = first.directory.appendingPathComponent("libblocks.a")
    try Toolchain.check(ar, ["rcs", archive.path, first.binary.path, renamed.path])
    let reports = try BinaryScanner.scan(fileAt: archive.path)
    #expect(
      reports.map(\.file) == ["\(archive.path)(blocks.o)", "\(archive.path)(a-rather-long-member-name-for-gnu-ar.o)"])
    #expect(reports.map(\.blocks.count) == [first.truth.count, second.truth.count])
    // The BSD form (names as `#1/<length>` before the contents, `__.SYMDEF` symbol table).
    if let llvmAR = Toolchain.find("llvm-ar") {
      let bsd = first.directory.appendingPathComponent("libblocks-bsd.a")
      try Toolchain.check(llvmAR, ["--format=bsd", "rcs", bsd.path, first.binary.path, renamed.path])
      let bsdReports = try BinaryScanner.scan(fileAt: bsd.path)
      #expect(
        bsdReports.map(\.file) == ["\(bsd.path)(blocks.o)", "\(bsd.path)(a-rather-long-member-name-for-gnu-ar.o)"])
      #expect(bsdReports.map(\.blocks.count) == [first.truth.count, second.truth.count])
    }
  }

  /// A BSD member name `#1/<length>` whose length is not a byte count within the member is a
  /// typed error at the length field (it was read as a member named "#1/-20", and before that
  /// a negative length trapped: FuzzTesting/FailCases/FuzzBinaryScanner/archive-bsd-*).
  @Test func bsdNameLengthOutsideTheMemberIsMalformed() throws {
    func archive(name: String, contents: String) -> [UInt8] {
      let header =
        name.padding(toLength: 16, withPad: " ", startingAt: 0) + "0           0     0     644     "
        + String(contents.utf8.count).padding(toLength: 10, withPad: " ", startingAt: 0) + "`\n"
      return Array("!<arch>\n".utf8) + Array(header.utf8) + Array(contents.utf8)
    }
    for field in ["-20", "17", "x", ""] {
      let bytes = archive(name: "#1/" + field, contents: "name-of-twelve-b")
      let result = bytes.withUnsafeBytes { raw in
        Result { () throws(BinaryScanError) in try BinaryScanner.scan(bytes: raw, name: "bsd.a") }
      }
      guard case .failure(let error) = result else {
        Issue.record("#1/\(field): scanned without error")
        continue
      }
      #expect(error.kind == .malformed, "#1/\(field)")
      #expect(error.offset == 11, "#1/\(field)")
      #expect(error.message.contains("BSD name length \"\(field)\""), "\(error.message)")
    }
    // A length within the member is a name (the member, not an object file, is passed over).
    let named = archive(name: "#1/12", contents: "name-of-twel" + "abcd")
    let reports = try named.withUnsafeBytes { raw in try BinaryScanner.scan(bytes: raw, name: "bsd.a") }
    #expect(reports.isEmpty)
  }

  @Test func swiftMadeBlocksAreFound() throws {
    let swiftc = try #require(Toolchain.find("swiftc"))
    let directory = try Toolchain.temporaryDirectory("swift")
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = directory.appendingPathComponent("blocks.swift")
    try """
    public func make(_ k: Int) -> @convention(block) (Int32, Double) -> Int32 { { a, _ in a + Int32(k) } }
    public func make2(_ k: Int) -> @convention(block) () -> Void { { _ = k } }
    """.write(to: source, atomically: true, encoding: .utf8)
    let ir = try Toolchain.check(swiftc, ["-parse-as-library", "-emit-ir", source.path]).stdout
    let library = directory.appendingPathComponent("libblocks.so")
    try Toolchain.check(swiftc, ["-parse-as-library", "-emit-library", source.path, "-o", library.path])
    let truth = LLVMTruth.descriptors(inIR: ir).map { Found(size: $0.size, signature: $0.signature) }
    #expect(truth.contains(Found(size: 48, signature: "i20@?0i8d12")))
    let report = try #require(try BinaryScanner.scan(fileAt: library.path).first)
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    let found = report.blocks.map { Found(size: $0.size, signature: $0.signature) }
    let score = precisionRecall(found: found, truth: truth)
    #expect(score.precision == 1.0 && score.recall == 1.0, "found \(found) truth \(truth)")
  }

  /// Variables shaped like descriptors: `.data` tables with a zero word, a size and a pointer
  /// to a signature (one with code pointers where copy/dispose helpers would be). Compilers put
  /// descriptors, which are constants, in `.rodata*`, `.data.rel.ro*` or `__DATA,__const`,
  /// never among variables, so the structural scan does not take these for stack blocks; the
  /// one real block is still found. Before, every build listed two or three false stack blocks.
  static let descriptorShapedVariables = """
    struct D { unsigned long reserved, size; const char *sig; void *layout; };
    struct D table[2] = {{0, 32, "v8@?0", 0}, {0, 40, "v16@?0@8", 0}};
    static void keep(void *a, void *b) { (void)a; (void)b; }
    struct C { unsigned long reserved, size; void (*copy)(void *, void *), (*dispose)(void *, void *); const char *sig; };
    struct C with_helpers = {0, 48, keep, keep, "i12@?0i8"};
    int (^gb)(int, long) = ^(int a, long b) { return a + (int)b; };
    int main(void) { return (int)table[0].size + (int)with_helpers.size + gb(1, 2); }
    """

  @Test(arguments: BuildCase.all.filter { !$0.objectiveC })
  func descriptorShapedVariablesAreNotBlocks(_ build: BuildCase) throws {
    let built = try buildBinary(build, source: Self.descriptorShapedVariables)
    defer { try? FileManager.default.removeItem(at: built.directory) }
    let report = try #require(try BinaryScanner.scan(fileAt: built.binary.path).first)
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    let found = report.blocks.map { Found(size: $0.size, signature: $0.signature) }
    let truth = built.truth.map { Found(size: $0.size, signature: $0.signature) }
    #expect(truth.count == 1, "\(truth)")
    #expect(found == truth, "\(report.blocks.map(\.descriptor))")
  }

  /// A descriptor in `.data` (`__DATA,__data`) is still found by its symbol or by the global
  /// literal that uses it: only the structural scan, which has no other evidence, skips
  /// sections of variables.
  @Test(arguments: [["-c"], ["-target", "arm64-apple-macos13", "-c"]])
  func descriptorsInDataAreFoundBySymbolOrLiteral(_ flags: [String]) throws {
    let (directory, object) = try Toolchain.compileC(
      """
      extern void *_NSConcreteGlobalBlock[32];
      struct D { unsigned long reserved, size; const char *sig; void *layout; };
      struct D __block_descriptor_in_data = {0, 32, "v8@?0", 0};
      static void invoke(void *block) { (void)block; }
      struct D used_by_literal = {0, 32, "i12@?0i8", 0};
      struct { void *isa; int flags, reserved; void (*invoke)(void *); struct D *descriptor; } literal = {
        _NSConcreteGlobalBlock, (1 << 28) | (1 << 30), 0, invoke, &used_by_literal};

      """, arguments: flags, output: "data.o")
    defer { try? FileManager.default.removeItem(at: directory) }
    let report = try #require(try BinaryScanner.scan(fileAt: object.path).first)
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    let data = report.format == .machO64 ? "__DATA,__data" : ".data"
    let bySymbol = try #require(report.blocks.first { $0.signature == "v8@?0" }, "\(report.blocks)")
    #expect(bySymbol.descriptor.section == data)
    #expect(bySymbol.evidence == [.symbol])
    let byLiteral = try #require(report.blocks.first { $0.signature == "i12@?0i8" }, "\(report.blocks)")
    #expect(byLiteral.descriptor.section == data)
    #expect(byLiteral.evidence == [.literal] && byLiteral.kind == .global)
  }
}
