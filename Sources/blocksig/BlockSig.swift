import ArgumentParser
import BlockSignature

@main
struct BlockSig: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "blocksig",
    abstract: "Inspect clang blocks: signatures, layouts and live block objects.",
    version: "0.1.0",
    subcommands: [Decode.self]
  )
}
