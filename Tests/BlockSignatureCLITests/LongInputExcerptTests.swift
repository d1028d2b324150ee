import Foundation
import TestSupport
import Testing

/// A long input is quoted in a diagnostic as the 100 bytes around the place it is about, with
/// `…` where it is cut, on every command: `check`'s report and `call`'s refusals included.
@Suite struct LongInputExcerptTests {
  /// Types of 100 KB that differ: no line of the report, its messages and fix-its included,
  /// quotes more than the excerpt of either (each quoted type is cut to 100 bytes and its length).
  @Test func messagesAndFixItsQuoteLongTypesShortened() throws {
    let long = String(repeating: "x", count: 100_000)
    let other = String(repeating: "y", count: 100_000)
    for (candidate, expected) in [
      ("v24@?0{S\(long)=i}8i16", "v24@?0{S\(other)=i}8i16"), ("v24@?0{S\(long)=i}8", "v24@?0i8"),
    ] {
      let output = try blocksig("check", "--level", "abi", candidate, expected)
      let lines = (output.stdout + output.stderr).split(separator: "\n")
      #expect(lines.count > 2)
      for line in lines { #expect(line.utf8.count <= 400, "\(line.prefix(120))… (\(line.utf8.count) bytes)") }
      #expect(output.stdout.contains("(100005 bytes)"), "\(output.stdout.prefix(400))")
    }
  }

  @Test func checkShowsTheCandidateAroundItsUnderline() throws {
    let candidate = "v@?" + String(repeating: "i", count: 60_000)
    let output = try blocksig("check", candidate, "v@?")
    #expect(output.status == 1)
    let i97 = String(repeating: "i", count: 97)
    #expect(
      output.stdout == """
        not compatible at level equivalent (x86_64-linux)
        error: signature: argument count 60000 does not match 0 (arguments after the block, self and _cmd)
          candidate: v@?\(i97)…
                     ^\(String(repeating: "~", count: 99))
          expected:  v@?
                     ^~~
          fix-it: use the expected signature in block form: v@?

        """)
  }

  @Test func checkCutsAroundAMismatchFarIn() throws {
    let padding = String(repeating: "i", count: 1_000)
    let output = try blocksig("check", "--level", "abi", "v@?\(padding)q", "v@?\(padding)i")
    #expect(output.status == 1)
    // The last 100 bytes (the mismatch is the last byte), `…` before them, the caret under it.
    let shown = "…" + String(repeating: "i", count: 99)
    let caret = String(repeating: " ", count: 13 + 100) + "^"
    #expect(
      output.stdout == """
        not compatible at level abi (x86_64-linux)
        error: argument 1001: size 8 does not match size 4 (q vs i)
          candidate: \(shown)q
        \(caret)
          expected:  \(shown)i
        \(caret)
          fix-it: replace q with i

        """)
  }

  @Test func callShortensANumberThatDoesNotFit() throws {
    let library = try InspectCLITests.library.get().path
    let digits = String(repeating: "9", count: 100_000)
    let output = try blocksig(["call", "--library", library, "--symbol", "bf_heap_captures_int", digits])
    #expect(output.status == 65)
    #expect(output.stdout == "")
    let fifty = String(repeating: "9", count: 50)
    #expect(
      output.stderr
        == "blocksig call: error: argument 1: \(fifty)…\(fifty) (100000 bytes) does not fit int (more than 128 bits)\n")
  }

  @Test func callShortensAValueOfTheWrongKind() throws {
    let library = try InspectCLITests.library.get().path
    let text = "\"" + String(repeating: "x", count: 10_000) + "\""
    let output = try blocksig(["call", "--library", library, "--symbol", "bf_heap_captures_int", text])
    #expect(output.status == 65)
    #expect(output.stderr.utf8.count < 400, "\(output.stderr.prefix(400))")
    #expect(output.stderr.contains("(10002 bytes)"))
  }
}
