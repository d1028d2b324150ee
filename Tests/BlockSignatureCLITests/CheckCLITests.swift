import Foundation
import TestSupport
import Testing

/// `blocksig check` end to end: whole stdout, stderr and exit status.
@Suite struct CheckCLITests {
  @Test func compatibleExitsZero() throws {
    let output = try blocksig("check", "v16@?0@\"NSString\"8", "v24@0:8@16")
    #expect(output.status == 0)
    #expect(output.stderr == "")
    #expect(output.stdout == "compatible at level equivalent (x86_64-linux)\n")
  }

  @Test func incompatibleExplainsAndExitsOne() throws {
    let output = try blocksig("check", "--level", "abi", "v20@?0i8q12", "v24@0:8i16i20")
    #expect(output.status == 1)
    #expect(output.stderr == "")
    #expect(
      output.stdout == """
        not compatible at level abi (x86_64-linux)
        error: argument 2: size 8 does not match size 4 (q vs i)
          candidate: v20@?0i8q12
                             ^
          expected:  v24@0:8i16i20
                               ^
          note: candidate argument 2 is argument 3 of the expected method
          fix-it: replace q with i

        """)
  }

  @Test func warningsKeepExitZero() throws {
    let output = try blocksig("check", "--level", "abi", "v12@?0I8", "v12@?0i8")
    #expect(output.status == 0)
    #expect(
      output.stdout == """
        compatible at level abi (x86_64-linux)
        warning: argument 1: unsigned integer does not match signed integer of size 4 (I vs i)
          candidate: v12@?0I8
                           ^
          expected:  v12@?0i8
                           ^

        """)
  }

  @Test func blocksKitIssue348IsNotReproduced() throws {
    let output = try blocksig("check", "--level", "blockskit", "--json", "v@?i", "v@:d")
    #expect(output.status == 1)
    #expect(
      output.stdout == """
        {
          "candidate" : "v@?i",
          "compatible" : false,
          "diagnostics" : [
            {
              "candidate" : "i",
              "expected" : "d",
              "fixIt" : "d",
              "id" : "firstCharacterMismatch",
              "message" : "argument 1: type code 'i' does not match 'd' (i vs d)",
              "notes" : [
                "candidate argument 1 is argument 2 of the expected method"
              ],
              "position" : "argument 1",
              "severity" : "error"
            }
          ],
          "expected" : "v@:d",
          "level" : "blockskit",
          "serializationVersion" : 1,
          "target" : "x86_64-linux"
        }

        """)
  }

  @Test func jsonHasTheDocumentedKeys() throws {
    let output = try blocksig("check", "--level", "aspects", "--json", "v@?@i", "v@:")
    #expect(output.status == 1)
    let document = try #require(
      JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    #expect(
      Set(document.keys) == [
        "serializationVersion", "compatible", "level", "target", "candidate", "expected", "diagnostics",
      ])
    #expect(document["compatible"] as? Bool == false)
    let diagnostics = try #require(document["diagnostics"] as? [[String: Any]])
    let first = try #require(diagnostics.first)
    #expect(
      Set(first.keys) == ["position", "candidate", "expected", "severity", "message", "id", "notes", "fixIt"])
    #expect(first["position"] as? String == "signature")
    #expect(first["message"] as? String == "signature: the block takes 3 arguments but the method passes 2")
    #expect(first["fixIt"] as? String == "v@?")
  }

  @Test func malformedExits65() throws {
    let output = try blocksig("check", "v16@?0i8", "v16@?0[4i8")
    #expect(output.status == 65)
    #expect(output.stdout == "")
    #expect(
      output.stderr == """
        <expected>:10: error: unexpected byte '8'
        v16@?0[4i8
                 ^

        """)
  }

  /// A malformed candidate is reported under `<candidate>` (and a malformed expected signature
  /// under `<expected>`, as above): the label says which argument is wrong.
  @Test func malformedCandidateIsLabelledCandidate() throws {
    let output = try blocksig("check", "v16@?0[4i8", "v16@?0i8")
    #expect(output.status == 65)
    #expect(output.stdout == "")
    #expect(
      output.stderr == """
        <candidate>:10: error: unexpected byte '8'
        v16@?0[4i8
                 ^

        """)
  }

  @Test func unknownLevelIsAUsageError() throws {
    let output = try blocksig("check", "--level", "loose", "v@?", "v@?")
    #expect(output.status == 64)
  }
}
