import CBlockSignatureShims
import Foundation
import Synchronization

/// Finds the tools of the Swift toolchain that runs the tests (clang, swift), and runs them.
package enum Toolchain {
  /// The toolchain's `bin` folder: beside the `lib/swift/linux` folder that holds the Swift
  /// runtime this process loaded; nil if it cannot be found.
  package static let binDirectory: URL? = {
    var info = CBS_SymbolInfo()
    guard let swiftRetain = dlsym(dlopen(nil, RTLD_LAZY), "swift_retain"), cbs_dladdr(swiftRetain, &info) != 0,
      let imagePath = info.imagePath
    else { return nil }
    let path = String(cString: imagePath)
    // …/usr/lib/swift/linux/libswiftCore.so → …/usr/bin
    let bin = URL(fileURLWithPath: path).resolvingSymlinksInPath()
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("bin")
    return FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("clang").path) ? bin : nil
  }()

  /// The path of a toolchain tool, else the one on PATH.
  package static func tool(_ name: String) -> String {
    if let env = ProcessInfo.processInfo.environment["BLOCKSIG_" + name.uppercased()] { return env }
    if let bin = binDirectory {
      let candidate = bin.appendingPathComponent(name).path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":") {
      let candidate = "\(folder)/\(name)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return name
  }

  /// The folder of the built products (`blocksig`, the test bundle): the one this test
  /// process runs from.
  package static let productsDirectory: URL =
    Bundle.main.executableURL?.resolvingSymlinksInPath()
    .deletingLastPathComponent() ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

  /// The built `blocksig` executable.
  package static var blocksig: String { productsDirectory.appendingPathComponent("blocksig").path }

  /// The toolchain's `lib/swift/linux` folder (its libBlocksRuntime.so, libdispatch.so …).
  package static var runtimeLibraryDirectory: URL? {
    binDirectory?.deletingLastPathComponent().appendingPathComponent("lib/swift/linux")
  }

  /// The toolchain's clang.
  package static var clang: String { tool("clang") }

  /// The package's root folder, found from this source file's location.
  package static let packageRoot: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The result of a finished process.
  package struct Output: Sendable {
    /// The exit status, or the signal's number when a signal ended the process.
    package var status: Int32
    package var stdout: String
    package var stderr: String
    /// Whether a signal ended the process (`status` is then its number).
    package var signaled = false
    /// Whether the run outlived its timeout and was killed.
    package var timedOut = false
  }

  /// Runs a program and waits for it; `stdin` is written to its standard input. It runs in
  /// `currentDirectory` if given, else in this process's current directory, with this
  /// process's environment and `environment`'s entries added or replaced.
  /// With `timeout`, a process still running after that many seconds is killed and its
  /// output says so.
  package static func run(
    _ executable: String, _ arguments: [String], stdin: String? = nil, currentDirectory: URL? = nil,
    environment: [String: String] = [:], timeout: Double? = nil
  ) throws -> Output {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try process.run()
    let watchdog = Watchdog()
    if let timeout {
      let pid = process.processIdentifier
      DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
        guard !watchdog.finished.withLock({ $0 }) else { return }
        watchdog.fired.withLock { $0 = true }
        kill(pid, SIGKILL)
      }
    }
    defer { watchdog.finished.withLock { $0 = true } }
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    // Read both pipes to the end before waiting, so a large output cannot block the child.
    let group = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return Output(
      status: process.terminationStatus,
      stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errData, as: UTF8.self),
      signaled: process.terminationReason == .uncaughtSignal,
      timedOut: watchdog.fired.withLock { $0 })
  }

  /// Whether a run finished, and whether its timeout fired first.
  private final class Watchdog: Sendable {
    let finished = Mutex(false)
    let fired = Mutex(false)
  }

  /// Runs clang with the given arguments; throws with its stderr when it fails.
  package static func runClang(_ arguments: [String]) throws -> Output {
    let output = try run(clang, arguments)
    guard output.status == 0 else { throw ToolFailure(tool: "clang", arguments: arguments, output: output) }
    return output
  }

  /// A failed tool run.
  package struct ToolFailure: Error, CustomStringConvertible {
    package var tool: String
    package var arguments: [String]
    package var output: Output
    package var description: String {
      "\(tool) \(arguments.joined(separator: " ")) exited \(output.status): \(output.stderr)"
    }
  }

  /// Writes `source` as `fileName` in a fresh temporary folder and compiles it with clang and
  /// `arguments` into `output` there; returns the folder (the caller removes it) and the product.
  package static func compileC(
    _ source: String, fileName: String = "source.c", arguments: [String], output: String
  ) throws -> (directory: URL, product: URL) {
    let directory = try temporaryDirectory("blocksig-c")
    let file = directory.appendingPathComponent(fileName)
    let product = directory.appendingPathComponent(output)
    try source.write(to: file, atomically: true, encoding: .utf8)
    _ = try runClang(arguments + ["-o", product.path, file.path])
    return (directory, product)
  }

  /// A fresh temporary folder, inside ``runDirectory``: removed when the test process exits,
  /// whether or not the test removes it.
  package static func temporaryDirectory(_ prefix: String) throws -> URL {
    let url = runDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// The folder of this test process's temporary folders, `blocksig-tests-PID` in the
  /// system's temporary folder. It is removed when the process exits (`atexit`), so a run
  /// leaves nothing behind; one left by a process that died (a crash, an exit test's child) is
  /// removed by the next process that makes one.
  package static let runDirectory: URL = {
    let base = FileManager.default.temporaryDirectory
    let prefix = "blocksig-tests-"
    let pid = getpid()
    for name in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] where name.hasPrefix(prefix) {
      guard let other = Int32(name.dropFirst(prefix.count)), other != pid else { continue }
      // No such process: its folder is stale. (EPERM means it lives, under another user.)
      if kill(other, 0) != 0 && errno == ESRCH {
        try? FileManager.default.removeItem(at: base.appendingPathComponent(name))
      }
    }
    let url = base.appendingPathComponent("\(prefix)\(pid)", isDirectory: true)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: Toolchain.runDirectory) }
    return url
  }()
}

/// The built `blocksig` (``Toolchain/blocksig``) is missing.
package struct BlocksigNotBuilt: Error, CustomStringConvertible {
  package var path: String
  package var description: String { "blocksig not found at \(path): build the package's products first" }
}

/// Runs the built `blocksig` with `arguments` and waits for it, as
/// ``Toolchain/run(_:_:stdin:currentDirectory:environment:timeout:)`` does.
package func blocksig(
  _ arguments: [String], stdin: String? = nil, currentDirectory: URL? = nil, environment: [String: String] = [:],
  timeout: Double? = nil
) throws -> Toolchain.Output {
  let path = Toolchain.blocksig
  guard FileManager.default.isExecutableFile(atPath: path) else { throw BlocksigNotBuilt(path: path) }
  return try Toolchain.run(
    path, arguments, stdin: stdin, currentDirectory: currentDirectory, environment: environment, timeout: timeout)
}

/// Runs the built `blocksig` with `arguments` and waits for it.
package func blocksig(_ arguments: String...) throws -> Toolchain.Output {
  try blocksig(arguments)
}
