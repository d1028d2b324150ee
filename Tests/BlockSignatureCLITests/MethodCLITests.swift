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
        <signature>:7: error: unterminated structure
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

  @Test func help() throws {
    let output = try blocksig("method", "--help")
    #expect(output.status == 0)
    #expect(
      output.stdout == """
        OVERVIEW: Print the Objective-C method form of a block or function signature.

        The block argument @?0 becomes self and _cmd (@0:8), and every offset and the
        frame length grow by one pointer, as clang writes a method with the same types.
        Class names, nested block signatures and qualifiers are kept.

        Examples:
          blocksig method 'i20@?0i8r*12'          # i28@0:8i16r*20
          blocksig method --from function 'i12i0r*4'
          blocksig method --json --target i386-linux 'v12@?0d4'

        Malformed input exits with 65 and an error naming the byte offset on standard
        error.

        USAGE: blocksig method [--json] [--target <target>] [--from <from>] <signature> [--color-diagnostics] [--no-color-diagnostics]

        ARGUMENTS:
          <signature>             The signature to convert.

        OPTIONS:
          --json                  Print one JSON document instead of the signature
                                  alone.
          --target <target>       The data model whose pointer size the hidden
                                  arguments take. (values: x86_64-linux, aarch64-linux,
                                  arm64-apple, i386-linux, x86_64-windows; default:
                                  x86_64-linux)
          --from <from>           The form of the input: block, method or function (by
                                  default, from its first arguments). (values: block,
                                  method, function)
          --color-diagnostics/--no-color-diagnostics
                                  Colour the diagnostics on standard error (default:
                                  when it is a terminal).
          --version               Show the version.
          -h, --help              Show help information.


        """)
  }
}
