import Foundation
import TestSupport
import Testing

/// The built trace agent.
enum TraceAgentBuild {
  /// Whether the agent library calls a sanitizer's runtime.
  static let isInstrumented: Bool = {
    let agent = Toolchain.productsDirectory.appendingPathComponent("libBlockSignatureTraceAgent.so")
    guard let bytes = try? Data(contentsOf: agent) else { return false }
    return bytes.range(of: Data("__tsan_init".utf8)) != nil || bytes.range(of: Data("__asan_init".utf8)) != nil
  }()
}

/// `blocksig trace` on C programs compiled by clang against the toolchain's BlocksRuntime and
/// libdispatch: each block prints its own record of the call (signature, arguments, result),
/// which must equal the trace.
///
/// Not under a sanitizer: an instrumented agent cannot be preloaded into a program built
/// without the sanitizer's runtime (its `__tsan_`/`__asan_` symbols are missing there).
@Suite(.disabled(if: TraceAgentBuild.isInstrumented, "the trace agent is built with a sanitizer"))
struct TraceCLITests {
  /// A program whose blocks print `signature arguments -> result` (a `#` starts a comment):
  /// a global literal, heap blocks with doubles, a structure and `long double`, blocks given
  /// to `dispatch_group_async` and `dispatch_async`.
  static let program = #"""
    #include <Block.h>
    #include <dispatch/dispatch.h>
    #include <stdio.h>
    #include <stdlib.h>

    struct P { double x, y; };

    static int (^const g_add)(int, int) = ^int(int a, int b) {
      printf("i16@?0i8i12 %d %d -> %d\n", a, b, a + b);
      return a + b;
    };

    int main(int argc, char **argv) {
      setvbuf(stdout, NULL, _IOLBF, 0);
      for (int i = 0; i < 3; i++) g_add(i, 10 * i);
      double k = 1.5;
      double (^scale)(double) = Block_copy(^double(double v) {
        printf("d16@?0d8 %.17g -> %.17g\n", v, v * k);
        return v * k;
      });
      scale(2);
      scale(0.25);
      Block_release(scale);
      struct P (^stretch)(struct P, long double) = Block_copy(^struct P(struct P p, long double f) {
        struct P r = {p.x * (double)f, p.y + k};
        printf("{P=dd}40@?0{P=dd}8D24 %.17g %.17g %.17Lg -> %.17g %.17g\n", p.x, p.y, f, r.x, r.y);
        return r;
      });
      stretch((struct P){1, 2}, 3);
      Block_release(stretch);
      long double (^half)(long double) = Block_copy(^long double(long double v) {
        printf("D24@?0D8 %.17Lg -> %.17Lg\n", v, v / 2);
        return v / 2;
      });
      half(5);
      Block_release(half);
      dispatch_queue_t q = dispatch_queue_create("q", NULL);
      dispatch_group_t g = dispatch_group_create();
      for (int i = 0; i < 4; i++) dispatch_group_async(g, q, ^{ printf("v8@?0 -> # group %d\n", i); });
      dispatch_group_wait(g, DISPATCH_TIME_FOREVER);
      dispatch_semaphore_t done = dispatch_semaphore_create(0);
      dispatch_async(q, ^{
        printf("v8@?0 -> # async\n");
        dispatch_semaphore_signal(done);
      });
      dispatch_semaphore_wait(done, DISPATCH_TIME_FOREVER);
      return argc > 1 ? atoi(argv[1]) : 0;
    }
    """#

  /// The program compiled, in a temporary folder.
  static func compiled(_ source: String = program) throws -> URL {
    let runtime = try #require(Toolchain.runtimeLibraryDirectory)
    let headers = runtime.deletingLastPathComponent()  // lib/swift: dispatch/dispatch.h
    return try Toolchain.compileC(
      source,
      arguments: [
        "-fblocks", "-I", headers.path, "-L", runtime.path, "-lBlocksRuntime", "-ldispatch",
        "-Wl,-rpath," + runtime.path,
      ], output: "program"
    ).product
  }

  /// A call as `signature arg… -> result…`, each number printed as Swift prints the Double.
  static func canonical(_ signature: String, _ arguments: [Double], _ results: [Double]) -> String {
    ([signature] + arguments.map { "\($0)" } + ["->"] + results.map { "\($0)" }).joined(separator: " ")
  }

  /// The program's own records of its calls.
  static func programCalls(_ stdout: String) -> [String] {
    stdout.split(separator: "\n").map { line in
      let record = line.split(separator: "#")[0]
      let parts = record.split(separator: " ").map(String.init)
      let arrow = parts.firstIndex(of: "->")!
      return canonical(
        parts[0], parts[1..<arrow].compactMap(Double.init), parts[(arrow + 1)...].compactMap(Double.init))
    }
  }

  /// The numbers in a JSON value of `blocksig call`'s form, in order (structures flattened).
  static func numbers(_ value: Any?) -> [Double] {
    switch value {
    case let array as [Any]: array.flatMap(numbers)
    case let number as NSNumber: [number.doubleValue]
    case let text as String: Double(text).map { [$0] } ?? []
    default: []
    }
  }

  /// The trace's calls, and its other objects, from JSON Lines.
  static func tracedCalls(_ text: String) throws -> (calls: [String], others: [[String: Any]]) {
    var calls: [String] = []
    var others: [[String: Any]] = []
    for line in text.split(separator: "\n") {
      let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      #expect(object["serializationVersion"] as? Int == 1)
      guard object["event"] as? String == "call" else {
        others.append(object)
        continue
      }
      #expect((object["block"] as? String)?.hasPrefix("0x") == true)
      #expect((object["invoke"] as? String)?.hasPrefix("0x") == true)
      #expect(object["thread"] is Int)
      calls.append(
        canonical(
          try #require(object["signature"] as? String), numbers(object["arguments"]), numbers(object["result"])))
    }
    return (calls, others)
  }

  @Test func jsonTraceEqualsTheProgramsOwnRecord() throws {
    let program = try Self.compiled()
    let folder = program.deletingLastPathComponent()
    let output = folder.appendingPathComponent("trace.jsonl")
    let traced = try blocksig(["trace", "--json", "--output", output.path, "--", program.path], timeout: 60)
    #expect(traced.status == 0)
    #expect(traced.stderr == "")
    let own = Self.programCalls(traced.stdout)
    #expect(own.count == 12)
    let trace = try Self.tracedCalls(String(contentsOf: output, encoding: .utf8))
    #expect(trace.calls.sorted() == own.sorted())
    let summary = try #require(trace.others.last)
    #expect(summary["event"] as? String == "summary")
    let perBlock = try #require(summary["calls"] as? [[String: Any]])
    #expect(perBlock.compactMap { $0["calls"] as? Int }.reduce(0, +) == 12)
  }

  @Test func textTraceGoesToStandardErrorAndTheProgramIsUnchanged() throws {
    let program = try Self.compiled()
    let untraced = try Toolchain.run(program.path, [], timeout: 60)
    let traced = try blocksig(["trace", "--", program.path], timeout: 60)
    #expect(traced.status == 0)
    #expect(traced.stdout == untraced.stdout)
    let lines = traced.stderr.split(separator: "\n")
    #expect(lines.count == 12)
    #expect(lines.contains { $0.hasSuffix("int (^)(int, int)  (1, 10) -> 11") && $0.hasPrefix("[thread 1] ") })
    #expect(lines.contains { $0.hasSuffix("struct P (^)(struct P, long double)  ([1.0, 2.0], 3.0) -> [3.0, 3.5]") })
  }

  @Test func symbolLimitsTheTrace() throws {
    let program = try Self.compiled()
    let all = try blocksig(["trace", "--json", "--", program.path], timeout: 60)
    let symbols = all.stderr.split(separator: "\n").compactMap { line -> String? in
      guard line.contains(#""signature":"d16@?0d8""#),
        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      else { return nil }
      return object["invokeSymbol"] as? String
    }
    let scale = try #require(symbols.first)
    let limited = try blocksig(["trace", "--json", "--symbol", scale, "--", program.path], timeout: 60)
    let trace = try Self.tracedCalls(limited.stderr)
    #expect(trace.calls == ["d16@?0d8 2.0 -> 3.0", "d16@?0d8 0.25 -> 0.375"])
    // A global literal is also named by its own symbol (clang's __block_literal_global).
    let literal = try blocksig(
      ["trace", "--json", "--symbol", "__block_literal_global", "--", program.path], timeout: 60)
    let literalCalls = try Self.tracedCalls(literal.stderr).calls
    #expect(literalCalls.count == 3, "\(literal.stderr)")
    #expect(literalCalls.allSatisfy { $0.hasPrefix("i16@?0i8i12 ") }, "\(literalCalls)")
  }

  /// Compiled Objective-C whose block GNUstep Base calls (`enumerateObjectsUsingBlock:`): the
  /// trace has the calls the program records, with the index GNUstep passed.
  @Test func blocksGNUstepCallsAreTraced() throws {
    let runtime = try #require(Toolchain.runtimeLibraryDirectory)
    let gccInclude = try Toolchain.run(Toolchain.tool("gcc"), ["-print-file-name=include"]).stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let source = """
      #import <Foundation/Foundation.h>
      #include <stdio.h>
      static void (^const visit)(id, NSUInteger, BOOL *) = ^(id object, NSUInteger index, BOOL *stop) {
        printf("v32@?0@8Q16*24 %lu\\n", (unsigned long)index);
      };
      int main(void) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        NSAutoreleasePool *pool = [NSAutoreleasePool new];
        [[NSArray arrayWithObjects:@"a", @"b", @"c", nil] enumerateObjectsUsingBlock:visit];
        [pool release];
        return 0;
      }

      """
    let flags = try GNUstepPrograms.config("--objc-flags").filter { $0.hasPrefix("-I") || $0.hasPrefix("-D") }
    // The toolchain's blocks runtime before GNUstep Base, whose private one must not win.
    let (folder, program) = try Toolchain.compileC(
      source, fileName: "enumerate.m",
      arguments: [
        "-fblocks", "-fobjc-runtime=gcc", "-fobjc-exceptions", "-fconstant-string-class=NSConstantString", "-w",
        "-I", Toolchain.packageRoot.appendingPathComponent("ObjCSupport/include").path, "-I", gccInclude,
      ] + flags + ["-L", runtime.path, "-lBlocksRuntime", "-Wl,-rpath," + runtime.path]
        + (try GNUstepPrograms.config("--base-libs")), output: "enumerate")
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try blocksig(["trace", "--json", "--", program.path], timeout: 60)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout == "v32@?0@8Q16*24 0\nv32@?0@8Q16*24 1\nv32@?0@8Q16*24 2\n")
    let calls = try Self.tracedCalls(run.stderr).calls
    #expect(calls.count == 3, "\(run.stderr)")
    #expect(calls.allSatisfy { $0.hasPrefix("v32@?0@8Q16*24") }, "\(calls)")
    let indexes = run.stderr.split(separator: "\n").compactMap { line -> Int? in
      guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        object["event"] as? String == "call", let arguments = object["arguments"] as? [Any]
      else { return nil }
      return (arguments[1] as? NSNumber)?.intValue
    }
    #expect(indexes == [0, 1, 2])
  }

  @Test func exitStatusIsTheProgramsOrItsSignalsOr66() throws {
    let program = try Self.compiled()
    #expect(try blocksig(["trace", "--", program.path, "3"], timeout: 60).status == 3)
    let crashing = try Toolchain.compileC(
      "#include <signal.h>\nint main(void) { raise(SIGSEGV); return 0; }\n", arguments: [], output: "crash"
    ).product
    #expect(try blocksig(["trace", "--", crashing.path], timeout: 60).status == 128 + SIGSEGV)
    let missing = try blocksig(["trace", "--", "/nonexistent/program"], timeout: 60)
    #expect(missing.status == 66)
    #expect(missing.stderr.contains("/nonexistent/program"))
  }

  /// An output file that cannot be written stops the trace before the program runs (73).
  @Test func unwritableOutputExits73() throws {
    let run = try blocksig(
      ["trace", "--output", "/nonexistent/folder/trace.txt", "--", try Self.compiled().path], timeout: 60)
    #expect(run.status == 73)
    #expect(
      run.stderr.contains("/nonexistent/folder/trace.txt: cannot write: No such file or directory"), "\(run.stderr)")
    #expect(run.stdout.isEmpty)
  }

  /// A dynamic program that links no blocks runtime runs as it would, with a warning that only
  /// libraries it loads later could bring blocks; one that links a runtime gets none.
  @Test func programWithoutABlocksRuntimeIsWarnedAbout() throws {
    let plain = try Toolchain.compileC("int main(void) { return 5; }\n", arguments: [], output: "plain").product
    let run = try blocksig(["trace", "--", plain.path], timeout: 60)
    #expect(run.status == 5)
    #expect(run.stderr.contains("warning: \(plain.path) links no blocks runtime at start"), "\(run.stderr)")
    let withBlocks = try blocksig(["trace", "--", try Self.compiled().path], timeout: 60)
    #expect(!withBlocks.stderr.contains("links no blocks runtime"))
  }

  @Test func staticProgramRunsUntracedWithAWarning() throws {
    let program = try Toolchain.compileC("int main(void) { return 4; }\n", arguments: ["-static"], output: "static")
      .product
    let run = try blocksig(["trace", "--", program.path], timeout: 60)
    #expect(run.status == 4)
    #expect(run.stderr.contains("statically linked"))
  }

  /// A Swift program whose closures reach libdispatch as blocks: each call it makes is traced.
  @Test func swiftProgramsClosuresGivenToDispatchAreTraced() throws {
    let folder = try Toolchain.temporaryDirectory("blocksig-swift")
    let source = folder.appendingPathComponent("main.swift")
    try #"""
    import Dispatch

    let queue = DispatchQueue(label: "traced")
    let group = DispatchGroup()
    for index in 0..<3 {
      queue.async(group: group) { print("swift async \(index)") }
    }
    group.wait()
    """#.write(to: source, atomically: true, encoding: .utf8)
    let program = folder.appendingPathComponent("program")
    let compiled = try Toolchain.run(Toolchain.tool("swiftc"), ["-o", program.path, source.path], timeout: 300)
    try #require(compiled.status == 0, "swiftc: \(compiled.stderr)")
    let output = folder.appendingPathComponent("trace.jsonl")
    let traced = try blocksig(["trace", "--json", "--output", output.path, "--", program.path], timeout: 60)
    #expect(traced.status == 0)
    let own = traced.stdout.split(separator: "\n").filter { $0.hasPrefix("swift async") }
    #expect(own.count == 3)
    let trace = try Self.tracedCalls(String(contentsOf: output, encoding: .utf8))
    #expect(trace.calls == Array(repeating: "v8@?0 ->", count: own.count))
  }

  /// A global block built without `BLOCK_HAS_SIGNATURE`: the program runs as it would, and its
  /// call is traced with its arguments and result unknown.
  @Test func blockWithoutSignatureIsTracedWithArgumentsUnknown() throws {
    let runtime = try #require(Toolchain.runtimeLibraryDirectory)
    let program = try Toolchain.compileC(
      #"""
      #include <stdio.h>
      extern void *_NSConcreteGlobalBlock[32];
      struct D { unsigned long reserved, size; };
      struct L { void *isa; int flags, reserved; int (*invoke)(void *, int); const struct D *d; };
      static int twice(void *b, int x) { (void)b; return 2 * x; }
      static const struct D desc = {0, sizeof(struct L)};
      static struct L literal = {_NSConcreteGlobalBlock, 1 << 28, 0, twice, &desc};
      int main(void) { printf("%d\n", ((int (^)(int))(void *)&literal)(21)); return 0; }
      """#,
      arguments: ["-fblocks", "-L", runtime.path, "-lBlocksRuntime", "-Wl,-rpath," + runtime.path], output: "unsigned"
    ).product
    let traced = try blocksig(["trace", "--json", "--", program.path], timeout: 60)
    #expect(traced.status == 0)
    #expect(traced.stdout == "42\n")
    let lines = traced.stderr.split(separator: "\n")
    try #require(lines.count == 2)
    let call = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    #expect(call["event"] as? String == "call")
    #expect(call["invokeSymbol"] as? String == "twice")
    #expect(call["signature"] is NSNull && call["arguments"] is NSNull && call["result"] is NSNull)
    #expect((call["note"] as? String)?.contains("no signature") == true)
    let text = try blocksig(["trace", "--", program.path], timeout: 60)
    #expect(text.stderr == "[thread 1] twice  (no signature)  (arguments unknown)\n")
  }
}
