import BlockSignature
import BlockSignatureFFI
import BlockSignatureHeaders
import Foundation
import TestSupport
import Testing

/// `HeaderReader.table`, called as a library: a struct of callbacks read from a header. The
/// oracle is clang by another road: the signatures it writes for blocks written by hand with
/// each member's parameters (the command's own tests cover more members and the layout).
@Suite struct HeaderTableReaderTests {
  static let header = """
    struct pair { double x, y; };
    typedef struct ops {
      int (*add)(void *ctx, int a, int b);
      struct pair (*swap)(void *ctx, struct pair p);
      void (*log)(void *ctx, const char *format, ...);
      unsigned version;
    } ops_t;
    union either { int i; float f; };

    """

  static let handWritten = """
    #include "ops.h"
    const void *b_add(void) { return ^int(void *ctx, int a, int b) { return 0; }; }
    const void *b_swap(void) { return ^struct pair(void *ctx, struct pair p) { return p; }; }
    const void *b_log(void) { return ^void(void *ctx, const char *format) {}; }

    """

  @Test func functionMembersAreClangs() throws {
    let folder = try Toolchain.temporaryDirectory("blocksig-headers-table")
    defer { try? FileManager.default.removeItem(at: folder) }
    try Self.header.write(to: folder.appendingPathComponent("ops.h"), atomically: true, encoding: .utf8)
    let hand = folder.appendingPathComponent("hand.c")
    try Self.handWritten.write(to: hand, atomically: true, encoding: .utf8)

    let table = try HeaderReader(clang: Toolchain.clang, timeLimit: 60).table(
      header: folder.appendingPathComponent("ops.h").path, struct: "ops_t")
    #expect(table.record == "ops_t")
    #expect(table.members.map(\.name) == ["add", "swap", "log", "version"])
    #expect(table.members.map(\.isFunction) == [true, true, true, false])
    #expect(table.members.map(\.isVariadic) == [false, false, true, false])
    #expect(table.table.members.map(\.offset) == table.members.map(\.offset))
    #expect(table.table.size == table.size)

    let ir = ClangIR(try Toolchain.runClang(["-fblocks", "-S", "-emit-llvm", "-o", "-", hand.path]).stdout)
    let model = try #require(DataModel.host)
    for member in table.members where member.isFunction {
      let literal = try #require(ir.literal(invoking: "__b_\(member.name)_block_invoke"), "\(member.name)")
      let expected = try #require(ir.descriptors[literal.descriptor]?.signature, "\(member.name)")
      #expect(member.blockSignature == expected, "\(member.name)")
      // The function form is clang's block signature without the block, offsets from 0.
      let function = try SignatureEncoding(parsing: expected).converted(from: .block, to: .types, model: model)
      #expect(member.encoding == function.description, "\(member.name)")
    }
    #expect(table.members.first?.encoding == "i16^v0i8i12")  // HeaderTable's documentation example
    #expect(try CallbackTable(parsing: table.text, name: "ops_t") == table.table)
  }

  @Test func refusalsHaveKinds() throws {
    let folder = try Toolchain.temporaryDirectory("blocksig-headers-table")
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("ops.h").path
    try Self.header.write(toFile: path, atomically: true, encoding: .utf8)
    let reader = HeaderReader(clang: Toolchain.clang, timeLimit: 60)
    let cases: [(String, String, HeaderReaderError.Kind)] = [
      (path, "missing", .notFound), (path, "either", .unsupported), (path, "union either", .invalidName),
      (path, "2ops", .invalidName), (folder.appendingPathComponent("none.h").path, "ops", .unreadableHeader),
    ]
    for (header, record, kind) in cases {
      do {
        _ = try reader.table(header: header, struct: record)
        Issue.record("\(record) in \(header) was read")
      } catch {
        #expect(error.kind == kind, "\(record): \(error)")
      }
    }
  }
}
