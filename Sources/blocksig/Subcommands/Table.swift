import ArgumentParser
import BlockSignatureHeaders
import Foundation

extension BlockSig {
  /// `blocksig table`: a struct of callbacks, read from its C header by clang, as the text
  /// form of a callback table (`CallbackTable(parsing:)`, `DynamicDelegate`).
  struct Table: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Describe a C struct of callbacks, from its header, as a callback table.",
      discussion: """
        clang reads the header: its AST names the struct's members and the parameters of each \
        function pointer member, and a probe program it compiles and runs here prints the \
        signature clang writes for a block of each member's type, with offsetof and sizeof. \
        A function member is given in function form with clang's offsets; a variadic one by \
        its fixed part, marked by a comment. The table is read back and must lay the struct \
        out as clang does. The probe runs here, with any constructor the header defines: \
        read only headers you trust (--time-limit kills a run that does not end). The struct is the one this machine's clang sees, for \
        the host's target.

        --struct names the struct by its tag (`_xmlSAXHandler`, `struct fuse_operations`) or \
        a typedef of it (`xmlSAXHandler`). Unions, bitfields, unnamed members and function \
        pointers with no prototype are refused.

        --json prints {"record", "header", "target", "size", "alignment", "members": \
        [{"name", "kind" (function or data), "encoding", "blockSignature", "variadic", \
        "offset", "size"}], "text"}.

        Examples:
          blocksig table /usr/include/libxml2/libxml/parser.h --struct xmlSAXHandler \\
              -I /usr/include/libxml2
          blocksig table ops.h --struct ops --clang /opt/swift/usr/bin/clang --json

        Exit codes: 0 the table was read; 64 usage error; 65 the header does not compile, \
        has no such struct, has a member a table cannot hold (a vector or _BitInt type \
        among them), a layout clang and the encodings disagree on, or a run longer than \
        --time-limit; 66 the header cannot be read, or clang cannot be run.
        """
    )

    @Argument(help: "The C header that defines the struct.")
    var header: String

    @Option(name: .customLong("struct"), help: "The struct: its tag or a typedef of it.")
    var record: String

    @OptionGroup var clangOptions: ClangOptions

    @OptionGroup var jsonOption: JSONOption

    @OptionGroup var diagnostics: DiagnosticOptions

    func run() throws {
      try ClangOptions.requireFile(header)
      let reader = clangOptions.reader()
      let table: HeaderTable
      do {
        table = try reader.table(header: header, struct: record)
      } catch {
        throw error.report()
      }
      if jsonOption.json {
        try JSONOutput.print(TableReportV1(table))
      } else {
        print(table.text, terminator: "")
      }
    }
  }
}
