import Foundation
import TestSupport
import Testing

/// A running C program holding blocks for `blocksig inspect --pid` to read: compiled here,
/// started, and stopped by closing its standard input.
final class BlockHolder {
  /// A program holding a global, a heap and a stack block (which captures a `__block`
  /// variable), printing their addresses and waiting for its standard input to close. It
  /// also holds three decoys, block-shaped words no block can be, whose addresses it prints
  /// after the blocks': a stack and a heap "block" in its data (where its global offset table
  /// also holds each class's address, followed by other pointers), and a stack "block" on the
  /// heap whose invoke pointer is writable data (not `.rodata`, which some linkers put in
  /// the executable segment with the code). Given an argument, it first maps its blocks
  /// runtime's file and its own as data, below its images, as a scanner or debugger reads a
  /// library it has loaded: second mappings of those files, not to be taken for the images.
  static let source = """
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <fcntl.h>
    #include <stdint.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <sys/mman.h>
    #include <unistd.h>
    extern void *_Block_copy(const void *);
    extern void *_NSConcreteStackBlock[], *_NSConcreteMallocBlock[];
    typedef long (^Adder)(int, long);
    static Adder global_block = ^long(int a, long b) { return a + b; };
    static const unsigned long decoy_descriptor[2] = {0, 32};
    static void decoy_invoke(void) {}
    /* isa; flags and reserved; invoke; descriptor */
    void *decoy_stack[4] = {_NSConcreteStackBlock, 0, (void *)decoy_invoke, (void *)decoy_descriptor};
    void *decoy_heap[4] = {
        _NSConcreteMallocBlock, (void *)(uintptr_t)((1 << 24) | 2), (void *)decoy_invoke, (void *)decoy_descriptor};
    static int map_as_data(const char *path, uintptr_t hint) {
      int fd = open(path, O_RDONLY);
      return fd >= 0 && mmap((void *)hint, 1 << 16, PROT_READ, MAP_PRIVATE, fd, 0) != MAP_FAILED;
    }
    int main(int argc, char **argv) {
      Dl_info runtime;
      if (argc > 1 && !(dladdr((void *)_Block_copy, &runtime) && map_as_data(runtime.dli_fname, 0x10000000)
                        && map_as_data("/proc/self/exe", 0x20000000)))
        return 2;
      __block int counter = 3;
      double scale = 2.5;
      void (^stack)(double) = ^(double x) { counter += (int)(x * scale); };
      void (^heap)(double) = _Block_copy(stack);
      void **decoy_data_invoke = malloc(4 * sizeof(void *));
      decoy_data_invoke[0] = _NSConcreteStackBlock;
      decoy_data_invoke[1] = 0;
      decoy_data_invoke[2] = (void *)decoy_heap;
      decoy_data_invoke[3] = (void *)decoy_descriptor;
      printf("%p %p %p %p %p %p\\n", (void *)global_block, (void *)heap, (void *)stack, (void *)decoy_stack,
             (void *)decoy_heap, (void *)decoy_data_invoke);
      fflush(stdout);
      char c;
      while (read(0, &c, 1) > 0) {}
      heap(1.0);
      stack(1.0);
      return counter > 0 ? 0 : 1;
    }

    """

  let folder: URL
  /// The C source file and the program built from it.
  let source: URL
  let program: URL
  /// Its process ID, as `--pid` takes it.
  let pid: String
  /// What it printed: the global, heap and stack blocks, then the three decoys.
  let addresses: [String]
  private let process = Process()
  private let input = Pipe()

  /// Builds the program, linked with `linking` (which names its blocks runtime), and starts it;
  /// `mappingItsFiles` has it map its runtime's file and its own as data too.
  init(linking: [String], mappingItsFiles: Bool) throws {
    folder = try Toolchain.temporaryDirectory("blocksig-holder")
    source = folder.appendingPathComponent("holder.c")
    program = folder.appendingPathComponent("holder")
    try Self.source.write(to: source, atomically: true, encoding: .utf8)
    _ = try Toolchain.runClang(["-fblocks", "-O1", source.path, "-o", program.path] + linking)
    let output = Pipe()
    process.executableURL = program
    process.arguments = mappingItsFiles ? ["map"] : []
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    pid = String(process.processIdentifier)
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let chunk = output.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      line.append(chunk)
    }
    addresses = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
    guard addresses.count == 6 else {
      stop()
      throw HolderFailure(description: "holder printed \(addresses), exit \(process.terminationStatus)")
    }
  }

  /// Lets the program end and removes its folder.
  func stop() {
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
    try? FileManager.default.removeItem(at: folder)
  }

  struct HolderFailure: Error, CustomStringConvertible {
    var description: String
  }
}
