import Foundation
import TestSupport
import Testing

/// The tests' temporary folders (``Toolchain/temporaryDirectory(_:)``) go away with the test
/// process, whether or not a test removes its own.
@Suite struct TemporaryFolderTests {
  @Test func foldersAreRemovedWhenTheProcessExits() async throws {
    let result = try await #require(processExitsWith: .success, observing: [\.standardOutputContent]) {
      let directory = try Toolchain.temporaryDirectory("blocksig-exit")
      try Data("kept".utf8).write(to: directory.appendingPathComponent("file"))
      FileHandle.standardOutput.write(Data(directory.path.utf8))
      exit(0)
    }
    let path = String(decoding: result.standardOutputContent, as: UTF8.self)
    #expect(path.hasPrefix(FileManager.default.temporaryDirectory.path + "/blocksig-tests-"), "\(path)")
    #expect(!FileManager.default.fileExists(atPath: path), "\(path) is left behind")
    // Its process's folder is gone too.
    let runDirectory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    #expect(!FileManager.default.fileExists(atPath: runDirectory), "\(runDirectory) is left behind")
  }
}
