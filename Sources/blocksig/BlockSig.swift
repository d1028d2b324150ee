import ArgumentParser
import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime

@main
struct BlockSig: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "blocksig",
    abstract: "Inspect and call clang blocks: signatures, layouts and live block objects.",
    discussion: """
      Exit codes: 0 success or compatible; 1 a check found errors; 64 usage error; \
      65 malformed encoding, binary or header, not a block, or a call's arguments do not fit; \
      66 unreadable input; 70 a library's code crashed (inspect --library, call and objc \
      classes run it in a child process); 130 interrupted. dump goes on \
      past a file it cannot read or decode and exits 1 if any failed.
      """,
    version: "0.1.0",
    subcommands: [
      Decode.self, Inspect.self, Call.self, Dump.self, Method.self, Block.self, Check.self, Table.self, ObjC.self,
      Trace.self,
    ]
  )
}
