import Foundation
import TestSupport
import Testing

/// Runs the built `blocksig decode` and compares stdout, stderr and the exit status.
@Suite struct DecodeCLITests {
  static func decode(_ arguments: [String], stdin: String? = nil) throws -> Toolchain.Output {
    try blocksig(["decode"] + arguments, stdin: stdin)
  }

  /// Each line of `stdout` as a JSON object: JSON Lines, one compact document a line.
  static func jsonLines(_ stdout: String) throws -> [[String: Any]] {
    #expect(stdout.hasSuffix("\n"))
    return try stdout.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "not a document: \($0)")
    }
  }

  @Test func severalInputsPrintJSONLines() throws {
    let output = try Self.decode(["--json", "v@?", "i", "v24@0:8@16"])
    #expect(output.status == 0)
    #expect(output.stdout.split(separator: "\n").count == 3)
    #expect(try Self.jsonLines(output.stdout).map { $0["input"] as? String } == ["v@?", "i", "v24@0:8@16"])
    // One input: one pretty document.
    let one = try Self.decode(["--json", "v@?"])
    #expect(one.stdout.hasPrefix("{\n  \"arguments\" : ["))
  }

  /// A negative frame length is refused (65), underlined; a negative argument offset (GCC) is
  /// decoded, with a note.
  @Test func negativeFrameLengthIsRefused() throws {
    let output = try Self.decode(["i-1@?0"])
    #expect(output.status == 65)
    #expect(output.stdout == "")
    #expect(output.stderr == "<argument 1>:2: error: negative frame length -1\ni-1@?0\n ^~\n")
    let offset = try Self.decode(["v12@?0i-4"])
    #expect(offset.status == 0)
    #expect(offset.stdout.contains("  note: argument 1 is at -4; clang would write 8\n"))
  }

  @Test func humanOutput() throws {
    let output = try Self.decode(["i20@?0i8r*12"])
    #expect(output.status == 0)
    #expect(output.stderr == "")
    #expect(
      output.stdout == """
        i20@?0i8r*12
          kind: block
          target: x86_64-linux
          declaration: int (^)(int, const char *)
          swift: @convention(block) (Int32, UnsafePointer<CChar>?) -> Int32
          frame length: 20
                      encoding  C type        size  align  offset  passed in
          return      i         int              4      4          rax
          block       @?        void (^)()       8      8       0  rdi
          argument 1  i         int              4      4       8  rsi
          argument 2  r*        const char *     8      8      12  rdx

        """)
  }

  @Test func jsonOutputHasTheDocumentedShape() throws {
    let output = try Self.decode(["--json", "i@?ir*"])
    #expect(output.status == 0)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    #expect(object["serializationVersion"] as? Int == 1)
    #expect(object["input"] as? String == "i@?ir*")
    #expect(object["kind"] as? String == "block")
    #expect(object["frameLength"] as? Int == 20)
    #expect(object["declaration"] as? String == "int (^)(int, const char *)")
    #expect(object["notes"] as? [String] == [])
    let returned = try #require(object["return"] as? [String: Any])
    #expect(returned["encoding"] as? String == "i")
    #expect(returned["size"] as? Int == 4)
    #expect(returned["alignment"] as? Int == 4)
    let arguments = try #require(object["arguments"] as? [[String: Any]])
    #expect(arguments.map { $0["encoding"] as? String } == ["@?", "i", "r*"])
    #expect(arguments.map { $0["offset"] as? Int } == [0, 8, 12])
    #expect(arguments.map { $0["size"] as? Int } == [8, 4, 8])
    #expect(arguments.map { $0["alignment"] as? Int } == [8, 4, 8])
  }

  /// `offsetsWritten` says whether the input writes any offset or a frame length: offsets
  /// without a frame length count (`v@?0i8`), and so does a fully written signature.
  @Test(arguments: [("v@?0i8", true), ("i@?ir*", false), ("i20@?0i8r*12", true)])
  func offsetsWrittenCountsOffsetsWithoutAFrameLength(_ input: String, _ written: Bool) throws {
    let output = try Self.decode(["--json", input])
    #expect(output.status == 0)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    #expect(object["offsetsWritten"] as? Bool == written)
  }

  /// An argument's `slotSize` is its slot in the frame, not the type's size: a `char` is
  /// promoted to `int` (size 1, slot 4).
  @Test func slotSizeIsThePromotedSlot() throws {
    let output = try Self.decode(["--json", "v@?c"])
    #expect(output.status == 0)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    let arguments = try #require(object["arguments"] as? [[String: Any]])
    #expect(arguments.map { $0["encoding"] as? String } == ["@?", "c"])
    #expect(arguments.map { $0["size"] as? Int } == [8, 1])
    #expect(arguments.map { $0["slotSize"] as? Int } == [8, 4])
    #expect(object["frameLength"] as? Int == 12)
  }

  @Test func targetChangesTheLayout() throws {
    let output = try Self.decode(["--json", "--target", "i386-linux", "v@?q"])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    #expect(object["frameLength"] as? Int == 12)
    #expect(object["target"] as? String == "i386-linux")
  }

  /// `--target arm64-apple` lays out for Apple's arm64, where `long double` is `double` (8
  /// bytes, aligned to 8), not for aarch64 Linux (16 and 16).
  @Test func arm64AppleTargetHasAnEightByteLongDouble() throws {
    let output = try Self.decode(["--target", "arm64-apple", "D"])
    #expect(output.status == 0)
    #expect(output.stderr == "")
    #expect(
      output.stdout == """
        D
          kind: types
          target: arm64-apple
          declaration: long double
          swift: Double
                  encoding  C type       size  align  offset
          type 1  D         long double     8      8

        """)
    let json = try Self.decode(["--json", "--target", "arm64-apple", "D"])
    #expect(json.status == 0)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect(object["target"] as? String == "arm64-apple")
    let returned = try #require(object["return"] as? [String: Any])
    #expect(returned["size"] as? Int == 8)
    #expect(returned["alignment"] as? Int == 8)
  }

  @Test func offsetMismatchIsANote() throws {
    let output = try Self.decode(["--json", "i24@?0i8r*16"])
    #expect(output.status == 0)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    #expect(object["notes"] as? [String] == ["argument 2 is at 16; clang would write 12"])
  }

  @Test func malformedInputExits65WithUnderline() throws {
    let output = try Self.decode(["{S=i", "ix"])
    #expect(output.status == 65)
    #expect(output.stdout == "")
    #expect(
      output.stderr == """
        <argument 1>:1: error: unterminated structure
        {S=i
        ^~~~
        <argument 2>:2: error: unexpected byte 'x'
        ix
         ^

        """)
  }

  /// `--color-diagnostics` colours the location and the severity (swift-format's rule: by
  /// default only when standard error is a terminal, which a test's pipe is not).
  @Test func colorDiagnosticsOnlyWhenAskedOrOnATerminal() throws {
    let colored = try Self.decode(["--color-diagnostics", "ix"])
    #expect(colored.status == 65)
    #expect(
      colored.stderr == "\u{1B}[1m<argument 1>:2:\u{1B}[0m \u{1B}[1;31merror:\u{1B}[0m unexpected byte 'x'\nix\n ^\n")
    for arguments in [["ix"], ["--no-color-diagnostics", "ix"]] {
      let plain = try Self.decode(arguments)
      #expect(plain.stderr == "<argument 1>:2: error: unexpected byte 'x'\nix\n ^\n")
    }
  }

  /// A long malformed input is shown as a window of 100 bytes around the offset, with `…`
  /// where it was cut and the underline still under the right byte.
  @Test func longMalformedInputIsShownAroundTheOffset() throws {
    let middle = try Self.decode([String(repeating: "i", count: 500) + "x" + String(repeating: "i", count: 500)])
    #expect(middle.status == 65)
    #expect(
      middle.stderr == """
        <argument 1>:501: error: unexpected byte 'x'
        …\(String(repeating: "i", count: 50))x\(String(repeating: "i", count: 49))…
        \(String(repeating: " ", count: 51))^

        """)
    let unterminated = try Self.decode(["{S=" + String(repeating: "i", count: 1000)])
    #expect(unterminated.status == 65)
    #expect(
      unterminated.stderr == """
        <argument 1>:1: error: unterminated structure
        {S=\(String(repeating: "i", count: 97))…
        ^\(String(repeating: "~", count: 99))

        """)
  }

  /// A window cut inside a multibyte character is widened to the character's end: the
  /// shown line ends with whole `é`s and `…`, never a replacement character.
  @Test func longMalformedInputIsCutAtACharacterBoundary() throws {
    let output = try Self.decode(["ixy" + String(repeating: "é", count: 60)])
    #expect(output.status == 65)
    #expect(output.stdout == "")
    #expect(
      output.stderr == """
        <argument 1>:2: error: unexpected byte 'x'
        ixy\(String(repeating: "é", count: 49))…
         ^

        """)
    #expect(!output.stderr.contains("\u{FFFD}"))
  }

  /// A list of types with a frame length is a C function's form (as `method --from function`
  /// reads it): return, then arguments, a function pointer declaration and a `@convention(c)`
  /// Swift type; JSON keeps the library's `kind` and says `"form": "function"`. Without a
  /// frame length it stays a list of types.
  @Test func functionFormIsShownAsAFunction() throws {
    let text = try Self.decode(["i12i0r*4"])
    #expect(text.status == 0)
    #expect(
      text.stdout == """
        i12i0r*4
          kind: function
          target: x86_64-linux
          declaration: int (*)(int, const char *)
          swift: @convention(c) (Int32, UnsafePointer<CChar>?) -> Int32
          frame length: 12
                      encoding  C type        size  align  offset  passed in
          return      i         int              4      4          rax
          argument 1  i         int              4      4       0  rdi
          argument 2  r*        const char *     8      8       4  rsi

        """)
    let json = try Self.decode(["--json", "i12i0r*4", "ii"])
    let documents = try Self.jsonLines(json.stdout).map(Optional.some)
    #expect(documents.count == 2)
    #expect(documents.first??["form"] as? String == "function")
    #expect(documents.first??["kind"] as? String == "types")
    #expect(documents.first??["declaration"] as? String == "int (*)(int, const char *)")
    #expect(documents.last??["form"] as? String == "types")
    #expect(documents.last??["declaration"] as? String == "int, int")
  }

  /// A size that does not fit is reported where the type that overflowed is written, with its
  /// underline, like a malformed encoding, and exit 65.
  @Test func sizeOverflowIsUnderlined() throws {
    let output = try Self.decode(["{S=i[2305843009213693952q]}"])
    #expect(output.status == 65)
    #expect(
      output.stderr == """
        <argument 1>:5: error: size overflow in [2305843009213693952q]
        {S=i[2305843009213693952q]}
            ^~~~~~~~~~~~~~~~~~~~~~

        """)
  }

  /// Input that is not UTF-8 is reported byte for byte (`0xff`), from an argument or from
  /// standard input, not as the U+FFFD a `String` would make of it (`0xef`).
  @Test func invalidUTF8IsReportedAsTheByteGiven() throws {
    let argument = try Toolchain.run("/bin/sh", ["-c", #"exec "$0" decode "$(printf 'v\377')""#, Toolchain.blocksig])
    #expect(argument.status == 65)
    #expect(argument.stderr.hasPrefix("<argument 1>:2: error: unexpected byte 0xff\n"), "\(argument.stderr)")
    let input = try Toolchain.run("/bin/sh", ["-c", #"printf 'i\n\376v\r\n' | exec "$0" decode"#, Toolchain.blocksig])
    #expect(input.status == 65)
    #expect(input.stderr.hasPrefix("<stdin>:2:1: error: unexpected byte 0xfe\n"), "\(input.stderr)")
    #expect(input.stdout.hasPrefix("i\n"))
  }

  /// Standard input that cannot be read (a directory) is unreadable input, 66; empty input
  /// is a usage error of `decode`, 64, with decode's usage.
  @Test func standardInputThatIsADirectoryOrEmpty() throws {
    let directory = try Toolchain.run("/bin/sh", ["-c", #"exec "$0" decode < /"#, Toolchain.blocksig])
    #expect(directory.status == 66)
    #expect(directory.stderr == "<stdin>: error: cannot read standard input: Is a directory\n")
    let empty = try Self.decode([], stdin: "")
    #expect(empty.status == 64)
    #expect(
      empty.stderr.hasPrefix(
        "blocksig decode: error: no signature given and standard input is empty\nUsage: blocksig decode "))
  }

  @Test func readsStandardInputOneSignaturePerLine() throws {
    let output = try Self.decode(["--json"], stdin: "v@:@\n\nv24@?08\n@?<\n")
    #expect(output.status == 65)
    // `<stdin>:LINE:COLUMN`, the column counted from 1.
    #expect(output.stderr == "<stdin>:4:3: error: unterminated block signature\n@?<\n  ^\n")
    // JSON Lines: two documents, one per valid line.
    let documents = try Self.jsonLines(output.stdout)
    #expect(documents.map { $0["serializationVersion"] as? Int } == [1, 1])
    #expect(documents.map { $0["kind"] as? String } == ["method", "block"])
    #expect(
      output.stdout.contains("argument 1 has no encoding (a vector, member pointer or _BitInt); its slot is 16 bytes"))
  }

  /// `^_Float16(_Float16 h, __bf16 b, __float128 q)` as clang writes it for x86_64 Linux: the
  /// space with 16 bytes of frame is `__float128` in every column, the 2-byte ones `_Float16`
  /// with a note that says `__bf16` looks the same.
  @Test func spaceWithSixteenBytesIsFloat128() throws {
    let output = try Self.decode(["--", " 28@?0 8 10 12"])
    #expect(output.status == 0)
    #expect(output.stdout.contains("  declaration: _Float16 (^)(_Float16, _Float16, __float128)\n"))
    #expect(output.stdout.contains("  swift: @convention(block) (Float16, Float16, /* __float128 */) -> Float16\n"))
    // The encoding column quotes the space (a blank cell otherwise); JSON keeps it as it is.
    #expect(output.stdout.contains("  argument 1  ' '       _Float16       2      2       8  xmm0\n"))
    #expect(output.stdout.contains("  argument 3  ' '       __float128    16     16      12  xmm2\n"))
    #expect(
      output.stdout.contains(
        "note: argument 1: ' ' is _Float16 or __bf16 (2 bytes in the frame), which the encoding does not tell apart"))
    #expect(output.stdout.contains("note: argument 3 (' ') has no size in its encoding; its slot is 16 bytes"))
    #expect(!output.stdout.contains("( )"))
    let json = try Self.decode(["--json", "--", " 28@?0 8 10 12"])
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let arguments = try #require(object["arguments"] as? [[String: Any]])
    #expect(arguments.map { $0["declaration"] as? String } == ["void (^)()", "_Float16", "_Float16", "__float128"])
    #expect(arguments.map { $0["encoding"] as? String } == ["@?", " ", " ", " "])
    #expect(object["declaration"] as? String == "_Float16 (^)(_Float16, _Float16, __float128)")
    #expect(object["swiftType"] as? String == "@convention(block) (Float16, Float16, /* __float128 */) -> Float16")
  }

  /// Where a call puts each argument, as clang's `-O2` assembly reads them (ABIPlacementTests):
  /// a record returned in memory has its buffer's pointer in X8 on AArch64, the ninth argument
  /// goes on the stack; the JSON names the registers and the stack bytes. A list of types has
  /// no places.
  @Test func placesAreShownForTheTarget() throws {
    let text = try Self.decode(["--target", "aarch64-linux", "{?=qqq}@?qqqqqqqqs"])
    #expect(text.status == 0)
    #expect(
      text.stdout.contains(
        "  return      {?=qqq}   struct { long f0; long f1; long f2; }    24      8          memory, buffer in x8\n"))
    #expect(
      text.stdout.contains("  argument 7  q         long                                      8      8      56  x7\n"))
    #expect(
      text.stdout.contains(
        "  argument 9  s         short                                     2      2      72  stack+8\n"))
    let json = try Self.decode(["--json", "--", "q60@?0q8q16q24Ai32t36q52", "i{?=ii}"])
    let documents = try Self.jsonLines(json.stdout)
    #expect(documents.count == 2)
    let object = try #require(documents.first)
    #expect(object["returnsInMemory"] as? Bool == false)
    #expect(object["returnedIn"] as? String == "rax")
    #expect(object["stackArgumentBytes"] as? Int == 16)
    let arguments = try #require(object["arguments"] as? [[String: Any]])
    let places = arguments.compactMap { $0["passedIn"] as? [String: Any] }
    #expect(places.map { $0["text"] as? String } == ["rdi", "rsi", "rdx", "rcx", "r8", "r9, stack+0", "stack+8"])
    #expect(places[5]["registers"] as? [String] == ["r9"])
    #expect(places[5]["stackOffset"] as? Int == 0)
    #expect(places[5]["stackSize"] as? Int == 8)
    #expect(places.allSatisfy { $0["known"] as? Bool == true })
    let types = documents[1]
    #expect(types["returnsInMemory"] == nil)
    #expect((types["arguments"] as? [[String: Any]])?.allSatisfy { $0["passedIn"] == nil } == true)
  }

  @Test func unknownTargetIsAUsageError() throws {
    let output = try Self.decode(["--target", "pdp11", "i"])
    #expect(output.status == 64)
    #expect(output.stderr.contains("pdp11"))
  }
}

extension DecodeCLITests {
  /// The underline comes from the error's byte range: a whole number, a trailing run.
  @Test func underlinesTheBytesTheErrorCovers() throws {
    let number = try blocksig("decode", "[99999999999999999999999i]")
    #expect(number.status == 65)
    #expect(number.stderr.hasSuffix("[99999999999999999999999i]\n ^~~~~~~~~~~~~~~~~~~~~~~\n"), "\(number.stderr)")
    let byte = try blocksig("decode", "i@?i8xyz")
    #expect(byte.stderr.hasSuffix("i@?i8xyz\n     ^\n"), "\(byte.stderr)")
  }
}
