import BlockSignature
import BlockSignatureFFI
import BlockSignatureHeaders
import Foundation
import LibXML2Support
import Synchronization
import TestSupport
import Testing

/// libxml2's SAX handler read from its own header by `HeaderReader` (what `blocksig table`
/// prints): the same members at the same places as the description written by hand, each
/// function compatible with it, and a table that drives libxml2 to the events expat reports.
@Suite struct LibXML2HeaderTableTests {
  static let text: Result<String, any Error> = Result {
    let reader = HeaderReader(clang: Toolchain.clang, arguments: ["-I/usr/include/libxml2"])
    return try reader.table(header: "/usr/include/libxml2/libxml/parser.h", struct: "xmlSAXHandler").text
  }

  @Test func agreesWithTheHandWrittenTable() throws {
    let fromHeader = try CallbackTable(parsing: try Self.text.get(), name: "xmlSAXHandler")
    let byHand = try CallbackTable(parsing: SAXFixture.description, name: "xmlSAXHandler")
    #expect(fromHeader.members.map(\.name) == byHand.members.map(\.name))
    #expect(fromHeader.members.map(\.offset) == byHand.members.map(\.offset))
    #expect(fromHeader.members.map(\.size) == byHand.members.map(\.size))
    #expect(fromHeader.size == byHand.size)
    let checker = CompatibilityChecker(level: .abi, model: fromHeader.model)
    for (header, hand) in zip(fromHeader.members, byHand.members) {
      switch (header.kind, hand.kind) {
      case (.data(let headerType), .data(let handType)):
        #expect(headerType == handType, "\(header.name)")
      case (.function(let headerSignature), .function(let handSignature)):
        var expected = handSignature.encoding
        if header.name == "error" {
          // By hand with libxml2's first variadic argument; the header has the fixed part.
          #expect(expected.arguments.count == headerSignature.encoding.arguments.count + 1)
          expected.arguments.removeLast()
          expected.frameLength = nil
        }
        let report = checker.check(headerSignature.encoding, against: expected)
        #expect(report.isCompatible, "\(header.name): \(headerSignature) vs \(handSignature): \(report.diagnostics)")
      default:
        Issue.record("\(header.name): \(header.kind) vs \(hand.kind)")
      }
    }
    // The variadic members are marked.
    let variadic = try Self.text.get().split(separator: "\n").filter { $0.hasSuffix("# variadic: the fixed part") }
    #expect(variadic.map { String($0.prefix { $0 != " " }) } == ["warning", "error", "fatalError"])
  }

  /// The table from the header, filled with the same closures, makes libxml2 report what expat
  /// reports; its members without a block are NULL.
  @Test func drivesLibxml2LikeTheHandWrittenOne() throws {
    try RecordingSAXDelegate.withDelegate(description: try Self.text.get()) { delegate, recorder, documents in
      let implemented: Set = ["startElement", "endElement", "characters", "endDocument"]
      for member in delegate.callbackTable.members where member.signature != nil {
        #expect((try delegate.function(for: member.name) != nil) == implemented.contains(member.name), "\(member.name)")
      }
      let parse = try SAXFixture.parseMemory.get()
      let document = RecordingSAXDelegate.document
      let status = document.withCString { parse(delegate.table, delegate.context, $0, Int32(strlen($0))) }
      #expect(status == 0)
      #expect(documents.pointee == 1)
      #expect(recorder.events.withLock { $0 } == (try RecordingSAXDelegate.expatEvents()))
    }
  }
}
