import Foundation
import TestSupport
import Testing

/// `blocksig dump` writes each file's output as soon as it and every file before it are
/// scanned, in input order, and closes with a summary on stderr.
@Suite struct DumpStreamingCLITests {
  /// The first file's document arrives while later, larger files are still being scanned: the
  /// process is still running when it is read, and when it is then killed, most documents
  /// have not been written.
  @Test func firstDocumentArrivesBeforeTheScanEnds() throws {
    let (directory, object, _) = try DumpCLITests.object()
    defer { try? FileManager.default.removeItem(at: directory) }
    let large = try #require(Toolchain.runtimeLibraryDirectory).appendingPathComponent("libswiftCore.so").path
    let count = 60
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Toolchain.blocksig)
    process.arguments = ["dump", "--json", object.path] + Array(repeating: large, count: count)
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    var received = Data()
    while !received.contains(UInt8(ascii: "\n")) {
      let chunk = out.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      received.append(chunk)
    }
    let runningAtFirstDocument = process.isRunning
    kill(process.processIdentifier, SIGKILL)
    received.append(out.fileHandleForReading.readDataToEndOfFile())
    process.waitUntilExit()
    let lines = received.split(separator: UInt8(ascii: "\n"))
    #expect(runningAtFirstDocument)
    let first = try #require(lines.first)
    let document = try #require(try JSONSerialization.jsonObject(with: Data(first)) as? [String: Any])
    #expect(document["file"] as? String == object.path)
    #expect(lines.count < count / 2, "\(lines.count) of \(count + 1) documents were written before the kill")
  }

  /// Documents come in input order whatever order the files finish in, and the summary counts
  /// files, blocks and errors.
  @Test func documentsAreInInputOrderWithASummary() throws {
    let (directory, object, truth) = try DumpCLITests.object()
    defer { try? FileManager.default.removeItem(at: directory) }
    let large = try #require(Toolchain.runtimeLibraryDirectory).appendingPathComponent("libswiftCore.so").path
    let run = try blocksig(["dump", "--json", large, object.path, "/nonexistent.o", object.path])
    #expect(run.status == 1)
    let files = run.stdout.split(separator: "\n").map {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["file"] as? String
    }
    #expect(files == [large, object.path, object.path])
    let lines = run.stderr.split(separator: "\n")
    #expect(lines.first == "/nonexistent.o: error: no such file or directory")
    let largeBlocks = try #require(
      (try JSONSerialization.jsonObject(with: Data(run.stdout.split(separator: "\n")[0].utf8)) as? [String: Any])?[
        "blocks"] as? [Any]
    ).count
    #expect(lines.last.map(String.init) == "blocksig dump: 4 files, \(largeBlocks + 2 * truth.count) blocks, 1 error")
  }
}
