import Foundation
import TestSupport
import Testing

/// The README's command-line transcripts (`<pre>` blocks of `$ .build/debug/blocksig …` lines),
/// run with the built tool and compared with what the README shows: decode, check, call and
/// table and objc byte for byte; inspect with its live addresses masked; dump with its hexadecimal numbers masked
/// (where a build puts the descriptors differs from one configuration to another).
@Suite struct ReadmeTranscriptTests {
  struct Transcript: CustomTestStringConvertible {
    var command: String
    var output: String
    var testDescription: String { command }
  }

  static let transcripts: [Transcript] = {
    guard
      let readme = try? String(contentsOf: Toolchain.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    else { return [] }
    var result: [Transcript] = []
    for block in readme.components(separatedBy: "<pre>\n").dropFirst() {
      guard let body = block.components(separatedBy: "</pre>").first else { continue }
      for chunk in body.components(separatedBy: "$ ").dropFirst() {
        var lines = chunk.components(separatedBy: "\n")
        let command = lines.removeFirst()
        while lines.last == "" { lines.removeLast() }
        result.append(Transcript(command: command, output: lines.joined(separator: "\n") + "\n"))
      }
    }
    return result
  }()

  /// The arguments of `blocksig a 'b c' d | head -3`, and the number of lines `head` keeps.
  static func arguments(of command: String) -> (arguments: [String], head: Int?) {
    var pipeline = command.components(separatedBy: " | ")
    var head: Int? = nil
    if pipeline.count == 2, pipeline[1].hasPrefix("head -") { head = Int(pipeline[1].dropFirst(6)) }
    pipeline = [pipeline[0]]
    var arguments: [String] = []
    var current = ""
    var quoted = false
    for character in pipeline[0] {
      if character == "'" {
        quoted.toggle()
      } else if character == " " && !quoted {
        if !current.isEmpty { arguments.append(current) }
        current = ""
      } else {
        current.append(character)
      }
    }
    if !current.isEmpty { arguments.append(current) }
    return (arguments, head)
  }

  /// `0x…` numbers replaced by `0x…`, those of at least `minimumDigits` digits.
  static func masked(_ text: String, minimumDigits: Int) -> String {
    text.replacingOccurrences(
      of: "0x[0-9a-f]{\(minimumDigits),}", with: "0x…", options: .regularExpression)
  }

  @Test func readmeHasTranscripts() {
    let commands = Self.transcripts.map { Self.arguments(of: $0.command).arguments.dropFirst().first ?? "" }
    #expect(Set(commands) == ["inspect", "call", "decode", "dump", "check", "table", "objc"])
  }

  @Test(arguments: transcripts) func transcriptIsTrue(_ transcript: Transcript) throws {
    let (arguments, head) = Self.arguments(of: transcript.command)
    try #require(arguments.first == ".build/debug/blocksig")
    let built = Toolchain.productsDirectory.path + "/"
    // The fixtures library is no product of the package: the README's first command builds it
    // into .build/debug with Scripts/build-fixtures-library.sh, the tests into a folder of their own.
    let readmeFixtures = ".build/debug/libBlockFixtures.so"
    let fixtures = try InspectCLITests.library.get().path
    let output = try blocksig(
      arguments.dropFirst().map {
        $0.replacingOccurrences(of: readmeFixtures, with: fixtures).replacingOccurrences(
          of: ".build/debug/", with: built)
      })
    var stdout = output.stdout.replacingOccurrences(of: fixtures, with: readmeFixtures)
      .replacingOccurrences(of: built, with: ".build/debug/")
    if let head {
      stdout =
        stdout.split(separator: "\n", omittingEmptySubsequences: false).prefix(head).joined(separator: "\n") + "\n"
    }
    switch arguments.dropFirst().first {
    case "inspect":
      #expect(Self.masked(stdout, minimumDigits: 9) == Self.masked(transcript.output, minimumDigits: 9))
    case "dump":
      #expect(Self.masked(stdout, minimumDigits: 1) == Self.masked(transcript.output, minimumDigits: 1))
    default:
      #expect(stdout == transcript.output)
    }
  }
}
