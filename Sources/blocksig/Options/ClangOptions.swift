// The options of the commands that read a header with clang (`table`, `objc protocol`),
// declared once, and the header check they share.

import ArgumentParser
import BlockSignatureHeaders
import Foundation

/// `-I`, `-D`, `--clang-argument`, `--clang` and `--time-limit`.
struct ClangOptions: ParsableArguments {
  @Option(name: .customShort("I"), help: ArgumentHelp("A folder clang searches for headers.", valueName: "dir"))
  var includeDirectories: [String] = []

  @Option(name: .customShort("D"), help: ArgumentHelp("A macro clang defines.", valueName: "name[=value]"))
  var macros: [String] = []

  @Option(
    name: .customLong("clang-argument"), parsing: .unconditionalSingleValue,
    help: ArgumentHelp("Another argument for clang (-std=gnu11, --sysroot=…).", valueName: "arg"))
  var clangArguments: [String] = []

  @Option(help: "The clang to run: a path, or a name looked up in PATH.")
  var clang = "clang"

  @Option(help: ArgumentHelp("How long clang or the probe may run, then it is killed.", valueName: "seconds"))
  var timeLimit = 120

  func validate() throws {
    guard timeLimit > 0 else { throw ValidationError("--time-limit must be at least 1 second.") }
  }

  /// A reader with these options, `leading` clang arguments first.
  func reader(leading: [String] = []) -> HeaderReader {
    HeaderReader(
      clang: clang,
      arguments: leading + includeDirectories.map { "-I" + $0 } + macros.map { "-D" + $0 } + clangArguments,
      timeLimit: timeLimit)
  }

  /// GNUstep's clang flags (`--gnustep`), with the `<objc/blocks_runtime.h>` stand-in folder
  /// when `blocks` is true; exit 66 when gnustep-config cannot be run.
  static func gnustepArguments(blocks: Bool = false) throws -> [String] {
    guard var flags = HeaderReader.gnustepArguments() else {
      throw Diagnostics.fail(
        ExitStatus.noInput, "gnustep-config: not found on PATH, or it failed (give the flags with --clang-argument)")
    }
    if blocks {
      guard let standIn = HeaderReader.blocksRuntimeStandIn() else {
        throw Diagnostics.fail(ExitStatus.noInput, "cannot write the <objc/blocks_runtime.h> stand-in")
      }
      flags += ["-I", standIn]
    }
    return flags
  }

  /// Refuses a directory given as the header: unreadable input (66), as a missing header is,
  /// not a header clang fails on.
  static func requireFile(_ header: String) throws {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: header, isDirectory: &isDirectory), isDirectory.boolValue {
      throw Diagnostics.fail(ExitStatus.noInput, "\(header): is a directory, not a header")
    }
  }
}
