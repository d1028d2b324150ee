import BlockFixtures
import BlockSignature
import Foundation
import TestSupport
import Testing

/// `blocksig call` end to end: the built executable calls the fixture blocks of the library
/// InspectCLITests compiles from Fixtures/ with the toolchain's clang. The global fixtures
/// return their type's zero (`return bf_zero_NAME;`); the heap ones compute from their
/// arguments (Fixtures/BlockFixtures.c), which is what the values below are checked against.
@Suite(.serialized) struct CallCLITests {
  func call(_ arguments: String...) throws -> Toolchain.Output {
    try call(arguments)
  }

  func call(_ arguments: [String]) throws -> Toolchain.Output {
    let library = try InspectCLITests.library.get().path
    return try Toolchain.run(Toolchain.blocksig, ["call", "--library", library] + arguments)
  }

  /// A completed call: exit 0, nothing on stderr, the stdout.
  func result(_ arguments: String...) throws -> String {
    let output = try call(arguments)
    #expect(output.status == 0, "\(arguments): \(output.stderr)")
    #expect(output.stderr == "")
    return output.stdout
  }

  /// A refused call: the exit status and stderr, nothing on stdout.
  func failure(_ arguments: String...) throws -> (status: Int32, stderr: String) {
    let output = try call(arguments)
    #expect(output.stdout == "")
    return (output.status, output.stderr)
  }

  @Test func scalarInTextAndJSON() throws {
    #expect(try result("--symbol", "bf_int_long", "--", "7", "-9") == "return  int  0\n")
    #expect(
      try result("--symbol", "bf_int_long", "--json", "--", "-7", "9223372036854775807") == """
        {
          "declaration" : "int (^)(int, long)",
          "return" : {
            "encoding" : "i",
            "value" : 0
          },
          "serializationVersion" : 1,
          "signature" : "i20@?0i8q12"
        }

        """)
  }

  /// `a * b` of the block variable: doubles parsed from their text and printed shortest.
  @Test func blockVariableComputes() throws {
    #expect(try result("--variable", "bf_global_block_variable", "3", "0.5") == "return  double  1.5\n")
    #expect(try result("--variable", "bf_global_block_variable", "0.1", "3") == "return  double  0.30000000000000004\n")
    #expect(try result("--variable", "bf_global_block_variable", "1e300", "1e300") == "return  double  \"inf\"\n")
    #expect(try result("--variable", "bf_global_block_variable", "\"-inf\"", "2") == "return  double  \"-inf\"\n")
    #expect(try result("--variable", "bf_global_block_variable", "\"nan\"", "2") == "return  double  \"nan\"\n")
    let json = try result("--symbol", "bf_global_block_variable_value", "--json", "2", "2.25")
    #expect(json.contains("\"declaration\" : \"double (^)(double, double)\""))
    #expect(json.contains("\"value\" : 4.5\n"))
  }

  /// The heap fixtures compute: `x + 42`, `inner(x) + 1` with `inner = x * 7`, a `__block`
  /// total, `x + seed` with seed 3, and a struct `{1.5 + dx, -2.5}`.
  @Test func heapBlocksCompute() throws {
    #expect(try result("--symbol", "bf_heap_captures_int", "100") == "return  int  142\n")
    #expect(try result("--symbol", "bf_heap_captures_int", "--", "-50") == "return  int  -8\n")
    #expect(try result("--symbol", "bf_heap_captures_block", "6") == "return  int  43\n")
    #expect(try result("--symbol", "bf_heap_captures_byref", "\"0x10\"") == "return  long  16\n")
    #expect(try result("--symbol", "bf_nested_inner", "4") == "return  int  7\n")
    #expect(try result("--symbol", "bf_heap_captures_struct", "0.25") == "return  struct BFPoint  [1.75, -2.5]\n")
    #expect(
      try result("--symbol", "bf_heap_captures_struct", "--json", "1") == """
        {
          "declaration" : "struct BFPoint (^)(double)",
          "return" : {
            "encoding" : "{BFPoint=dd}",
            "value" : [2.5, -2.5]
          },
          "serializationVersion" : 1,
          "signature" : "{BFPoint=dd}16@?0d8"
        }

        """)
  }

  /// Every kind of value in and out: structures (nested, with arrays, returned in memory),
  /// unions, long double, _Complex, 128-bit integers, strings. These blocks return zero.
  @Test(arguments: [
    (["bf_struct_named", "[1.5, 2]"], "return  struct BFPoint  [0.0, 0.0]"),
    (["bf_struct_nested", "[[1, 2], [3, 4]]"], "return  struct BFLine  [[0.0, 0.0], [0.0, 0.0]]"),
    (["bf_struct_with_arrays", "[[1, 2, 3, 4], [5, 6, 7]]"], "return  struct BFWithArrays  [[0, 0, 0, 0], [0, 0, 0]]"),
    (["bf_struct_anonymous", "[1, 0.5]"], "return  struct { int f0; float f1; }  [0, 0.0]"),
    (["bf_stret_big"], "return  struct BFBig  [0, 0, 0]"),
    (["bf_union_value", #"{"member": 1, "value": 2.5}"#], #"return  union BFUnion  {"member": 0, "value": 0}"#),
    (
      ["bf_struct_with_union", #"[1, {"member": 2, "value": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]}]"#],
      #"return  struct BFMixed  [0, {"member": 0, "value": 0}]"#
    ),
    (["bf_long_double_long_double", "1e4000"], "return  long double  0.0"),
    (["bf_complex_double", "[1.5, -2]"], "return  _Complex double  [0.0, 0.0]"),
    (["bf_complex_float", "[1, 2]"], "return  _Complex float  [0.0, 0.0]"),
    (["bf_complex_long_double", "[1e4000, \"inf\"]"], "return  _Complex long double  [0.0, 0.0]"),
    (["bf_int128_int128", "\"-0x80000000000000000000000000000000\""], "return  __int128  0"),
    (["bf_int128_int128", "-170141183460469231731687303715884105728"], "return  __int128  0"),
    (["bf_uint128_uint128", "340282366920938463463374607431768211455"], "return  unsigned __int128  0"),
    (["bf_int_const_char_pointer", "\"h\\u00e9llo\""], "return  int  0"),
    (["bf_struct_return_p", "\"text\"", "null"], "return  struct BFP  [0.0, 0, 0]"),
    (["bf_bool_bool", "true"], "return  _Bool  false"),
    (["bf_enum_fixed_wide", "\"-0x8000000000000000\""], "return  long  0"),
    (["bf_void_no_parameters"], "return  void"),
  ])
  func valuesOfEveryKind(_ arguments: [String], expected: String) throws {
    let output = try call(["--symbol", arguments[0], "--"] + arguments.dropFirst())
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout == expected + "\n")
  }

  @Test func returnedUnionAndVoidInJSON() throws {
    let union = try result("--symbol", "bf_union_value", "--json", #"{"member": 0, "value": 3}"#)
    #expect(union.contains(#""value" : {"member": 0, "value": 0}"#), "\(union)")
    let void = try result("--symbol", "bf_void_no_parameters", "--json")
    #expect(void.contains("\"encoding\" : \"v\",\n    \"value\" : null\n"), "\(void)")
  }

  @Test(arguments: [
    (["bf_int_long", "1"], "the block takes 2 arguments, got 1"),
    (["bf_stret_big", "1"], "the block takes 0 arguments, got 1"),
    (["bf_uchar_uchar", "300"], "argument 1: 300 does not fit unsigned char (0...255)"),
    (["bf_uchar_uchar", "-1"], "argument 1: -1 does not fit unsigned char (0...255)"),
    (
      ["bf_int128_int128", "\"0x80000000000000000000000000000000\""],
      "argument 1: 170141183460469231731687303715884105728 does not fit __int128"
    ),
    (
      ["bf_uint128_uint128", "340282366920938463463374607431768211456"],
      "argument 1: 340282366920938463463374607431768211456 does not fit unsigned __int128 (more than 128 bits)"
    ),
    (["bf_float_float", "1e39"], "argument 1: 1e39 does not fit float"),
    (["bf_long_double_long_double", "1e5000"], "argument 1: 1e5000 does not fit long double"),
    (["bf_int_int", "1.5"], "argument 1: expected an integer for int, got 1.5"),
    (["bf_int_int", "\"12z\""], "argument 1: expected an integer for int, got \"12z\""),
    (["bf_bool_bool", "2"], "argument 1: expected true or false for _Bool, got 2"),
    (["bf_double_double", "\"1.5\""], "argument 1: expected a number (or \"inf\", \"-inf\", \"nan\") for double"),
    (["bf_struct_named", "[1]"], "argument 1: expected 2 members for struct BFPoint, got 1"),
    (["bf_struct_named", "1"], "argument 1: expected an array of its 2 members for struct BFPoint, got a number"),
    (["bf_struct_nested", "[[1, 2], [3, \"x\"]]"], "argument 1 → member 1 → member 1: expected a number"),
    (["bf_struct_with_arrays", "[[1, 2], [5, 6, 7]]"], "argument 1 → member 0: expected 4 elements for int[4], got 2"),
    (["bf_union_value", "[1]"], "argument 1: expected {\"member\": K, \"value\": V} for union BFUnion, got [1]"),
    (
      ["bf_union_value", #"{"member": 3, "value": 1}"#], "argument 1: union BFUnion has 3 members; there is no member 3"
    ),
    (["bf_complex_double", "[1]"], "argument 1: expected [real, imaginary] for _Complex double, got an array"),
    (["bf_void_pointer", "\"-0x1\""], "argument 1: \"-0x1\" is not an address"),
    (
      ["bf_int_const_char_pointer", "[\"a\"]"],
      "argument 1: expected a string, an address or null for const char *, got an array"
    ),
    (["bf_int_int", "[1,"], "argument 1: malformed JSON at byte 3: expected a value, found the end of the text"),
    (["bf_int_long", "1", "{\"a\" 1}"], "argument 2: malformed JSON at byte 5: expected ':' after a key"),
    (["bf_int_int", "01"], "argument 1: malformed JSON at byte 1: a number cannot start with 0"),
    (["bf_int_int", "0x10"], "argument 1: malformed JSON at byte 1: unexpected text after the value"),
  ])
  func badArgumentsExit65(_ arguments: [String], message: String) throws {
    let output = try call(["--symbol", arguments[0], "--"] + arguments.dropFirst())
    #expect(output.status == 65)
    #expect(output.stdout == "")
    #expect(output.stderr.hasPrefix("blocksig call: error: " + message), "\(output.stderr)")
  }

  /// A declared signature that fits is followed (here the method form of the block's own);
  /// one that does not is refused with the checker's diagnostics, printed as `check` prints them.
  @Test func declaredSignature() throws {
    #expect(try result("--symbol", "bf_int_long", "--signature", "i28@0:8i16q20", "1", "2") == "return  int  0\n")
    #expect(try result("--symbol", "bf_int_long", "--signature", "i16i0q4", "1", "2") == "return  int  0\n")
    #expect(
      try result("--symbol", "bf_heap_captures_int", "--signature", "i12@?0i8", "--level", "identical", "1")
        == "return  int  43\n")
    let refused = try failure("--symbol", "bf_int_long", "--signature", "v20@?0q8i16", "1", "2")
    #expect(refused.status == 65)
    #expect(
      refused.stderr.hasPrefix(
        "blocksig call: error: the block's signature i20@?0i8q12 does not fit the declared v20@?0q8i16 at level abi: argument 1: size 4 does not match size 8 (i vs q)\n"
      ), "\(refused.stderr)")
    #expect(
      refused.stderr.contains(
        """
        error: argument 1: size 4 does not match size 8 (i vs q)
          candidate: i20@?0i8q12
                           ^
          expected:  v20@?0q8i16
                           ^
          fix-it: replace i with q

        """), "\(refused.stderr)")
    // Level aspects ignores the return type: a terabyte structure is refused, not allocated.
    let huge = try failure(
      "--symbol", "bf_void_no_parameters", "--level", "aspects", "--signature", "{S=[1048576[1048576c]]}8@?0")
    #expect(huge.status == 65)
    #expect(
      huge.stderr
        == "blocksig call: error: return value: a value of 1099511627776 bytes is larger than a call passes (at most 16777216)\n"
    )
    let malformed = try failure("--symbol", "bf_int_long", "--signature", "i20@?0{", "1", "2")
    #expect(malformed.status == 65)
    #expect(malformed.stderr.hasPrefix("blocksig call: error: the declared signature: "), "\(malformed.stderr)")
  }

  /// A `char *` declared over a `long` (the same ABI class): the `__block` total returns the
  /// address of the string passed, read back as a string; an address that cannot be read
  /// comes back as a number with a warning, not a crash.
  @Test func returnedCStrings() throws {
    #expect(
      try result("--symbol", "bf_heap_captures_byref", "--signature", "*16@?0*8", #""h\u00e9llo \"x\"""#)
        == #"return  char *  "héllo \"x\"""# + "\n")
    #expect(
      try result("--symbol", "bf_heap_captures_byref", "--signature", "*16@?0*8", "null") == "return  char *  null\n")
    let wild = try call("--symbol", "bf_heap_captures_byref", "--signature", "*16@?0q8", "5")
    #expect(wild.status == 0)
    #expect(wild.stdout == "return  char *  5\n")
    #expect(wild.stderr == "blocksig call: warning: the returned char * 0x5 cannot be read: shown as an address\n")
    // A JSON number for a char * parameter is the pointer itself (documented), not text.
    let address = try call("--symbol", "bf_heap_captures_byref", "--signature", "*16@?0*8", "5")
    #expect(address.status == 0)
    #expect(address.stdout == "return  char *  5\n")
    #expect(address.stderr == "blocksig call: warning: the returned char * 0x5 cannot be read: shown as an address\n")
  }

  /// A block without a signature needs one declared; with it, it is called.
  @Test func blockWithoutASignature() throws {
    let refused = try failure("--symbol", "bf_block_without_signature")
    #expect(refused.status == 65)
    #expect(
      refused.stderr
        == "blocksig call: error: the block has no signature (BLOCK_HAS_SIGNATURE is clear); declare one\n")
    #expect(try result("--symbol", "bf_block_without_signature", "--signature", "v8@?0") == "return  void\n")
  }

  /// The flag set and the pointer NULL: the message says so, not that the flag is clear.
  @Test func blockWithANullSignaturePointer() throws {
    let refused = try failure("--symbol", "bf_block_with_null_signature")
    #expect(refused.status == 65)
    #expect(
      refused.stderr
        == "blocksig call: error: the block has no signature (BLOCK_HAS_SIGNATURE is set, but the signature "
        + "pointer is NULL); declare one\n")
  }

  @Test func loadingErrors() throws {
    let missing = try Toolchain.run(
      Toolchain.blocksig, ["call", "--library", "no-such-library.so", "--symbol", "x", "1"])
    #expect(missing.status == 66)
    #expect(
      missing.stderr
        == "blocksig call: error: no-such-library.so: no such library (searched LD_LIBRARY_PATH, "
        + "/etc/ld.so.cache and the default folders; write ./no-such-library.so for a file in the current folder)\n")
    let symbol = try failure("--symbol", "no_such_symbol")
    #expect(symbol.status == 66)
    #expect(
      symbol.stderr.hasPrefix("blocksig call: error: ") && symbol.stderr.contains("no symbol named 'no_such_symbol'"))
    let notABlock = try failure("--variable", "bf_not_a_block_variable")
    #expect(notABlock.status == 65)
    #expect(notABlock.stderr.contains("'bf_not_a_block_variable' is not a block"), "\(notABlock.stderr)")
  }

  @Test(arguments: [
    ["--symbol", "a", "--variable", "b"], [], ["--symbol", "bf_int_long", "1", "-2"],
    ["--symbol", "bf_int_long", "--level", "loose"],
  ])
  func usageErrorsExit64(_ arguments: [String]) throws {
    let output = try call(arguments)
    #expect(output.status == 64)
    #expect(output.stdout == "")
  }

  @Test func helpDocumentsValuesAndExitCodes() throws {
    let help = try Toolchain.run(Toolchain.blocksig, ["call", "--help"])
    #expect(help.status == 0)
    for text in ["{\"member\": K, \"value\": V}", "[real, imaginary]", "\"inf\"", "Exit codes:", "66 the library"] {
      #expect(help.stdout.contains(text), "\(text)")
    }
  }

  /// A library handing out "blocks" that are not: memory read as a block header whose class is
  /// a real block class but whose code pointers lead into data or nowhere, zeroed memory, a
  /// plain structure, an unmapped address. Compiled by clang when first used.
  static let hostileLibrary: Result<URL, any Error> = Result {
    let source = """
      extern void *_NSConcreteGlobalBlock[32];
      extern void *_NSConcreteStackBlock[32];
      struct descriptor { unsigned long reserved, size; const char *signature; };
      struct descriptor_helpers { unsigned long reserved, size; void *copy, *dispose; const char *signature; };
      struct literal { void *isa; int flags; int reserved; void *invoke; void *descriptor; };
      static long data_words[8];
      static struct descriptor plain = {0, sizeof(struct literal), "v8@?0"};
      static struct descriptor_helpers helpers = {0, sizeof(struct literal), data_words, data_words, "v8@?0"};
      /* BLOCK_IS_GLOBAL | BLOCK_HAS_SIGNATURE, invoke in data */
      static struct literal invoke_in_data = {_NSConcreteGlobalBlock, (1 << 28) | (1 << 30), 0, data_words, &plain};
      static struct literal invoke_null = {_NSConcreteGlobalBlock, (1 << 28) | (1 << 30), 0, 0, &plain};
      static void nothing(void *block) { (void)block; }
      /* A stack block (BLOCK_HAS_COPY_DISPOSE | BLOCK_HAS_SIGNATURE) whose helpers are data:
         _Block_copy would call the copy helper. */
      static struct literal helpers_in_data = {_NSConcreteStackBlock, (1 << 25) | (1 << 30), 0, (void *)nothing, &helpers};
      static char zeroes[64];
      static struct { double x, y; } point = {1.5, -2.5};
      const void *hostile_invoke_in_data(void) { return &invoke_in_data; }
      const void *hostile_invoke_null(void) { return &invoke_null; }
      const void *hostile_helpers_in_data(void) { return &helpers_in_data; }
      const void *hostile_zeroed_memory(void) { return zeroes; }
      const void *hostile_struct(void) { return &point; }
      const void *hostile_unmapped(void) { return (const void *)0x10; }
      """
    return try Toolchain.compileC(
      source, fileName: "hostile.c", arguments: ["-shared", "-fPIC", "-w"], output: "libhostile.so"
    ).product
  }

  /// Each is refused before anything of it is called or copied: exit 65, a message that says
  /// what is wrong with it, nothing on stdout, no crash.
  @Test(arguments: [
    ("hostile_invoke_in_data", "is not a block: its invoke 0x"),
    ("hostile_invoke_null", "is not a block: its invoke 0x0 is not in executable memory"),
    ("hostile_helpers_in_data", "is not a block: its copy helper 0x"),
    ("hostile_zeroed_memory", "is not a block: block at 0x"),
    ("hostile_struct", "is not a block: block at 0x"),
    ("hostile_unmapped", "is not a block: block at 0x10: the 32-byte block header is not readable memory"),
  ])
  func memoryThatIsNotABlockIsRefused(_ symbol: String, message: String) throws {
    let library = try Self.hostileLibrary.get().path
    let output = try Toolchain.run(Toolchain.blocksig, ["call", "--library", library, "--symbol", symbol])
    #expect(output.status == 65, "\(output.stderr)")
    #expect(output.stdout == "")
    #expect(output.stderr.hasPrefix("blocksig call: error: \(library): '\(symbol)' "), "\(output.stderr)")
    #expect(output.stderr.contains(message), "\(output.stderr)")
    #expect(output.stderr.split(separator: "\n").count == 1, "\(output.stderr)")
  }

  /// Arguments built to exhaust the parser or the conversion: 100 000 nested `[` (deeper
  /// than the parser goes), an array of 20 000 members for a two-member structure, and 30 000
  /// members for a four-element array member. Each is refused with exit 65 and a message
  /// that names it; none is echoed back in full.
  @Test func deepAndHugeJSONIsRefused() throws {
    let deep = String(repeating: "[", count: 100_000)
    let nested = try failure("--symbol", "bf_struct_named", deep)
    #expect(nested.status == 65)
    #expect(
      nested.stderr == "blocksig call: error: argument 1: malformed JSON at byte 64: nested deeper than 64 levels\n")
    let members = "[" + Array(repeating: "1", count: 20_000).joined(separator: ",") + "]"
    let tooMany = try failure("--symbol", "bf_struct_named", members)
    #expect(tooMany.status == 65)
    #expect(
      tooMany.stderr == "blocksig call: error: argument 1: expected 2 members for struct BFPoint, got 20000\n")
    let elements = "[" + Array(repeating: "7", count: 30_000).joined(separator: ", ") + "]"
    let tooManyElements = try failure("--symbol", "bf_struct_with_arrays", "[\(elements), [5, 6]]")
    #expect(tooManyElements.status == 65)
    #expect(
      tooManyElements.stderr.hasPrefix(
        "blocksig call: error: argument 1 → member 0: expected 4 elements for int[4], got 30000"),
      "\(tooManyElements.stderr.prefix(300))")
    #expect(tooManyElements.stderr.utf8.count < 1000)
  }

  /// A 100 000-byte string reaches a `char *` parameter whole (the block, declared as taking
  /// and returning one, returns it), and the same string where an integer belongs is refused
  /// with a message that shows its first and last 50 bytes and its length, not all of it.
  @Test func hugeStringsArePassedOrRefused() throws {
    let text = String(repeating: "x", count: 100_000)
    #expect(
      try result("--symbol", "bf_heap_captures_byref", "--signature", "*16@?0*8", "\"\(text)\"")
        == "return  char *  \"\(text)\"\n")
    let refused = try failure("--symbol", "bf_int_int", "\"\(text)\"")
    #expect(refused.status == 65)
    #expect(
      refused.stderr.hasPrefix(
        "blocksig call: error: argument 1: expected an integer for int, got \"\(text.prefix(49))…\(text.suffix(49))\" (100002 bytes)"
      ),
      "\(refused.stderr.prefix(300))")
    #expect(refused.stderr.utf8.count < 2000, "\(refused.stderr.utf8.count) bytes of error")
  }
}
