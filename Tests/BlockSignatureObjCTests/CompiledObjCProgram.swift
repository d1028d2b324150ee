import Foundation
import TestSupport
import Testing

/// An Objective-C fixture (`Tests/ObjCFixtures/NAME.m`) compiled by the toolchain's clang with
/// blocks against Debian's GNUstep as the README says, with or without the library
/// `Scripts/build-block-classes.sh` builds.
struct CompiledObjCProgram {
  let fixture: String
  let folder: URL
  let library: URL

  /// How a run ended.
  struct Run: CustomStringConvertible {
    var status: Int32
    var signal: Int32?
    var stdout: String
    var stderr: String
    var description: String { "status \(status), signal \(signal.map(String.init) ?? "none"): \(stdout)\(stderr)" }
  }

  init(fixture: String) throws {
    self.fixture = fixture
    folder = try Toolchain.temporaryDirectory("blocksig-block-classes")
    library = folder.appendingPathComponent("libBlockSignatureBlockClasses.so")
    let script = Toolchain.packageRoot.appendingPathComponent("Scripts/build-block-classes.sh").path
    let built = try Toolchain.run("/bin/bash", [script, library.path], environment: ["PATH": Self.path])
    guard built.status == 0 else {
      throw ToolRunFailure(command: [script, library.path], status: built.status, output: built.stderr)
    }
  }

  /// PATH with the toolchain's clang first.
  static var path: String {
    let inherited = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return (Toolchain.binDirectory.map { "\($0.path):" } ?? "") + inherited
  }

  /// Compiles the program (the toolchain's libBlocksRuntime linked before GNUstep Base, or
  /// after it), runs it and says how it ended.
  func run(linkingBlockClasses: Bool, blocksRuntimeFirst: Bool = true) throws -> Run {
    let runtime = try #require(Toolchain.runtimeLibraryDirectory).path
    let gccInclude = try Toolchain.run(Toolchain.tool("gcc"), ["-print-file-name=include"]).stdout
      .trimmingCharacters(in: .whitespacesAndNewlines)
    let objcFlags = try GNUstepPrograms.config("--objc-flags").filter { $0.hasPrefix("-I") || $0.hasPrefix("-D") }
    let blocksRuntime = ["-L", runtime, "-lBlocksRuntime", "-Wl,-rpath,\(runtime)"]
    let classes =
      linkingBlockClasses ? ["-L", folder.path, "-lBlockSignatureBlockClasses", "-Wl,-rpath,\(folder.path)"] : []
    let program = folder.appendingPathComponent(
      "\(fixture)-\(linkingBlockClasses)-\(blocksRuntimeFirst)"
    ).path
    let source = GNUstepPrograms.fixtures.appendingPathComponent("\(fixture).m").path
    let arguments =
      [
        "-fblocks", "-fobjc-runtime=gcc", "-fobjc-exceptions", "-fconstant-string-class=NSConstantString",
        "-I", Toolchain.packageRoot.appendingPathComponent("ObjCSupport/include").path, "-I", gccInclude,
      ] + objcFlags + [source, "-o", program] + (blocksRuntimeFirst ? blocksRuntime : []) + classes
      + (try GNUstepPrograms.config("--base-libs")) + (blocksRuntimeFirst ? [] : blocksRuntime)
    _ = try Toolchain.runClang(arguments)
    return try Self.launch(program)
  }

  /// Runs `program`, telling a death by signal from an exit status.
  static func launch(_ program: String) throws -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    let signaled = process.terminationReason == .uncaughtSignal
    return Run(
      status: signaled ? 0 : process.terminationStatus, signal: signaled ? process.terminationStatus : nil,
      stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
  }
}
