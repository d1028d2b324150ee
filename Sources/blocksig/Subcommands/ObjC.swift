import ArgumentParser
import BlockSignature
import BlockSignatureHeaders
import Foundation

extension BlockSig {
  /// `blocksig objc`: Objective-C protocols read from headers by clang, and the classes a
  /// library defines, for GCC's runtime.
  struct ObjC: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "objc",
      abstract: "Describe Objective-C protocols from headers and classes from libraries, for GCC's runtime.",
      subcommands: [ProtocolCommand.self, ClassCommand.self, ClassesCommand.self]
    )
  }
}

extension BlockSig.ObjC {
  /// `blocksig objc protocol`: a protocol's methods, with the method type encoding clang writes
  /// for each, in the text form `ObjCProtocolDescription(parsing:)` reads.
  struct ProtocolCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "protocol",
      abstract: "Describe an Objective-C protocol, from its header, method by method.",
      discussion: """
        clang reads the header for GCC's Objective-C runtime (-fobjc-runtime=gcc): its AST \
        lists the protocol's methods and their types, a probe program it compiles and runs \
        here prints @encode of each type, and the method signature (method form, clang's \
        offsets) is composed from them. The IR clang writes for @protocol(NAME) says which \
        methods are @optional, and its method strings must equal the composed ones. Each \
        line gives - or +, the selector, required or optional, the signature, variadic and \
        the declaring protocol where they apply, and the declaration as a comment. The probe \
        runs here: read only headers you trust.

        --gnustep adds the flags GNUstep's headers need: gnustep-config --objc-flags (less \
        -MMD -MP), -fobjc-runtime=gcc and GCC's include folder (gcc \
        -print-file-name=include). --adopted also lists the methods of the protocols it \
        adopts, after its own.

        --json prints {"protocol", "header", "target", "adoptedProtocols", "methods": \
        [{"selector", "kind" (instance or class), "required", "signature", "variadic", \
        "origin", "returnType", "parameterTypes", "declaration"}], "text"}.

        Examples:
          blocksig objc protocol /usr/include/GNUstep/Foundation/NSXMLParser.h \\
              --protocol NSXMLParserDelegate --gnustep
          blocksig objc protocol shapes.h --protocol Shapes --adopted --json

        Exit codes: 0 the protocol was read; 64 usage error; 65 the header does not \
        compile or declares no such protocol, a method type has no encoding, clang's \
        method string differs from the composed one, or a run takes longer than \
        --time-limit; 66 the header cannot be read, or clang or gnustep-config cannot be \
        run.
        """
    )

    @Argument(help: "The header that declares the protocol.")
    var header: String

    @Option(name: .customLong("protocol"), help: "The protocol's name.")
    var protocolName: String

    @OptionGroup var clangOptions: ClangOptions

    @Flag(help: "Add GNUstep's flags, from gnustep-config.")
    var gnustep = false

    @Flag(help: "Also list the methods of the protocols it adopts.")
    var adopted = false

    @OptionGroup var jsonOption: JSONOption

    @OptionGroup var diagnostics: DiagnosticOptions

    func run() throws {
      try ClangOptions.requireFile(header)
      let arguments = gnustep ? try ClangOptions.gnustepArguments() : []
      let reader = clangOptions.reader(leading: arguments)
      let description: ObjCProtocolDescription
      do {
        description = try reader.objcProtocol(header: header, named: protocolName, includingAdopted: adopted)
      } catch {
        throw error.report(offeringGNUstep: true)
      }
      if jsonOption.json {
        try JSONOutput.print(ObjCProtocolReportV1(description, header: header))
      } else {
        let required = description.methods.filter(\.isRequired).count
        print(
          "# \(description.name), from \(header) by clang: \(counted(description.methods.count, "method")), "
            + "\(required) required")
        print(description.text, terminator: "")
      }
    }
  }
}
