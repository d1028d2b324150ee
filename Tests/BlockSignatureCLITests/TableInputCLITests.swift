import Foundation
import TestSupport
import Testing

/// `blocksig table` on a header it cannot read: exit 66 (unreadable input) before clang runs.
@Suite struct TableInputCLITests {
  @Test func directoryIsUnreadableInput() throws {
    let directory = try Toolchain.temporaryDirectory("blocksig-table-input")
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try blocksig("table", directory.path, "--struct", "callbacks")
    #expect(output.status == 66)
    #expect(output.stdout == "")
    #expect(output.stderr == "blocksig table: error: \(directory.path): is a directory, not a header\n")
  }
}
