import Foundation

/// Objective-C programs built by gcc against GNUstep Base, as Debian builds GNUstep itself:
/// the oracle for what GCC's runtime records (`Scripts/test.sh` installs `gobjc` and
/// `libgnustep-base-dev`).
package enum GNUstepPrograms {
  /// The Objective-C fixtures the tests compile (`Tests/ObjCFixtures`).
  package static let fixtures = Toolchain.packageRoot.appendingPathComponent("Tests/ObjCFixtures")

  /// The words of `gnustep-config ARGUMENT` (`--objc-flags`, `--base-libs`).
  package static func config(_ argument: String) throws -> [String] {
    let output = try Toolchain.run(Toolchain.tool("gnustep-config"), [argument])
    guard output.status == 0 else {
      throw Toolchain.ToolFailure(tool: "gnustep-config", arguments: [argument], output: output)
    }
    return output.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
  }

  /// Compiles the fixture `name` (`Tests/ObjCFixtures/NAME.m`) with gcc and GNUstep's flags,
  /// runs it and returns what it printed; the program is built in a temporary folder, removed
  /// afterwards.
  package static func output(ofFixture name: String) throws -> String {
    let folder = try Toolchain.temporaryDirectory("blocksig-gnustep")
    defer { try? FileManager.default.removeItem(at: folder) }
    let program = folder.appendingPathComponent(name).path
    let source = fixtures.appendingPathComponent("\(name).m").path
    let arguments =
      ["-std=gnu11", "-w"] + (try config("--objc-flags")) + ["-I", fixtures.path, "-o", program, source]
      + (try config("--base-libs"))
    let compiled = try Toolchain.run(Toolchain.tool("gcc"), arguments, currentDirectory: folder)
    guard compiled.status == 0 else { throw Toolchain.ToolFailure(tool: "gcc", arguments: arguments, output: compiled) }
    let run = try Toolchain.run(program, [], currentDirectory: folder)
    guard run.status == 0 else { throw Toolchain.ToolFailure(tool: program, arguments: [], output: run) }
    return run.stdout
  }

  /// The `-`/`+`, selector and type encoding of each line `PrintMethods.h` prints.
  package static func methods(_ output: String) -> [(sign: String, selector: String, types: String)] {
    output.split(separator: "\n").compactMap { line in
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      return fields.count == 3 ? (fields[0], fields[1], fields[2]) : nil
    }
  }
}
