import ArgumentParser
import BlockSignature
import BlockSignatureHeaders

extension BlockSig.ObjC {
  /// `blocksig objc class`: the block parameters of a class's methods, from its header, each
  /// with the signature clang writes for a block of its type.
  struct ClassCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "class",
      abstract: "List the block parameters of a class's methods, from its header, with their signatures.",
      discussion: """
        The runtime encodes a block parameter as @? only (GNUstep's gcc-built runtime as \
        ^{?=^vii^?}): its type is in the header. clang reads the header for GCC's runtime \
        with -fblocks, lists the class's methods (interface and categories, instance and \
        class methods) and each parameter whose type is a block, and writes the signature a \
        block literal of that type has (NSComparator: q24@?0@8@16), read from the IR it \
        emits. A block passed there must fit that signature (blocksig check --level abi).

        --gnustep adds the flags GNUstep's headers need (as objc protocol does) and a \
        stand-in for libobjc2's <objc/blocks_runtime.h>, which Debian lacks.

        --json prints {"serializationVersion", "class", "header", "target", \
        "blockParameters": [{"selector", "kind" (instance or class), "index" (among the \
        explicit parameters, from 0), "type", "signature", "declaration"}]}.

        Examples:
          blocksig objc class /usr/include/GNUstep/Foundation/NSArray.h --class NSArray \\
              --gnustep
          blocksig objc class shapes.h --class Shape --json

        Exit codes: 0 the parameters were listed (none is a list too); 64 usage error; 65 \
        the header does not compile or declares no such class, or a block type has no \
        signature; 66 the header cannot be read, or clang or gnustep-config cannot be run; \
        130 interrupted.
        """
    )

    @Argument(help: "The header that declares the class.")
    var header: String

    @Option(name: .customLong("class"), help: "The class's name.")
    var className: String

    @OptionGroup var clangOptions: ClangOptions

    @Flag(help: "Add GNUstep's flags, from gnustep-config, and the blocks runtime header stand-in.")
    var gnustep = false

    @OptionGroup var jsonOption: JSONOption

    @OptionGroup var diagnostics: DiagnosticOptions

    func run() throws {
      try ClangOptions.requireFile(header)
      let arguments = gnustep ? try ClangOptions.gnustepArguments(blocks: true) : []
      let parameters: [ObjCBlockParameter]
      do {
        parameters = try clangOptions.reader(leading: arguments).objcBlockParameters(
          header: header, className: className)
      } catch {
        throw error.report(offeringGNUstep: true)
      }
      let report = ObjCClassReportV1(className: className, header: header, parameters: parameters)
      if jsonOption.json {
        try JSONOutput.print(report)
      } else {
        print(report.text, terminator: "")
      }
    }
  }
}
