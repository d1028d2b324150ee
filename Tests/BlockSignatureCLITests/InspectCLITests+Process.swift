import BlockFixtures
import Foundation
import TestSupport
import Testing

/// `blocksig inspect --pid`: blocks read from another process's memory.
extension InspectCLITests {
  /// `--pid` and `--address`: each block of a running program, read from its memory, with
  /// what clang wrote for it (the signature and size from its IR, the local invoke and helper
  /// functions from the program's symbol table) and the runtime it maps. The program also maps
  /// its runtime's file and its own as data, below the images: the names must not move.
  @Test func blocksInAnotherProcess() throws {
    let lib = try #require(Toolchain.runtimeLibraryDirectory).path
    let holder = try BlockHolder(linking: ["-L", lib, "-lBlocksRuntime", "-Wl,-rpath,\(lib)"], mappingItsFiles: true)
    defer { holder.stop() }
    let (addresses, pid, program) = (holder.addresses, holder.pid, holder.program)
    let ir = ClangIR(
      try Toolchain.runClang(["-fblocks", "-O1", "-S", "-emit-llvm", "-o", "-", holder.source.path]).stdout)
    let globalLiteral = try #require(ir.literal(invoking: "global_block_block_invoke"))
    let global = try #require(ir.descriptors[globalLiteral.descriptor])
    let captured = try #require(ir.descriptors.values.first { $0.hasHelpers })

    let expected: [(kind: String, isa: String, descriptor: ClangIR.Descriptor, invoke: String)] = [
      ("global", "_NSConcreteGlobalBlock", global, "global_block_block_invoke"),
      ("heap", "_NSConcreteMallocBlock", captured, "__main_block_invoke"),
      ("stack", "_NSConcreteStackBlock", captured, "__main_block_invoke"),
    ]
    for (address, block) in zip(addresses, expected) {
      let run = try blocksig("inspect", "--pid", pid, "--address", address, "--json")
      #expect(run.status == 0, "\(run.stderr)")
      #expect(run.stderr == "")
      let document = try json(run)
      #expect(document["source"] as? String == "process")
      #expect(document["pid"] as? Int == Int(pid))
      #expect(document["library"] == nil)
      #expect(document["address"] as? String == address)
      #expect(document["kind"] as? String == block.kind)
      #expect(document["signature"] as? String == block.descriptor.signature)
      #expect(document["size"] as? Int == block.descriptor.size)
      #expect((document["isa"] as? [String: Any])?["symbol"] as? String == block.isa)
      let invoke = try #require(document["invoke"] as? [String: Any])
      #expect(invoke["symbol"] as? String == block.invoke)
      #expect(invoke["image"] as? String == program.path)
      let copy = (document["copyHelper"] as? [String: Any])?["symbol"] as? String
      #expect((copy?.hasPrefix("__copy_helper_block_") ?? false) == block.descriptor.hasHelpers, "\(copy ?? "none")")
      #expect(document["referenceCount"] as? Int == (block.kind == "heap" ? 1 : nil))
      // Where the code builds it: main, storing the invoke beside the descriptor.
      let sites = document["constructionSites"] as? [[String: Any]]
      if block.kind == "global" {
        #expect(sites == nil)
      } else {
        #expect(sites?.count == 1, "\(sites ?? [])")
        #expect(sites?.first?["function"] as? String == "main")
        #expect(sites?.first?["invoke"] as? String == block.invoke)
        #expect(sites?.first?["invokeAddress"] as? String == invoke["address"] as? String)
        #expect(sites?.first?["invokeMatch"] as? String == "slot")
      }
      let runtime = try #require(document["runtime"] as? [String: Any])
      #expect(
        runtime["path"] as? String == URL(fileURLWithPath: lib).appendingPathComponent("libBlocksRuntime.so").path)
      #expect(runtime["referenceCountConvention"] as? String == "unitsOfTwo")
    }
    // The text form names the process.
    let text = try blocksig("inspect", "--pid", pid, "--address", addresses[1])
    #expect(text.status == 0)
    #expect(text.stdout.hasPrefix("block            \(addresses[1]) (heap) in process \(pid)\n"), "\(text.stdout)")
    #expect(text.stdout.contains("reference count  1\n"))
    #expect(text.stdout.contains(" in main\n"), "\(text.stdout)")

    // --all finds the three in the program's memory (a stack frame may hold stale copies of the
    // stack block's words too: more stack entries, each read as that block).
    let all = try blocksig("inspect", "--pid", pid, "--all", "--json")
    #expect(all.status == 0, "\(all.stderr)")
    let listing = try json(all)
    let blocks = try #require(listing["blocks"] as? [[String: Any]])
    #expect(listing["blockCount"] as? Int == blocks.count)
    for (address, block) in zip(addresses, expected) {
      let entry = blocks.first { $0["address"] as? String == address }
      #expect(entry?["kind"] as? String == block.kind, "\(address)")
      #expect(entry?["signature"] as? String == block.descriptor.signature, "\(address)")
    }
    // The decoys read as blocks at their addresses, but cannot be blocks where they are.
    for (decoy, kind) in zip(addresses[3...], ["stack", "heap", "stack"]) {
      let run = try blocksig("inspect", "--pid", pid, "--address", decoy, "--json")
      #expect(run.status == 0, "\(run.stderr)")
      #expect(try json(run)["kind"] as? String == kind, "\(decoy)")
      #expect(!blocks.contains { $0["address"] as? String == decoy }, "\(decoy)")
    }
    let strays = blocks.filter { entry in
      !expected.contains {
        $0.kind == entry["kind"] as? String && $0.descriptor.signature == entry["signature"] as? String
      }
    }
    #expect(strays.isEmpty, "\(strays) in \(all.stdout)")
    let listed = try blocksig("inspect", "--pid", pid, "--all")
    #expect(listed.status == 0)
    #expect(
      listed.stdout.contains(
        "\(addresses[0])  global  \(global.signature ?? "")  long (^)(int, long)  global_block_block_invoke\n"))
    #expect(
      listed.stdout.hasSuffix("process \(pid): \(blocks.count) blocks (1 global, 1 heap, \(blocks.count - 2) stack)\n"))

    // Not a block: a word into the heap block (readable, but no block starts there).
    let inside = "0x" + String(try #require(UInt(addresses[1].dropFirst(2), radix: 16)) + 8, radix: 16)
    let notABlock = try blocksig("inspect", "--pid", pid, "--address", inside)
    #expect(notABlock.status == 65)
    #expect(notABlock.stdout == "")
    #expect(
      notABlock.stderr.hasPrefix("blocksig inspect: error: process \(pid): block at \(inside): "), "\(notABlock.stderr)"
    )
    // Unmapped.
    let unmapped = try blocksig("inspect", "--pid", pid, "--address", "16")
    #expect(unmapped.status == 65)
    #expect(
      unmapped.stderr
        == "blocksig inspect: error: process \(pid): block at 0x10: the 32-byte block header is not readable memory\n")
  }

  /// A program on Debian's runtime, which counts references from bit 0: its heap block has a
  /// count of 1 and bit 0 set, which is no `BLOCK_DEALLOCATING` there. Its names come from its
  /// images, though it maps their files as data too.
  @Test func heapBlockOfDebiansRuntime() throws {
    let holder = try BlockHolder(linking: ["-l:libBlocksRuntime.so.0"], mappingItsFiles: true)
    defer { holder.stop() }
    let run = try blocksig("inspect", "--pid", holder.pid, "--address", holder.addresses[1], "--json")
    #expect(run.status == 0, "\(run.stderr)")
    let document = try json(run)
    #expect(document["kind"] as? String == "heap")
    #expect(document["referenceCount"] as? Int == 1)
    let flags = try #require(document["flags"] as? [String: Any])
    let raw = try #require(UInt32((flags["raw"] as? String ?? "").dropFirst(2), radix: 16))
    #expect(raw & 0xffff == 1, "\(flags)")
    #expect(flags["names"] as? [String] == ["BLOCK_NEEDS_FREE", "BLOCK_HAS_COPY_DISPOSE", "BLOCK_HAS_SIGNATURE"])
    let isa = (document["isa"] as? [String: Any])?["symbol"] as? String
    #expect(isa?.hasPrefix("_NSConcrete") == true, "\(isa ?? "no symbol")")
    #expect((document["invoke"] as? [String: Any])?["symbol"] as? String == "__main_block_invoke")
    #expect((document["invoke"] as? [String: Any])?["image"] as? String == holder.program.path)
    let runtime = try #require(document["runtime"] as? [String: Any])
    #expect(runtime["referenceCountConvention"] as? String == "unitsOfOne")
    #expect((runtime["path"] as? String)?.contains("libBlocksRuntime.so.0") == true, "\(runtime)")
  }

  @Test func processErrorsAndUsage() throws {
    let gone = Process()
    gone.executableURL = URL(fileURLWithPath: "/bin/true")
    try gone.run()
    gone.waitUntilExit()
    let pid = String(gone.processIdentifier)
    let missing = try blocksig("inspect", "--pid", pid, "--address", "0x1000")
    #expect(missing.status == 66)
    #expect(missing.stderr == "blocksig inspect: error: block at 0x1000: cannot read process \(pid): No such process\n")
    let search = try blocksig("inspect", "--pid", pid, "--all")
    #expect(search.status == 66)
    #expect(search.stderr == "blocksig inspect: error: cannot read process \(pid): No such process\n")
    for arguments in [
      ["--pid", "1"], ["--address", "0x1000"], ["--pid", "0", "--address", "0x10"],
      ["--pid", "1", "--address", "0xZZ"], ["--pid", "1", "--address", "0x10", "--library", "x.so"],
      ["--library", "x.so"], ["--all"], ["--pid", "1", "--all", "--address", "0x10"],
    ] {
      let usage = try blocksig(["inspect"] + arguments)
      #expect(usage.status == 64, "\(arguments)")
      #expect(usage.stdout == "")
    }
  }

  /// Whether blocksig can be run as another user here (`setpriv` as root, with the build
  /// folder readable by `nobody`): the condition of ``processOfAnotherUserIsNotReadable()``.
  static let canRunAsNobody: Bool = {
    guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return false }
    let probe = try? Toolchain.run(
      URL(fileURLWithPath: "/usr/bin/setpriv").path,
      ["--reuid=65534", "--regid=65534", "--clear-groups", Toolchain.blocksig, "--version"])
    return probe?.status == 0
  }()

  /// A process of another user may not be read (`EPERM`): exit 66 with the system's reason.
  @Test(.enabled(if: canRunAsNobody, "needs root, setpriv and a build folder nobody can read"))
  func processOfAnotherUserIsNotReadable() throws {
    let pid = ProcessInfo.processInfo.processIdentifier
    let output = try Toolchain.run(
      URL(fileURLWithPath: "/usr/bin/setpriv").path,
      [
        "--reuid=65534", "--regid=65534", "--clear-groups", Toolchain.blocksig, "inspect", "--pid", String(pid),
        "--address", "0x1000",
      ])
    #expect(output.status == 66)
    #expect(output.stdout == "")
    #expect(
      output.stderr == "blocksig inspect: error: block at 0x1000: cannot read process \(pid): Operation not permitted\n"
    )
  }

  /// A 32-bit program's blocks have 4-byte pointers, which this build's mirror of the ABI would
  /// misread: its process is refused (exit 66) before anything is read. The program is a
  /// `_start` that waits in `pause()`, linked without a C library (none for i386 is needed).
  @Test func thirtyTwoBitProcessIsRefused() throws {
    let folder = try Toolchain.temporaryDirectory("blocksig-inspect-i386")
    defer { try? FileManager.default.removeItem(at: folder) }
    let source = folder.appendingPathComponent("wait.c")
    try """
    void _start(void) {
      for (;;) __asm__ volatile("int $0x80" : : "a"(29)); /* pause() */
    }

    """.write(to: source, atomically: true, encoding: .utf8)
    let program = folder.appendingPathComponent("wait32")
    _ = try Toolchain.runClang([
      "--target=i386-linux-gnu", "-nostdlib", "-static", "-fno-pic", "-fno-stack-protector", "-O1", source.path,
      "-o", program.path,
    ])
    let waiting = Process()
    waiting.executableURL = program
    try waiting.run()
    defer {
      // SIGKILL: the program may have inherited a mask that blocks SIGTERM.
      kill(waiting.processIdentifier, SIGKILL)
      waiting.waitUntilExit()
    }
    let pid = waiting.processIdentifier
    let output = try blocksig("inspect", "--pid", String(pid), "--address", "0x1000")
    #expect(output.status == 66)
    #expect(output.stdout == "")
    #expect(
      output.stderr
        == "blocksig inspect: error: block at 0x1000: process \(pid) is a 32-bit program; only 64-bit processes can be read\n"
    )
  }
}
