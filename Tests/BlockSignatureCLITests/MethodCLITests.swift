import Foundation
import TestSupport
import Testing

/// `blocksig method` and `blocksig block` end to end: whole stdout, stderr and exit status.
@Suite struct MethodCLITests {
  @Test(
    arguments: zip(
      [
        ["method", "i20@?0i8r*12"], ["method", "v16@?0@8"], ["method", "--from", "function", "i12i0r*4"],
        ["method", "--target", "i386-linux", "v12@?0d4"], ["block", "v24@0:8@16"],
        ["block", "i28@0:8i16r*20"],
        ["block", "--from", "function", "v12@?0i8"], ["method", "v24@?0@\"NSString\"8@?<v@?i>16"],
      ],
      [
        "i28@0:8i16r*20\n", "v24@0:8@16\n", "i28@0:8i16r*20\n", "v16@0:4d8\n", "v16@?0@8\n", "i20@?0i8r*12\n",
        "v20@?0@?8i16\n", "v32@0:8@\"NSString\"16@?<v@?i>24\n",
      ]))
  func converts(_ arguments: [String], _ stdout: String) throws {
    let output = try blocksig(arguments)
    #expect(output.status == 0)
    #expect(output.stdout == stdout)
    #expect(output.stderr == "")
  }

  /// An input that is neither a block nor a method signature is read as a C function, with
  /// a warning unless `--from function` says so.
  @Test(arguments: zip([["method", "i"], ["block", "@@@"]], ["i@:\n", "@@?@@\n"]))
  func functionFormIsReadWithAWarning(_ arguments: [String], _ stdout: String) throws {
    let output = try blocksig(arguments)
    #expect(output.status == 0)
    #expect(output.stdout == stdout)
    #expect(
      output.stderr
        == "blocksig \(arguments[0]): warning: '\(arguments[1])' is neither a block signature (@? first) nor a "
        + "method signature (@ then :); read as a C function (a return type, then the arguments); --from "
        + "function says so and silences this\n")
    let quiet = try blocksig([arguments[0], "--from", "function", arguments[1]])
    #expect(quiet.stdout == stdout)
    #expect(quiet.stderr == "")
  }

  @Test func json() throws {
    let output = try blocksig("method", "--json", "i20@?0i8r*12")
    #expect(output.status == 0)
    #expect(output.stderr == "")
    #expect(
      output.stdout == """
        {
          "form" : "method",
          "input" : "i20@?0i8r*12",
          "inputForm" : "block",
          "serializationVersion" : 1,
          "signature" : "i28@0:8i16r*20",
          "target" : "x86_64-linux"
        }

        """)
  }

  /// With `--from`, `inputForm` is the form given, not the one the input looks like: a
  /// function signature whose first argument is a block (`@?0`) stays a function.
  @Test func jsonInputFormFollowsFrom() throws {
    let output = try blocksig("block", "--json", "--from", "function", "v12@?0i8")
    #expect(output.status == 0)
    #expect(output.stderr == "")
    #expect(
      output.stdout == """
        {
          "form" : "block",
          "input" : "v12@?0i8",
          "inputForm" : "function",
          "serializationVersion" : 1,
          "signature" : "v20@?0@?8i16",
          "target" : "x86_64-linux"
        }

        """)
  }

  @Test func malformedExits65WithTheOffsetUnderlined() throws {
    let output = try blocksig("block", "v24@0:8{S=i")
    #expect(output.status == 65)
    #expect(output.stdout == "")
    #expect(
      output.stderr == """
        <signature>:8: error: unterminated structure
        v24@0:8{S=i
               ^~~~

        """)
  }

  @Test func wrongFormExits65() throws {
    let output = try blocksig("method", "--from", "block", "v24@0:8@16")
    #expect(output.status == 65)
    #expect(
      output.stderr
        == "<signature>: error: cannot convert v24@0:8@16 from block form: argument 0 is @, not a block (@?)\n"
    )
  }
}
