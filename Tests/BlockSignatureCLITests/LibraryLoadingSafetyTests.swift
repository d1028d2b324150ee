import Foundation
import TestSupport
import Testing

/// The commands that load a library — `inspect --library`, `call --library`, `objc classes` —
/// never die by a signal and never hang: a damaged file is refused before `dlopen` (66, with
/// `FILE: error: …`), and the library's own code runs in a child whose crash is an error (70).
@Suite(.serialized) struct LibraryLoadingSafetyTests {
  /// A child that waits forever would fail the run here instead of hanging it.
  static let timeout = 60.0

  /// The libraries damaged here: the fixtures library and the toolchain's libdispatch.
  static func libraries() throws -> [URL] {
    let fixtures = try InspectCLITests.library.get()
    let dispatch = try #require(Toolchain.runtimeLibraryDirectory).appendingPathComponent("libdispatch.so")
    return [fixtures, dispatch]
  }

  /// The three loading commands on `library`.
  static func commands(_ library: String) -> [[String]] {
    [
      ["inspect", "--library", library, "--symbol", "bf_int_long"],
      ["call", "--library", library, "--symbol", "bf_int_long", "3", "4"],
      ["objc", "classes", library],
    ]
  }

  /// Runs `arguments` and checks it ended by exiting, in time, with one of `statuses`.
  @discardableResult
  func runSafely(_ arguments: [String], statuses: Set<Int32>, _ what: String) throws -> Toolchain.Output {
    let output = try blocksig(arguments, timeout: Self.timeout)
    #expect(!output.timedOut, "\(what): \(arguments) did not finish in \(Self.timeout) s")
    #expect(!output.signaled, "\(what): \(arguments) died by signal \(output.status)\n\(output.stderr)")
    #expect(statuses.contains(output.status), "\(what): \(arguments) exited \(output.status)\n\(output.stderr)")
    #expect(!output.stderr.contains("Backtracing"), "\(what): \(output.stderr)")
    return output
  }

  /// Truncated at 4 KiB, 8 KiB, 64 KiB, half, and all but the last 100 bytes: refused before
  /// dlopen, with the file named first and what goes past its end.
  @Test func truncatedLibrariesAreRefused() throws {
    let folder = try Toolchain.temporaryDirectory("blocksig-truncated")
    defer { try? FileManager.default.removeItem(at: folder) }
    for library in try Self.libraries() {
      let bytes = try Data(contentsOf: library)
      for size in [4096, 8192, 65536, bytes.count / 2, bytes.count - 100] where size < bytes.count {
        let file = folder.appendingPathComponent("\(size)-\(library.lastPathComponent)")
        try bytes.prefix(size).write(to: file)
        for command in Self.commands(file.path) {
          let output = try runSafely(command, statuses: [66], "\(library.lastPathComponent) cut to \(size)")
          #expect(output.stdout == "")
          #expect(output.stderr.hasPrefix("\(file.path): error: "), "\(output.stderr)")
          #expect(output.stderr.contains("past the end of the file"), "\(output.stderr)")
        }
      }
    }
  }

  /// 40 bytes flipped in the first 4 KiB, three seeds: each command exits, with a status the
  /// help documents; none dies by a signal or hangs.
  @Test func flippedBytesNeverBringItDown() throws {
    let folder = try Toolchain.temporaryDirectory("blocksig-flipped")
    defer { try? FileManager.default.removeItem(at: folder) }
    for library in try Self.libraries() {
      let original = try Data(contentsOf: library)
      for seed in [1, 2, 3] as [UInt64] {
        var random = SeededRandom(seed: seed)
        var bytes = original
        for _ in 0..<40 {
          let index = Int(random.next() % 4096)
          bytes[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
        }
        let file = folder.appendingPathComponent("\(seed)-\(library.lastPathComponent)")
        try bytes.write(to: file)
        for command in Self.commands(file.path) {
          try runSafely(command, statuses: [0, 65, 66, 70], "\(library.lastPathComponent), seed \(seed)")
        }
      }
    }
  }

  /// A library whose constructor, accessor or block crashes: each is reported as the crash it
  /// is, in the child, with exit 70; the parent prints one line and no backtrace.
  @Test func crashesInTheLibrarysCodeAreErrors() throws {
    let lib = try #require(Toolchain.runtimeLibraryDirectory).path
    let (directory, library) = try Toolchain.compileC(
      """
      #include <signal.h>
      #include <stdlib.h>
      static int crash_on_load;
      __attribute__((constructor)) static void load(void) {
        if (getenv("CRASH_ON_LOAD")) *(volatile int *)16 = 1;
        if (getenv("INTERRUPT_ON_LOAD")) {
          // As Ctrl-C would: a test runner may have SIGINT ignored or blocked.
          sigset_t set;
          sigemptyset(&set);
          sigaddset(&set, SIGINT);
          sigprocmask(SIG_UNBLOCK, &set, 0);
          signal(SIGINT, SIG_DFL);
          raise(SIGINT);
        }
      }
      const void *crashing_accessor(void) { return *(const void *volatile *)24; }
      const void *crashing_block(void) {
        return (const void *)^(int x) { return *(volatile int *)(long)x; };
      }

      """, fileName: "crash.c",
      arguments: ["-fblocks", "-shared", "-fPIC", "-L", lib, "-lBlocksRuntime", "-Wl,-rpath,\(lib)"],
      output: "libcrash.so")
    defer { try? FileManager.default.removeItem(at: directory) }

    let block = try runSafely(
      ["call", "--library", library.path, "--symbol", "crashing_block", "8"], statuses: [70], "block")
    #expect(block.stderr.hasPrefix("blocksig call: error: the block crashed with SIGSEGV at 0x"), "\(block.stderr)")
    #expect(block.stderr.hasSuffix(" (address 0x8)\n"), "\(block.stderr)")
    #expect(block.stderr.split(separator: "\n").count == 1)

    let accessor = try runSafely(
      ["inspect", "--library", library.path, "--symbol", "crashing_accessor"], statuses: [70], "accessor")
    #expect(
      accessor.stderr.hasPrefix(
        "blocksig inspect: error: crashing_accessor(), called for its block, crashed with SIGSEGV"),
      "\(accessor.stderr)")

    for command in Self.commands(library.path) {
      let output = try blocksig(command, environment: ["CRASH_ON_LOAD": "1"], timeout: Self.timeout)
      #expect(output.status == 70 && !output.signaled, "\(command): \(output.stderr)")
      #expect(
        output.stderr.contains(
          "error: loading \(library.path) (the dynamic linker and the library's constructors) crashed with SIGSEGV"),
        "\(output.stderr)")
      #expect(output.stderr.contains("(address 0x10)"), "\(output.stderr)")
      // An interrupt is the user's stop, not a crash: 130, and no message.
      let stopped = try blocksig(command, environment: ["INTERRUPT_ON_LOAD": "1"], timeout: Self.timeout)
      #expect(stopped.status == 130 && !stopped.signaled, "\(command): \(stopped.status)")
      #expect(stopped.stderr == "")
    }
  }

  /// A healthy library prints what it always printed, from the child: the result on standard
  /// output, nothing on standard error.
  @Test func healthyLibraryOutputIsUnchanged() throws {
    let library = try InspectCLITests.library.get().path
    let output = try runSafely(
      ["call", "--library", library, "--symbol", "bf_int_long", "7", "9"], statuses: [0], "healthy")
    #expect(output.stderr == "")
    #expect(output.stdout.hasPrefix("return  "))
  }
}
