import ArgumentParser
import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime

extension BlockSig {
  /// `blocksig block`: the block form of a method or function signature.
  struct Block: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Print the block form of a method or function signature.",
      discussion: """
        self and _cmd (@0:8) become the block argument @?0, and every offset and the frame \
        length shrink by one pointer. A function signature (offsets from 0) gains @?0 and grows \
        by one pointer. Class names, nested block signatures and qualifiers are kept.

        Examples:
          blocksig block 'v24@0:8@16'             # v16@?0@8
          blocksig block --from function 'v12@?0i8'
          blocksig block --json 'i28@0:8i16r*20'

        Malformed input exits with 65 and an error naming the byte offset on standard error.
        """
    )

    @OptionGroup var options: ConversionOptions
    @OptionGroup var diagnostics: DiagnosticOptions

    func run() throws {
      try options.run(to: .block)
    }
  }
}
