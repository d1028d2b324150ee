import Foundation
import TestSupport
import Testing

/// `blocksig table` and `blocksig objc protocol` on a header they cannot read: exit 66
/// (unreadable input) before clang runs.
@Suite struct TableInputCLITests {
  @Test func directoryIsUnreadableInput() throws {
    let directory = try Toolchain.temporaryDirectory("blocksig-table-input")
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try blocksig("table", directory.path, "--struct", "callbacks")
    #expect(output.status == 66)
    #expect(output.stdout == "")
    #expect(output.stderr == "blocksig table: error: \(directory.path): is a directory, not a header\n")
  }

  @Test func directoryIsUnreadableInputForAProtocol() throws {
    let directory = try Toolchain.temporaryDirectory("blocksig-table-input")
    defer { try? FileManager.default.removeItem(at: directory) }
    let output = try blocksig("objc", "protocol", directory.path, "--protocol", "Delegate")
    #expect(output.status == 66)
    #expect(output.stdout == "")
    #expect(output.stderr == "blocksig objc protocol: error: \(directory.path): is a directory, not a header\n")
  }
}
