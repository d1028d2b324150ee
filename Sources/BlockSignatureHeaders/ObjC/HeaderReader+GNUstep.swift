import Foundation

extension HeaderReader {
  /// The clang arguments GNUstep's headers need, or `nil` when `gnustep-config` is not on
  /// `PATH` (or fails): the flags of `gnustep-config --objc-flags` but those that make clang
  /// write dependency files (`-MMD`, `-MP`), then `-fobjc-runtime=gcc`, then `-I` GCC's own
  /// include folder (`gcc -print-file-name=include`, which holds GCC's `objc/runtime.h`), when
  /// `gcc` is on `PATH`.
  ///
  ///     var reader = HeaderReader()
  ///     reader.arguments += HeaderReader.gnustepArguments() ?? []
  ///
  /// Debian's GNUstep Base is built with gcc for GCC's runtime (`libobjc4`); clang compiles its
  /// headers with these flags.
  public static func gnustepArguments() -> [String]? {
    guard let flags = output(of: "gnustep-config", ["--objc-flags"]) else { return nil }
    var arguments = flags.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
    arguments.removeAll { $0 == "-MMD" || $0 == "-MP" }
    arguments.append("-fobjc-runtime=gcc")
    if let include = output(of: "gcc", ["-print-file-name=include"])?.trimmingCharacters(in: .whitespacesAndNewlines),
      include.hasPrefix("/")
    {
      arguments += ["-I", include]
    }
    return arguments
  }

  /// A folder holding a stand-in for libobjc2's `<objc/blocks_runtime.h>` (one line including
  /// the blocks runtime's `<Block.h>`), which GNUstep's headers include under `-fblocks` and
  /// Debian does not ship: `-I` it to read GNUstep's block types. Written once per process, to
  /// a folder of its own under the temporary folder; nil when it cannot be written.
  ///
  ///     reader.arguments += (HeaderReader.gnustepArguments() ?? []) + ["-I", HeaderReader.blocksRuntimeStandIn()!]
  public static func blocksRuntimeStandIn() -> String? { standInFolder }

  private static let standInFolder: String? = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "blocksig-blocks-runtime-\(ProcessInfo.processInfo.processIdentifier)")
    let header = folder.appendingPathComponent("objc/blocks_runtime.h")
    do {
      try FileManager.default.createDirectory(
        at: header.deletingLastPathComponent(), withIntermediateDirectories: true)
      try
        "// Stand-in for libobjc2's header: the blocks runtime's own declares the same functions.\n#include <Block.h>\n"
        .write(to: header, atomically: true, encoding: .utf8)
    } catch {
      return nil
    }
    return folder.path
  }()

  /// What `name` (looked up in `PATH`) prints on its standard output with `arguments`, if it
  /// runs and exits with 0.
  static func output(of name: String, _ arguments: [String]) -> String? {
    guard let path = try? executable(name) else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    do {
      try process.run()
    } catch {
      return nil
    }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self)
  }
}
