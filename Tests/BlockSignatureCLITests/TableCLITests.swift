import Foundation
import TestSupport
import Testing

/// `blocksig table`: a struct of callbacks read from a header by clang. The oracles are clang
/// again, by other roads: the signatures it writes for blocks written by hand with each
/// member's parameters, and `offsetof` in a library built from the same header.
@Suite struct TableCLITests {
  static let header = """
    struct point { double x, y; };
    typedef long double (*scale_fn)(void *ctx, long double by);
    struct ops {
      int (*add)(void *ctx, int a, int b);
      struct point (*move)(void *ctx, struct point p, const char *why);
      scale_fn scale;
      void (*log)(void *ctx, const char *format, ...);
      void (*each)(void *ctx, void (*visit)(int), _Bool (^keep)(int));
      unsigned version;
      char name[13];
      struct point origin;
      void *(*lookup)(const char *key);
      void (*reset)(void);
    };
    typedef struct ops ops_t;

    """

  /// Blocks with each function member's parameters, and one taking each data member, written
  /// out in C (`b_MEMBER` returns the one for MEMBER): clang's signatures for them are the
  /// expected ones.
  static let handWritten = """
    #include "ops.h"
    const void *b_add(void) { return ^int(void *ctx, int a, int b) { return 0; }; }
    const void *b_move(void) { return ^struct point(void *ctx, struct point p, const char *why) { return p; }; }
    const void *b_scale(void) { return ^long double(void *ctx, long double by) { return by; }; }
    const void *b_log(void) { return ^void(void *ctx, const char *format) {}; }
    const void *b_each(void) { return ^void(void *ctx, void (*visit)(int), _Bool (^keep)(int)) {}; }
    const void *b_version(void) { return ^void(unsigned v) {}; }
    const void *b_name(void) { return ^void(char (*n)[13]) {}; }
    const void *b_origin(void) { return ^void(struct point o) {}; }
    const void *b_lookup(void) { return ^void *(const char *key) { return 0; }; }
    const void *b_reset(void) { return ^void(void) {}; }
    unsigned long offsets[] = { __builtin_offsetof(struct ops, add), __builtin_offsetof(struct ops, move),
      __builtin_offsetof(struct ops, scale), __builtin_offsetof(struct ops, log),
      __builtin_offsetof(struct ops, each), __builtin_offsetof(struct ops, version),
      __builtin_offsetof(struct ops, name), __builtin_offsetof(struct ops, origin),
      __builtin_offsetof(struct ops, lookup), __builtin_offsetof(struct ops, reset), sizeof(struct ops) };

    """

  static let names = ["add", "move", "scale", "log", "each", "version", "name", "origin", "lookup", "reset"]

  /// A folder with `ops.h` (and whatever else `files` names); the caller removes it.
  static func folder(_ files: [String: String] = [:]) throws -> URL {
    let folder = try Toolchain.temporaryDirectory("blocksig-table")
    for (name, text) in files.merging(["ops.h": header], uniquingKeysWith: { first, _ in first }) {
      try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    return folder
  }

  func json(_ output: Toolchain.Output) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "\(output.stdout)")
  }

  @Test(arguments: ["ops", "struct ops", "ops_t"])
  func membersAreClangs(_ record: String) throws {
    let folder = try Self.folder(["hand.c": Self.handWritten])
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try blocksig(
      ["table", folder.appendingPathComponent("ops.h").path, "--struct", record, "--clang", Toolchain.clang, "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    let document = try json(run)
    let members = try #require(document["members"] as? [[String: Any]])
    #expect(members.compactMap { $0["name"] as? String } == Self.names)

    let hand = folder.appendingPathComponent("hand.c").path
    let ir = ClangIR(try Toolchain.runClang(["-fblocks", "-S", "-emit-llvm", "-o", "-", hand]).stdout)
    for member in members {
      let name = try #require(member["name"] as? String)
      let literal = try #require(ir.literal(invoking: "__b_\(name)_block_invoke"), "\(name)")
      let expected = try #require(ir.descriptors[literal.descriptor]?.signature, "\(name)")
      if member["kind"] as? String == "function" {
        #expect(member["blockSignature"] as? String == expected, "\(name)")
        let converted = try blocksig("block", "--from", "function", try #require(member["encoding"] as? String))
        #expect(converted.stdout == expected + "\n", "\(name): \(member)")
      } else {
        // The one parameter of a block taking the member (a pointer to it for the array).
        guard let afterBlock = expected.range(of: "@?0")?.upperBound else {
          Issue.record("\(name): \(expected) has no block parameter")
          continue
        }
        var type = expected[afterBlock...]
        while type.last?.isNumber == true { type = type.dropLast() }
        #expect(
          (name == "name" ? "^" : "") + (member["encoding"] as? String ?? "") == String(type), "\(name): \(expected)")
      }
      #expect(member["variadic"] as? Bool == (name == "log"), "\(name)")
    }

    let library = try CompiledCLibrary(Self.handWritten, named: "hand", flags: ["-fblocks", "-w", "-I", folder.path])
    let offsets = try library.address("offsets").assumingMemoryBound(to: UInt.self)
    #expect(members.compactMap { $0["offset"] as? Int } == (0..<Self.names.count).map { Int(offsets[$0]) })
    #expect(document["size"] as? Int == Int(offsets[Self.names.count]))
    #expect(document["record"] as? String == record)
  }

  /// The text form lines up, names its struct and marks the variadic member.
  @Test func textForm() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("ops.h").path
    let run = try blocksig("table", path, "--struct", "ops", "--clang", Toolchain.clang)
    #expect(run.status == 0, "\(run.stderr)")
    let document = try json(try blocksig("table", path, "--struct", "ops", "--clang", Toolchain.clang, "--json"))
    let size = try #require(document["size"] as? Int)
    #expect(document["text"] as? String == run.stdout)
    let lines = run.stdout.split(separator: "\n")
    #expect(lines.first == "# ops, from \(path) by clang: \(size) bytes, 10 members")
    #expect(lines.count == 11)
    #expect(
      lines.dropFirst().allSatisfy {
        $0.dropFirst(9).hasPrefix("function  ") || $0.dropFirst(9).hasPrefix("data      ")
      })
    let log = try #require(lines.first { $0.hasPrefix("log ") })
    #expect(log.hasSuffix("  # variadic: the fixed part"))
    #expect(lines.contains { $0.hasPrefix("version  data      I") })
  }

  /// A function pointer is one however it is qualified or what it returns; an array of them
  /// is data.
  @Test func functionPointersByTheirShape() throws {
    let source = """
      struct q {
        int (*const constant)(void *, int);
        int (*volatile changing)(int);
        void (*(*maker)(int))(char);
        int (*table[2])(int);
        int (**indirect)(int);
      };

      """
    let folder = try Self.folder(["q.h": source])
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try blocksig(
      "table", folder.appendingPathComponent("q.h").path, "--struct", "q", "--clang", Toolchain.clang, "--json")
    #expect(run.status == 0, "\(run.stderr)")
    let members = try #require(try json(run)["members"] as? [[String: Any]])
    let kinds = Dictionary(
      uniqueKeysWithValues: members.map { ($0["name"] as? String ?? "", $0["kind"] as? String ?? "") })
    #expect(
      kinds == [
        "constant": "function", "changing": "function", "maker": "function", "table": "data", "indirect": "data",
      ])
  }

  @Test(arguments: [
    ("union u { int (*f)(int); };", "u", "'u' is a union, not a struct"),
    ("struct b { int (*f)(int); unsigned flag : 1; };", "b", "member 'flag' of 'b' is a bitfield"),
    ("struct k { int (*f)(); };", "k", "a function with no prototype"),
    ("typedef struct { int (*f)(int); } anon_t;", "anon_t", "not a named struct"),
    ("struct fwd;", "fwd", "defines no struct or typedef named 'fwd'"),
    ("struct n { int (*f)(int); struct { int x; }; };", "n", "an unnamed member"),
    ("struct e { int (*f)(int); undefined_type x; };", "e", "clang failed on"),
    ("struct v { int (*f)(int); int __attribute__((vector_size(16))) lanes; };", "v", "member 'lanes'"),
    ("struct w { int (*f)(int __attribute__((vector_size(16)))); };", "w", "no encoding for a type of its function"),
  ])
  func refusals(_ source: String, _ record: String, _ message: String) throws {
    let folder = try Self.folder(["bad.h": source + "\n"])
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try blocksig(
      "table", folder.appendingPathComponent("bad.h").path, "--struct", record, "--clang", Toolchain.clang)
    #expect(run.status == 65, "\(run.stdout)")
    #expect(run.stdout == "")
    #expect(run.stderr.hasPrefix("blocksig table: error: "), "\(run.stderr)")
    #expect(run.stderr.contains(message), "\(run.stderr)")
  }

  /// The probe runs the header's constructors: one that never ends is killed at the limit
  /// (8 s, so that clang's own runs fit in it on a busy machine).
  @Test func aProbeThatDoesNotEndIsKilled() throws {
    let source = """
      struct s { int (*f)(int); };
      __attribute__((constructor)) static void forever(void) { for (;;) {} }

      """
    let folder = try Self.folder(["s.h": source])
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try blocksig(
      "table", folder.appendingPathComponent("s.h").path, "--struct", "s", "--clang", Toolchain.clang,
      "--time-limit", "8")
    #expect(run.status == 65)
    // The probe, unless a loaded machine made clang itself take that long: either is killed.
    #expect(run.stderr.contains(" did not finish in 8 s: it was killed"), "\(run.stderr)")
    #expect(
      try blocksig("table", folder.appendingPathComponent("s.h").path, "--struct", "s", "--time-limit", "0").status
        == 64)
  }

  /// A member of union type is data the delegate never calls: listed with its encoding; a
  /// table that is itself a union is refused (``refusals(_:_:_:)``).
  @Test func aUnionDataMemberIsListed() throws {
    let folder = try Self.folder(["u.h": "union U { int i; float f; };\nstruct t { int (*f)(int); union U u; };\n"])
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try blocksig(
      "table", folder.appendingPathComponent("u.h").path, "--struct", "t", "--clang", Toolchain.clang)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("\nu  data      (U=if)\n"), "\(run.stdout)")
  }

  /// An interrupt while the probe runs stops blocksig and the probe together (they share a
  /// process group): blocksig ends by the interrupt, at once, with no message about time.
  @Test func anInterruptStopsTheProbeAndBlocksig() throws {
    let source = """
      #include <unistd.h>
      struct s { int (*f)(int); };
      __attribute__((constructor)) static void slow(void) { sleep(60); }

      """
    let folder = try Self.folder(["s.h": source])
    defer { try? FileManager.default.removeItem(at: folder) }
    // A test runner may start programs with signals blocked or SIGINT ignored: undo both, as
    // a terminal would have them, then press Ctrl-C (SIGINT to the process group) once the
    // probe is running.
    let script = """
      import os, signal, subprocess, sys, time
      def reset():
          signal.pthread_sigmask(signal.SIG_SETMASK, [])
          signal.signal(signal.SIGINT, signal.SIG_DFL)
      child = subprocess.Popen(sys.argv[1:], start_new_session=True, preexec_fn=reset,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
      for _ in range(400):
          time.sleep(0.1)
          if subprocess.run(["pgrep", "-g", str(child.pid), "-f", "/probe$"], capture_output=True).returncode == 0:
              break
      start = time.time()
      os.killpg(child.pid, signal.SIGINT)
      out, err = child.communicate()
      print(child.returncode, round(time.time() - start), err.decode().strip())
      """
    let run = try Toolchain.run(
      "/usr/bin/python3",
      [
        "-c", script, Toolchain.blocksig, "table", folder.appendingPathComponent("s.h").path, "--struct", "s",
        "--clang", Toolchain.clang,
      ])
    // Killed by SIGINT (-2 in Python's terms) within a few seconds, and said nothing.
    let fields = run.stdout.split(separator: " ", maxSplits: 2)
    #expect(fields.first == "-2", "\(run.stdout) \(run.stderr)")
    #expect((Int(fields.dropFirst().first ?? "") ?? 99) < 10, "\(run.stdout)")
    #expect(!run.stdout.contains("did not finish"), "\(run.stdout)")
  }

  @Test func missingInputs() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let header = folder.appendingPathComponent("ops.h").path
    let noHeader = try blocksig("table", folder.appendingPathComponent("none.h").path, "--struct", "ops")
    #expect(noHeader.status == 66)
    #expect(noHeader.stderr.contains("none.h: no such file, or not readable"), "\(noHeader.stderr)")
    let noClang = try blocksig("table", header, "--struct", "ops", "--clang", "/nonexistent/clang")
    #expect(noClang.status == 66)
    #expect(noClang.stderr.contains("/nonexistent/clang: no such compiler"), "\(noClang.stderr)")
    let usage = try blocksig("table", header)
    #expect(usage.status == 64)
    for name in ["", "struct ", "a b", "9ops", "ops;", "struct ops *"] {
      let notAName = try blocksig("table", header, "--struct", name)
      #expect(notAName.status == 64, "'\(name)'")
      #expect(notAName.stderr.contains("is not a C struct tag or typedef name"), "\(notAName.stderr)")
    }
  }

  /// `-I` and `-D` reach clang: the header needs both.
  @Test func includeFoldersAndMacros() throws {
    let folder = try Self.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
    try "struct OPS_NAME { int (*f)(int); };\n".write(
      to: folder.appendingPathComponent("sub/inner.h"), atomically: true, encoding: .utf8)
    try "#include <inner.h>\n".write(to: folder.appendingPathComponent("outer.h"), atomically: true, encoding: .utf8)
    let run = try blocksig(
      "table", folder.appendingPathComponent("outer.h").path, "--struct", "named", "-I",
      folder.appendingPathComponent("sub").path, "-D", "OPS_NAME=named", "--clang", Toolchain.clang)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.hasPrefix("# named, from "), "\(run.stdout)")
    #expect(run.stdout.split(separator: "\n").first?.hasSuffix(" bytes, 1 member") == true, "\(run.stdout)")
    #expect(run.stdout.contains("\nf  function  i"), "\(run.stdout)")
  }
}
