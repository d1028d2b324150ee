import Foundation
import TestSupport
import Testing

/// `Scripts/release.sh` tags only when the version, `blocksig --version` and CHANGELOG.md
/// agree. Each test runs it in a repository of its own holding the script and the project's
/// CHANGELOG.md, asking the built `blocksig`; no tag is ever made in this repository.
@Suite struct ReleaseScriptTests {
  /// A throwaway repository with the release script and CHANGELOG.md, committed.
  struct Repository {
    let root: URL
    let git: String

    init() throws {
      root = try Toolchain.temporaryDirectory("release")
      git = try #require(Toolchain.find("git")?.path, "git is not on PATH")
      let scripts = root.appendingPathComponent("Scripts")
      try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
      for file in ["Scripts/release.sh", "CHANGELOG.md"] {
        try FileManager.default.copyItem(
          at: Toolchain.packageRoot.appendingPathComponent(file), to: root.appendingPathComponent(file))
      }
      try run(git, ["init", "-q", "-b", "main"])
      try commit("the release script and the changes list")
    }

    @discardableResult
    func run(_ executable: String, _ arguments: [String]) throws -> Toolchain.Output {
      try Toolchain.run(
        executable, arguments, currentDirectory: root,
        environment: [
          "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid", "GIT_COMMITTER_NAME": "Test",
          "GIT_COMMITTER_EMAIL": "test@example.invalid", "GIT_CONFIG_GLOBAL": "/dev/null",
        ])
    }

    func commit(_ message: String) throws {
      try run(git, ["add", "-A"])
      let result = try run(git, ["commit", "-q", "-m", message])
      #expect(result.status == 0, "\(result.stderr)")
    }

    func release(_ version: String) throws -> Toolchain.Output {
      try run("/bin/bash", ["Scripts/release.sh", "--blocksig", Toolchain.blocksig, version])
    }

    var tags: [String] {
      get throws { try run(git, ["tag", "--list"]).stdout.split(separator: "\n").map(String.init) }
    }

    func append(_ text: String, to file: String) throws {
      let handle = try FileHandle(forWritingTo: root.appendingPathComponent(file))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data(text.utf8))
      try handle.close()
    }
  }

  /// The version the built `blocksig` prints.
  static func builtVersion() throws -> String {
    let result = try Toolchain.run(Toolchain.blocksig, ["--version"])
    #expect(result.status == 0)
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func tagsHeadWhenTheVersionTheToolAndTheChangesListAgree() throws {
    let repository = try Repository()
    let version = try Self.builtVersion()
    let result = try repository.release(version)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try repository.tags == [version])
    let tagged = try repository.run(repository.git, ["rev-list", "-n", "1", version]).stdout
    let head = try repository.run(repository.git, ["rev-parse", "HEAD"]).stdout
    #expect(tagged == head)
    #expect(result.stdout.contains("as \(version)"), "\(result.stdout)")

    let again = try repository.release(version)
    #expect(again.status == 1)
    #expect(again.stderr.contains("tag \(version) exists already"), "\(again.stderr)")
  }

  @Test func refusesAVersionTheChangesListDoesNotHave() throws {
    let repository = try Repository()
    let result = try repository.release("97.0.0")
    #expect(result.status == 1)
    #expect(result.stderr.contains("CHANGELOG.md has no entry for 97.0.0"), "\(result.stderr)")
    #expect(try repository.tags.isEmpty)
  }

  @Test func refusesAVersionTheToolDoesNotPrint() throws {
    let repository = try Repository()
    try repository.append("\n## 97.0.0\n\n- Nothing yet.\n", to: "CHANGELOG.md")
    try repository.commit("an entry for 97.0.0")
    let result = try repository.release("97.0.0")
    #expect(result.status == 1)
    #expect(
      result.stderr.contains("blocksig --version prints '\(try Self.builtVersion())', not 97.0.0"), "\(result.stderr)")
    #expect(try repository.tags.isEmpty)
  }

  @Test func refusesUncommittedChanges() throws {
    let repository = try Repository()
    try repository.append("\n", to: "CHANGELOG.md")
    let result = try repository.release(try Self.builtVersion())
    #expect(result.status == 1)
    #expect(result.stderr.contains("uncommitted changes"), "\(result.stderr)")
    #expect(try repository.tags.isEmpty)
  }

  @Test(arguments: ["v0.1.0", "0.1", "01.0.0", "0.1.0-beta", ""])
  func refusesWhatIsNotAVersion(_ text: String) throws {
    let repository = try Repository()
    let result = try repository.release(text)
    #expect(result.status == (text.isEmpty ? 2 : 1), "\(result.stderr)")
    #expect(try repository.tags.isEmpty)
  }

  @Test func theProjectsChangesListHasAnEntryForTheBuiltVersion() throws {
    let changes = try String(contentsOf: Toolchain.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
    let version = try Self.builtVersion()
    #expect(changes.split(separator: "\n").contains { $0 == "## \(version)" || $0.hasPrefix("## \(version) ") })
  }
}
