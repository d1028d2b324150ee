import Foundation
import TestSupport
import Testing

/// Every command's `--json` output, on varied inputs, validated against its JSON Schema in
/// `Schemas/` by the reference validator; and the validator shown to reject a document that
/// breaks the schema.
@Suite struct JSONSchemaTests {
  /// Runs blocksig and returns its stdout as JSON Lines (a pretty document made compact).
  static func documents(_ arguments: [String], jsonLines: Bool = false) throws -> String {
    let run = try blocksig(arguments)
    #expect(run.status == 0 || run.status == 1, "\(arguments): \(run.stderr)")
    return jsonLines ? run.stdout : try JSONSchemaValidator.compact(run.stdout)
  }

  static func expectValid(_ documents: [String], schema: String) throws {
    let errors = try JSONSchemaValidator.errors(in: documents.joined(separator: "\n"), schema: schema)
    #expect(errors.isEmpty, "\(schema): \(errors)")
  }

  @Test func decode() throws {
    let inputs: [[String]] = [
      ["i20@?0i8r*12"], ["v24@0:8@16"], ["i12i0r*4"], ["{S=qqq}i^v"], ["--target", "i386-linux", "v12@?0q4"],
      ["--target", "aarch64-linux", "{?=qqqq}@?{?=dd}"], ["--target", "x86_64-windows", "D@?jd"], ["v@?{?=b3b5}"],
    ]
    try Self.expectValid(
      inputs.map { try Self.documents(["decode", "--json"] + $0) }, schema: "blocksig-decode-1.schema.json")
    // Several inputs: JSON Lines, each line a document of the same schema.
    let lines = try Self.documents(["decode", "--json", "i20@?0i8r*12", "v24@0:8@16", "i12i0r*4"], jsonLines: true)
    #expect(lines.split(separator: "\n").count == 3)
    try Self.expectValid([lines.trimmingCharacters(in: .newlines)], schema: "blocksig-decode-1.schema.json")
  }

  @Test func check() throws {
    let pairs: [[String]] = [
      ["v16@?0i8i12", "v16@?0i8i12"], ["v20@?0q8i16", "v16@?0i8i12"],
      ["--level", "blockskit", "v@?@", "v@?@\"NSString\""],
      ["--level", "identical", "i@?I", "i@?i"],
    ]
    try Self.expectValid(
      pairs.map { try Self.documents(["check", "--json"] + $0) }, schema: "blocksig-check-1.schema.json")
  }

  @Test func convert() throws {
    let runs: [[String]] = [
      ["method", "v16@?0@8"], ["block", "v24@0:8@16"], ["method", "--from", "function", "i12i0r*4"],
      ["block", "--target", "i386-linux", "v12@0:4i8"],
    ]
    try Self.expectValid(
      runs.map { try Self.documents([$0[0], "--json"] + $0.dropFirst()) }, schema: "blocksig-convert-1.schema.json")
  }

  @Test func call() throws {
    let library = try InspectCLITests.library.get().path
    let calls: [[String]] = [
      ["--symbol", "bf_heap_captures_int", "100"], ["--symbol", "bf_heap_captures_struct", "0.25"],
      ["--symbol", "bf_struct_with_union", #"[1, {"member": 1, "value": 2.5}]"#],
      ["--variable", "bf_global_block_variable", "0.1", "3"],
    ]
    try Self.expectValid(
      calls.map { try Self.documents(["call", "--library", library, "--json"] + $0) },
      schema: "blocksig-call-1.schema.json")
  }

  @Test func inspect() throws {
    let library = try InspectCLITests.library.get().path
    let runs: [[String]] = [
      ["--symbol", "bf_int_long"], ["--symbol", "bf_heap_captures_int"], ["--variable", "bf_global_block_variable"],
    ]
    try Self.expectValid(
      runs.map { try Self.documents(["inspect", "--library", library, "--json"] + $0) },
      schema: "blocksig-inspect-1.schema.json")
  }

  @Test func table() throws {
    let folder = try TableCLITests.folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let header = folder.appendingPathComponent("ops.h").path
    try Self.expectValid(
      try ["ops", "ops_t"].map { record in
        try Self.documents(["table", header, "--struct", record, "--clang", Toolchain.clang, "--json"])
      }, schema: "blocksig-table-1.schema.json")
  }

  @Test func objcProtocol() throws {
    let shapes = GNUstepPrograms.fixtures.appendingPathComponent("Shapes.h").path
    let runs: [[String]] = [
      [shapes, "--protocol", "Shapes", "--gnustep"], [shapes, "--protocol", "Shapes", "--gnustep", "--adopted"],
      ["/usr/include/GNUstep/Foundation/NSXMLParser.h", "--protocol", "NSXMLParserDelegate", "--gnustep"],
    ]
    try Self.expectValid(
      try runs.map { try Self.documents(["objc", "protocol", "--clang", Toolchain.clang, "--json"] + $0) },
      schema: "blocksig-objc-protocol-1.schema.json")
  }

  @Test func dumpIsJSONLines() throws {
    let library = try InspectCLITests.library.get().path
    let (directory, object, _) = try DumpCLITests.object()
    defer { try? FileManager.default.removeItem(at: directory) }
    let lines = try Self.documents(["dump", "--json", library, object.path], jsonLines: true)
    #expect(lines.split(separator: "\n").count == 2)
    try Self.expectValid([lines], schema: "blocksig-dump-2.schema.json")

    // The validator is not a formality: the previous contract's keys are refused.
    let old = lines.replacingOccurrences(of: "\"dataModel\"", with: "\"data_model\"")
    #expect(try JSONSchemaValidator.errors(in: old, schema: "blocksig-dump-2.schema.json").count == 2)
  }
}
