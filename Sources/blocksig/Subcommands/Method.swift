import ArgumentParser
import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime

extension BlockSig {
  /// `blocksig method`: the method form of a block or function signature.
  struct Method: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print the Objective-C method form of a block or function signature.",
      discussion: """
        The block argument @?0 becomes self and _cmd (@0:8), and every offset and the frame \
        length grow by one pointer, as clang writes a method with the same types. Class names, \
        nested block signatures and qualifiers are kept.

        Examples:
          blocksig method 'i20@?0i8r*12'          # i28@0:8i16r*20
          blocksig method --from function 'i12i0r*4'
          blocksig method --json --target i386-linux 'v12@?0d4'

        Malformed input exits with 65 and an error naming the byte offset on standard error.
        """
    )

    @OptionGroup var options: ConversionOptions
    @OptionGroup var diagnostics: DiagnosticOptions

    func run() throws {
      try options.run(to: .method)
    }
  }
}
