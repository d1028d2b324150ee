import Foundation
import TestSupport
import Testing

/// The whole `--help` of `blocksig` and of each subcommand, as printed 80 columns wide: a
/// changed line of help fails here, so that help changes only on purpose.
@Suite struct HelpCLITests {
  /// `blocksig ARGUMENTS --help`, with the width fixed (COLUMNS, LINES) so that a terminal's
  /// size in the environment cannot change where ArgumentParser wraps.
  static func help(_ arguments: [String]) throws -> Toolchain.Output {
    try blocksig(arguments + ["--help"], environment: ["COLUMNS": "80", "LINES": "25"])
  }

  @Test(arguments: [
    "", "decode", "inspect", "call", "dump", "method", "block", "check", "table", "objc", "objc protocol",
    "objc class", "objc classes", "trace",
  ])
  func helpIsAsPinned(_ command: String) throws {
    let output = try Self.help(command.split(separator: " ").map(String.init))
    #expect(output.status == 0)
    #expect(output.stderr == "")
    let expected = try #require(Self.expected[command], "no pinned help for '\(command)'")
    #expect(output.stdout == expected)
  }

  /// `blocksig` alone is a usage error (its help on standard error), and so is help for a
  /// subcommand that does not exist.
  @Test func noSubcommandIsAUsageError() throws {
    let bare = try blocksig([])
    #expect(bare.status == 64)
    #expect(bare.stdout == "")
    #expect(bare.stderr.hasPrefix("OVERVIEW: Inspect and call clang blocks"))
    let unknown = try blocksig(["help", "nosuch"])
    #expect(unknown.status == 64)
    #expect(unknown.stderr == "blocksig help: error: no subcommand 'nosuch' (blocksig --help lists them)\n")
    #expect(try blocksig(["help", "objc", "classes"]).status == 0)
  }

  /// Each subcommand the top-level help lists has its help pinned in ``expected`` (and the
  /// subcommands of a group under "GROUP SUBCOMMAND").
  @Test func everySubcommandIsPinned() throws {
    let listed = try Self.help([]).stdout.split(separator: "\n").compactMap { line -> String? in
      guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
      let name = line.dropFirst(2).prefix { $0 != " " }
      return !name.isEmpty && name.allSatisfy(\.isLowercase) ? String(name) : nil
    }
    #expect(listed.count == 10)
    #expect(Set(listed) == Set(Self.expected.keys.filter { !$0.isEmpty && !$0.contains(" ") }))
  }

  /// The help of `blocksig` (key "") and of each subcommand.
  static let expected: [String: String] = [
    "": #"""
    OVERVIEW: Inspect and call clang blocks: signatures, layouts and live block
    objects.

    Exit codes: 0 success or compatible; 1 a check found errors; 64 usage error; 65
    malformed encoding, binary or header, not a block, or a call's arguments do not
    fit; 66 unreadable input; 70 a library's code crashed (inspect --library, call
    and objc classes run it in a child process); 130 interrupted. dump goes on past
    a file it cannot read or decode and exits 1 if any failed.

    USAGE: blocksig <subcommand>

    OPTIONS:
      --version               Show the version.
      -h, --help              Show help information.

    SUBCOMMANDS:
      decode                  Decode block signatures, method signatures and type
                              encodings.
      inspect                 Inspect a live block: one a shared library provides,
                              or one in a running process.
      call                    Call a block a shared library provides, with one JSON
                              value per parameter.
      dump                    List every block in ELF and Mach-O binaries, stripped
                              or not.
      method                  Print the Objective-C method form of a block or
                              function signature.
      block                   Print the block form of a method or function
                              signature.
      check                   Check whether a candidate signature can be used where
                              another is expected.
      table                   Describe a C struct of callbacks, from its header, as
                              a callback table.
      objc                    Describe Objective-C protocols from headers and
                              classes from libraries, for GCC's runtime.
      trace                   Run a program and print every call of its blocks.

      See 'blocksig help <subcommand>' for detailed help.

    """#,
    "decode": #"""
    OVERVIEW: Decode block signatures, method signatures and type encodings.

    Prints the return type and each argument with its C type, size, alignment and
    offset, the C declaration and the Swift type, and notes where written offsets
    differ from what clang would write or where the encoding cannot decide a
    layout. For a block, a method or a C function, "passed in" names where a call
    on --target puts each argument (registers, stack+offset from the first stack
    argument, ? where the encoding does not say) and where the return value comes
    back (registers, or memory with the pointer to its buffer).

    Examples:
      blocksig decode 'i20@?0i8r*12'
      blocksig decode --json --target i386-linux 'v12@?0q4'
      printf 'v@:@\n{P=dic}\n' | blocksig decode

    With --json, one input prints one document; several inputs, or standard input,
    print JSON Lines (one compact document per input).

    Malformed input exits with 65 and an error naming the byte offset on standard
    error.

    USAGE: blocksig decode [--json] [--target <target>] [<signatures> ...] [--color-diagnostics] [--no-color-diagnostics]

    ARGUMENTS:
      <signatures>            Signatures or type encodings; read one per line from
                              standard input when omitted.

    OPTIONS:
      --json                  Print JSON instead of text (the overview gives the
                              shape).
      --target <target>       The data model: sizes, alignments and calling
                              convention. (values: x86_64-linux, aarch64-linux,
                              arm64-apple, i386-linux, x86_64-windows; default:
                              x86_64-linux)
      --color-diagnostics/--no-color-diagnostics
                              Colour the diagnostics on standard error (default:
                              when it is a terminal).
      --version               Show the version.
      -h, --help              Show help information.


    """#,
    "inspect": #"""
    OVERVIEW: Inspect a live block: one a shared library provides, or one in a
    running process.

    With --library, the block is either returned by a `const void *(*)(void)`
    function (--symbol) or held in a global block variable (--variable). --library
    takes a path, or a bare name searched for as dlopen searches (LD_LIBRARY_PATH,
    /etc/ld.so.cache, the default folders; ./NAME for a file in the current
    folder). The file is checked before it is loaded (in range, for this machine).
    Loading runs the library's code — its constructors, and the --symbol function —
    in a child process of blocksig's, which prints the report: a crash there is
    reported as an error (exit 70), never brings blocksig down. Still, that code
    runs as you: inspect only libraries you trust. A --symbol function that is not
    a block accessor (one that takes arguments, or returns no block) runs with
    whatever its registers hold.

    With --pid and --address, the block at that address in another process is read
    (process_vm_readv: the same user, or CAP_SYS_PTRACE, and a Yama ptrace_scope
    that allows it), without stopping or changing the process; names come from the
    image files its /proc/<pid>/maps lists. Take the address from a debugger, a log
    or the program itself. With --pid and --all, the process's readable memory
    (heap, stacks, data) is searched for words holding the address of a block class
    of its runtime, and every one that reads as a block of that class is listed.

    Examples:
      blocksig inspect --library libBlockFixtures.so --symbol bf_int_long
      blocksig inspect --library libfoo.so --variable handler --json
      blocksig inspect --pid 4242 --address 0x55d0c6f4a2c0
      blocksig inspect --pid 4242 --all --json

    Exit codes: 0 success, 64 usage error, 65 the symbol or address is not a
    block-looking object, 66 the library cannot be found, read or loaded (a damaged
    file: `FILE: error: …` says what is out of range), or has no such symbol, or
    the process does not exist, may not be read or is a 32-bit program; 70 the
    library's code crashed (the signal and where), 130 interrupted.

    USAGE: blocksig inspect [--library <library>] [--symbol <symbol>] [--variable <variable>] [--pid <pid>] [--address <address>] [--all] [--json] [--demangle] [--color-diagnostics] [--no-color-diagnostics]

    OPTIONS:
      --library <library>     The shared library to load: a path, or a bare name
                              searched for as dlopen does.
      --symbol <symbol>       A function that takes no arguments and returns the
                              block; it is called.
      --variable <variable>   A global variable that holds the block.
      --pid <pid>             A running process to read the block from (with
                              --address).
      --address <address>     The block's address in that process, hex (0x…) or
                              decimal.
      --all                   With --pid: list every block found in the process's
                              memory.
      --json                  Print JSON instead of text (the overview gives the
                              shape).
      -C, --demangle          Show Swift, C++ and block invoke names demangled in
                              the text (JSON has both forms).
      --color-diagnostics/--no-color-diagnostics
                              Colour the diagnostics on standard error (default:
                              when it is a terminal).
      --version               Show the version.
      -h, --help              Show help information.


    """#,
    "call": #"""
    OVERVIEW: Call a block a shared library provides, with one JSON value per
    parameter.

    The block is loaded as inspect loads it: returned by a `const void *(*)(void)`
    function (--symbol) or held in a global block variable (--variable), from a
    library given by path or by a bare name searched for as dlopen searches; the
    file is checked before it is loaded. The library's code — its constructors, the
    --symbol function and the block itself — runs in a child process of blocksig's,
    which prints the result: a crash there is an error (exit 70: "the block crashed
    with SIGSEGV at …"), never brings blocksig down. That code runs as you: call
    only libraries you trust. The call follows the block's own signature, or
    --signature (block, method or function form), which must fit the block's own at
    --level (the levels of check; default abi).

    One ARG per parameter after the block itself, each a JSON value, read by the
    parameter's C type:
      integers, enums     a number, or a string of decimal or 0x hex digits
                          ("0xffffffffffffffffffffffffffffffff" for 128 bits)
      _Bool               true or false (1 and 0 accepted)
      float, double,      a number, or "inf", "-inf", "nan"
      long double
      _Complex T          [real, imaginary]
      char *              a string, null, or an address (a number, as a pointer)
      other pointers,     an address (an integer as above), or null
      objects, blocks,
      selectors
      struct              an array of its members in order (an array member as an
                          array of its elements)
      union               {"member": K, "value": V}: V for member K (from 0)
    Put -- before the arguments when one starts with '-', a negative number.

    The result is printed as `return  C-TYPE  VALUE`, the value in the same syntax
    (a union as member 0, `void` without a value). --json prints {"declaration",
    "return": {"encoding", "value"}, "serializationVersion": 1, "signature"},
    `void` as null; integers are exact at any width, floating point the shortest
    text that reads back the same.

    Examples:
      blocksig call --library libBlockFixtures.so --symbol bf_int_long 7 9
      blocksig call --library libfoo.so --variable cb --json '"text"' '[1, 2]'
      blocksig call --library libfoo.so --symbol make --signature 'v16@?0q8' -- -1

    Exit codes: 0 the block was called, 64 usage error, 65 a wrong number of
    arguments, malformed JSON (with its byte offset), a value that does not fit its
    parameter, a type that cannot be called, a --signature that does not fit the
    block (with check's diagnostics), or not a block; 66 the library cannot be
    found, read or loaded (a damaged file: `FILE: error: …` says what is out of
    range), or has no such symbol; 70 the library's code or the block crashed (the
    signal and where); 130 interrupted.

    USAGE: blocksig call --library <library> [--symbol <symbol>] [--variable <variable>] [--signature <signature>] [--level <level>] [--json] [<arg> ...] [--color-diagnostics] [--no-color-diagnostics]

    ARGUMENTS:
      <arg>                   One JSON value per parameter.

    OPTIONS:
      --library <library>     The shared library to load: a path, or a bare name
                              searched for as dlopen does.
      --symbol <symbol>       A function that takes no arguments and returns the
                              block; it is called.
      --variable <variable>   A global variable that holds the block.
      --signature <signature> The block's signature, declared (block, method or
                              function form).
      --level <level>         How strictly --signature must fit the block's own
                              signature. (values: identical, equivalent, abi,
                              blockskit, aspects; default: abi)
      --json                  Print JSON instead of text (the overview gives the
                              shape).
      --color-diagnostics/--no-color-diagnostics
                              Colour the diagnostics on standard error (default:
                              when it is a terminal).
      --version               Show the version.
      -h, --help              Show help information.


    """#,
    "dump": #"""
    OVERVIEW: List every block in ELF and Mach-O binaries, stripped or not.

    Finds global block literals (through relocations, dynamic relocations or the
    copied _NSConcreteGlobalBlock), descriptors by symbol, and, in stripped files,
    descriptors by a structural scan for signature strings and the descriptor words
    that point at them. In x86_64 and AArch64 images (linked, or objects), each
    stack block's construction sites are found in the code (the instructions that
    load its descriptor's address) with the invoke function stored beside it.

    Human output has one line per block, sorted by address, then a summary. With
    --json, the output is JSON Lines: each binary (each archive member) gives one
    compact JSON document on a line of its own, with "serializationVersion": 2,
    "schema": "blocksig-dump/2" and camelCase keys
    (Schemas/blocksig-dump-2.schema.json describes it).

    A file that cannot be read or is damaged gives a diagnostic on stderr and the
    scan goes on; the exit status is 1 if any file failed. Files found by -r that
    are not ELF, Mach-O or ar archives are skipped; -r follows symbolic links to
    files (each file is scanned once) but not to directories.

    Files are scanned on all cores; each file's output is written, in the order the
    files are given, as soon as it and every file before it are scanned. A last
    line on stderr counts the files, blocks and errors.

    Examples:
      blocksig dump libdispatch.so
      blocksig dump --json -r build/

    USAGE: blocksig dump [--json] [--recursive] [--demangle] <paths> ... [--color-diagnostics] [--no-color-diagnostics]

    ARGUMENTS:
      <paths>                 Binaries, archives or directories to scan.

    OPTIONS:
      --json                  Print JSON instead of text (the overview gives the
                              shape).
      -r, --recursive         Scan directories recursively.
      -C, --demangle          Show Swift, C++ and block invoke names demangled in
                              the text (JSON has both forms).
      --color-diagnostics/--no-color-diagnostics
                              Colour the diagnostics on standard error (default:
                              when it is a terminal).
      --version               Show the version.
      -h, --help              Show help information.


    """#,
    "method": #"""
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
      --json                  Print JSON instead of text (the overview gives the
                              shape).
      --target <target>       The data model: sizes, alignments and calling
                              convention. (values: x86_64-linux, aarch64-linux,
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


    """#,
    "block": #"""
    OVERVIEW: Print the block form of a method or function signature.

    self and _cmd (@0:8) become the block argument @?0, and every offset and the
    frame length shrink by one pointer. A function signature (offsets from 0) gains
    @?0 and grows by one pointer. Class names, nested block signatures and
    qualifiers are kept.

    Examples:
      blocksig block 'v24@0:8@16'             # v16@?0@8
      blocksig block --from function 'v12@?0i8'
      blocksig block --json 'i28@0:8i16r*20'

    Malformed input exits with 65 and an error naming the byte offset on standard
    error.

    USAGE: blocksig block [--json] [--target <target>] [--from <from>] <signature> [--color-diagnostics] [--no-color-diagnostics]

    ARGUMENTS:
      <signature>             The signature to convert.

    OPTIONS:
      --json                  Print JSON instead of text (the overview gives the
                              shape).
      --target <target>       The data model: sizes, alignments and calling
                              convention. (values: x86_64-linux, aarch64-linux,
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


    """#,
    "check": #"""
    OVERVIEW: Check whether a candidate signature can be used where another is
    expected.

    Compares the return type and the explicit arguments (after the block, or after
    self and _cmd), so a block can be checked against a block, a method or a
    function: method arguments 2… meet block arguments 1…. Every difference is
    explained with its position, both encodings, the numbers and the encoding that
    would match.

    Levels, strictest first:
      identical   the same types; offsets ignored
      equivalent  also ignores qualifiers, class names, object kinds, *≈^c,
                  anonymous against named structs ({?=ii}≈{P=ii}, but not
                  {A=ii}≈{B=ii}), opaque against expanded, field names
      abi         the same size, register class and place (registers, or
                  stack once the argument registers run out) on --target;
                  signedness differences warn
      blockskit   BlocksKit's first-character rule (the longer signature is
                  the method), without its flaw that passes any two types
      aspects     Aspects' rule: fewer block arguments allowed, argument 1
                  an object, return ignored

    Examples:
      blocksig check 'v16@?0@8' 'v24@0:8@16'
      blocksig check --level abi --json 'v20@?0i8q12' 'v16@?0i8i12'

    Exit codes: 0 compatible, 1 not compatible, 64 usage error, 65 malformed
    signature (the byte offset and the input underlined on standard error).

    USAGE: blocksig check [--level <level>] [--target <target>] [--json] <candidate> <expected> [--color-diagnostics] [--no-color-diagnostics]

    ARGUMENTS:
      <candidate>             The signature to check (usually a block).
      <expected>              The signature it must fit (a block, method or
                              function).

    OPTIONS:
      --level <level>         How strictly to compare. (values: identical,
                              equivalent, abi, blockskit, aspects; default:
                              equivalent)
      --target <target>       The data model: sizes, alignments and calling
                              convention. (values: x86_64-linux, aarch64-linux,
                              arm64-apple, i386-linux, x86_64-windows; default:
                              x86_64-linux)
      --json                  Print JSON instead of text (the overview gives the
                              shape).
      --color-diagnostics/--no-color-diagnostics
                              Colour the diagnostics on standard error (default:
                              when it is a terminal).
      --version               Show the version.
      -h, --help              Show help information.


    """#,
    "table": #"""
    OVERVIEW: Describe a C struct of callbacks, from its header, as a callback
    table.

    clang reads the header: its AST names the struct's members and the parameters
    of each function pointer member, and a probe program it compiles and runs here
    prints the signature clang writes for a block of each member's type, with
    offsetof and sizeof. A function member is given in function form with clang's
    offsets; a variadic one by its fixed part, marked by a comment. The table is
    read back and must lay the struct out as clang does. The probe runs here, with
    any constructor the header defines: read only headers you trust (--time-limit
    kills a run that does not end). The struct is the one this machine's clang
    sees, for the host's target.

    --struct names the struct by its tag (`_xmlSAXHandler`, `struct
    fuse_operations`) or a typedef of it (`xmlSAXHandler`). Unions, bitfields,
    unnamed members and function pointers with no prototype are refused.

    --json prints {"record", "header", "target", "size", "alignment", "members":
    [{"name", "kind" (function or data), "encoding", "blockSignature", "variadic",
    "offset", "size"}], "text"}.

    Examples:
      blocksig table /usr/include/libxml2/libxml/parser.h --struct xmlSAXHandler \
          -I /usr/include/libxml2
      blocksig table ops.h --struct ops --clang /opt/swift/usr/bin/clang --json

    Exit codes: 0 the table was read; 64 usage error; 65 the header does not
    compile, has no such struct, has a member a table cannot hold (a vector or
    _BitInt type among them), a layout clang and the encodings disagree on, or a
    run longer than --time-limit; 66 the header cannot be read, or clang cannot be
    run.

    USAGE: blocksig table <header> --struct <struct> [-I <dir> ...] [-D <name[=value]> ...] [--clang-argument <arg> ...] [--clang <clang>] [--time-limit <seconds>] [--json] [--color-diagnostics] [--no-color-diagnostics]

    ARGUMENTS:
      <header>                The C header that defines the struct.

    OPTIONS:
      --struct <struct>       The struct: its tag or a typedef of it.
      -I <dir>                A folder clang searches for headers.
      -D <name[=value]>       A macro clang defines.
      --clang-argument <arg>  Another argument for clang (-std=gnu11, --sysroot=…).
      --clang <clang>         The clang to run: a path, or a name looked up in
                              PATH. (default: clang)
      --time-limit <seconds>  How long clang or the probe may run, then it is
                              killed. (default: 120)
      --json                  Print JSON instead of text (the overview gives the
                              shape).
      --color-diagnostics/--no-color-diagnostics
                              Colour the diagnostics on standard error (default:
                              when it is a terminal).
      --version               Show the version.
      -h, --help              Show help information.


    """#,
    "objc": #"""
    OVERVIEW: Describe Objective-C protocols from headers and classes from
    libraries, for GCC's runtime.

    USAGE: blocksig objc <subcommand>

    OPTIONS:
      --version               Show the version.
      -h, --help              Show help information.

    SUBCOMMANDS:
      protocol                Describe an Objective-C protocol, from its header,
                              method by method.
      class                   List the block parameters of a class's methods, from
                              its header, with their signatures.
      classes                 List the Objective-C classes a library defines, with
                              their methods' types.

      See 'blocksig help objc <subcommand>' for detailed help.

    """#,
    "objc protocol": #"""
    OVERVIEW: Describe an Objective-C protocol, from its header, method by method.

    clang reads the header for GCC's Objective-C runtime (-fobjc-runtime=gcc): its
    AST lists the protocol's methods and their types, a probe program it compiles
    and runs here prints @encode of each type, and the method signature (method
    form, clang's offsets) is composed from them. The IR clang writes for
    @protocol(NAME) says which methods are @optional, and its method strings must
    equal the composed ones. Each line gives - or +, the selector, required or
    optional, the signature, variadic and the declaring protocol where they apply,
    and the declaration as a comment. The probe runs here: read only headers you
    trust.

    --gnustep adds the flags GNUstep's headers need: gnustep-config --objc-flags
    (less -MMD -MP), -fobjc-runtime=gcc and GCC's include folder (gcc
    -print-file-name=include). --adopted also lists the methods of the protocols it
    adopts, after its own.

    --json prints {"protocol", "header", "target", "adoptedProtocols", "methods":
    [{"selector", "kind" (instance or class), "required", "signature", "variadic",
    "origin", "returnType", "parameterTypes", "declaration"}], "text"}.

    Examples:
      blocksig objc protocol /usr/include/GNUstep/Foundation/NSXMLParser.h \
          --protocol NSXMLParserDelegate --gnustep
      blocksig objc protocol shapes.h --protocol Shapes --adopted --json

    Exit codes: 0 the protocol was read; 64 usage error; 65 the header does not
    compile or declares no such protocol, a method type has no encoding, clang's
    method string differs from the composed one, or a run takes longer than
    --time-limit; 66 the header cannot be read, or clang or gnustep-config cannot
    be run.

    USAGE: blocksig objc protocol <header> --protocol <protocol> [-I <dir> ...] [-D <name[=value]> ...] [--clang-argument <arg> ...] [--clang <clang>] [--time-limit <seconds>] [--gnustep] [--adopted] [--json] [--color-diagnostics] [--no-color-diagnostics]

    ARGUMENTS:
      <header>                The header that declares the protocol.

    OPTIONS:
      --protocol <protocol>   The protocol's name.
      -I <dir>                A folder clang searches for headers.
      -D <name[=value]>       A macro clang defines.
      --clang-argument <arg>  Another argument for clang (-std=gnu11, --sysroot=…).
      --clang <clang>         The clang to run: a path, or a name looked up in
                              PATH. (default: clang)
      --time-limit <seconds>  How long clang or the probe may run, then it is
                              killed. (default: 120)
      --gnustep               Add GNUstep's flags, from gnustep-config.
      --adopted               Also list the methods of the protocols it adopts.
      --json                  Print JSON instead of text (the overview gives the
                              shape).
      --color-diagnostics/--no-color-diagnostics
                              Colour the diagnostics on standard error (default:
                              when it is a terminal).
      --version               Show the version.
      -h, --help              Show help information.


    """#,
    "objc class": #"""
    OVERVIEW: List the block parameters of a class's methods, from its header, with
    their signatures.

    The runtime encodes a block parameter as @? only (GNUstep's gcc-built runtime
    as ^{?=^vii^?}): its type is in the header. clang reads the header for GCC's
    runtime with -fblocks, lists the class's methods (interface and categories,
    instance and class methods) and each parameter whose type is a block, and
    writes the signature a block literal of that type has (NSComparator:
    q24@?0@8@16), read from the IR it emits. A block passed there must fit that
    signature (blocksig check --level abi).

    --gnustep adds the flags GNUstep's headers need (as objc protocol does) and a
    stand-in for libobjc2's <objc/blocks_runtime.h>, which Debian lacks.

    --json prints {"serializationVersion", "class", "header", "target",
    "blockParameters": [{"selector", "kind" (instance or class), "index" (among the
    explicit parameters, from 0), "type", "signature", "declaration"}]}.

    Examples:
      blocksig objc class /usr/include/GNUstep/Foundation/NSArray.h --class NSArray
    \
          --gnustep
      blocksig objc class shapes.h --class Shape --json

    Exit codes: 0 the parameters were listed (none is a list too); 64 usage error;
    65 the header does not compile or declares no such class, or a block type has
    no signature; 66 the header cannot be read, or clang or gnustep-config cannot
    be run; 130 interrupted.

    USAGE: blocksig objc class <header> --class <class> [-I <dir> ...] [-D <name[=value]> ...] [--clang-argument <arg> ...] [--clang <clang>] [--time-limit <seconds>] [--gnustep] [--json] [--color-diagnostics] [--no-color-diagnostics]

    ARGUMENTS:
      <header>                The header that declares the class.

    OPTIONS:
      --class <class>         The class's name.
      -I <dir>                A folder clang searches for headers.
      -D <name[=value]>       A macro clang defines.
      --clang-argument <arg>  Another argument for clang (-std=gnu11, --sysroot=…).
      --clang <clang>         The clang to run: a path, or a name looked up in
                              PATH. (default: clang)
      --time-limit <seconds>  How long clang or the probe may run, then it is
                              killed. (default: 120)
      --gnustep               Add GNUstep's flags, from gnustep-config, and the
                              blocks runtime header stand-in.
      --json                  Print JSON instead of text (the overview gives the
                              shape).
      --color-diagnostics/--no-color-diagnostics
                              Colour the diagnostics on standard error (default:
                              when it is a terminal).
      --version               Show the version.
      -h, --help              Show help information.


    """#,
    "objc classes": #"""
    OVERVIEW: List the Objective-C classes a library defines, with their methods'
    types.

    The library — a path, or a bare name searched for as dlopen searches
    (LD_LIBRARY_PATH, /etc/ld.so.cache, the default folders) — is checked, then
    loaded in a child process of blocksig's (its constructors run there: a crash is
    an error, exit 70; load only libraries you trust), and GCC's Objective-C
    runtime, as Debian's GNUstep uses it, lists the classes whose definitions lie
    in it. Each class is printed as an @interface: its superclass and protocols,
    its instance variables (type encoding and offset), then its class (+) and
    instance (-) methods, each with the type encoding the compiler wrote and the
    declaration in C types. --swift adds the Swift type of each method's
    implementation (self, _cmd, then the arguments). --class keeps the classes
    named (repeatable).

    --json prints {"library", "target", "classes": [{"name", "superclass",
    "protocols", "instanceVariables": [{"name", "type", "offset"}], "methods":
    [{"selector", "kind" (instance or class), "types", "declaration", "swift"}]}]};
    a method whose types do not parse has "error" in place of the declarations.

    Examples:
      blocksig objc classes libgnustep-base.so --class NSString
      blocksig objc classes ./libShapes.so --json

    Exit codes: 0 the classes were listed; 64 usage error; 65 a class named by
    --class is not defined by the library; 66 the library cannot be found, read or
    loaded (a damaged file: `FILE: error: …` says what is out of range); 70 the
    library's code crashed; 130 interrupted.

    USAGE: blocksig objc classes <library> [--class <name> ...] [--swift] [--json] [--color-diagnostics] [--no-color-diagnostics]

    ARGUMENTS:
      <library>               The library: a path, or a bare name searched for as
                              dlopen does.

    OPTIONS:
      --class <name>          A class to list (all by default).
      --swift                 Also print the Swift type of each method's
                              implementation.
      --json                  Print JSON instead of text (the overview gives the
                              shape).
      --color-diagnostics/--no-color-diagnostics
                              Colour the diagnostics on standard error (default:
                              when it is a terminal).
      --version               Show the version.
      -h, --help              Show help information.


    """#,
    "trace": #"""
    OVERVIEW: Run a program and print every call of its blocks.

    PROGRAM runs with its arguments, standard input, output and error and
    environment as they are, plus the trace agent (libBlockSignatureTraceAgent.so,
    next to blocksig) in LD_PRELOAD. The agent traces every global block literal of
    the program and of each library it loads (at start and after each dlopen), and
    every block _Block_copy puts on the heap: blocks given to libdispatch,
    callbacks that are stored. A stack block called where it was made, never
    copied, is not seen. A block without a signature is traced with its arguments
    and result unknown; a note says so.

    Trace lines go to --output FILE, or to standard error; never to standard
    output. Text lines read "[thread N] invoke-symbol  C type  (arguments) ->
    result". With --json, one object per call: serializationVersion (1), event
    ("call"), block, invoke, invokeSymbol, signature, arguments and result
    (blocksig call's value form; result null for void), thread; a last object with
    event "summary" gives the calls per block.

    Examples:
      blocksig trace -- ./program arg
      blocksig trace --json --output calls.jsonl -- ./program
      blocksig trace --symbol __main_block_invoke_2 -- ./program

    Exits with the program's status, 128 + the signal's number when a signal ends
    it, 66 when the program does not exist or cannot be run. A statically linked
    program runs untraced, with a warning; so is said of a program that links no
    blocks runtime at start (only libraries it loads later can bring blocks).

    USAGE: blocksig trace [--json] [--output <file>] [--symbol <name> ...] -- [<program> ...]

    ARGUMENTS:
      <program>               The program and its arguments, after --.

    OPTIONS:
      --json                  Print JSON Lines: one object per call, then a summary.
      --output <file>         Write the trace to FILE (replaced) instead of
                              standard error.
      --symbol <name>         Trace only blocks whose invoke function's symbol, or
                              global literal's symbol, is NAME (repeatable).
      --version               Show the version.
      -h, --help              Show help information.


    """#,
  ]
}
