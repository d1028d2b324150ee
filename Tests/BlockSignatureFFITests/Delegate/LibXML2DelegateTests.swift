import BlockSignature
import BlockSignatureFFI
import Foundation
import LibXML2Support
import Synchronization
import TestSupport
import Testing

/// libxml2 parses documents through a SAX handler filled by a ``DynamicDelegate``: Swift
/// closures for the element, text and error members, a real delegate written in C for
/// `endDocument`, every other member NULL. The events must be the ones expat reports.
@Suite struct LibXML2DelegateTests {
  @Test func layoutIsLibxml2s() throws {
    let sax = try CallbackTable(parsing: SAXFixture.description, name: "xmlSAXHandler")
    let offsets = try SAXFixture.helper("sax_offsets").assumingMemoryBound(to: Int.self)
    #expect(sax.members.map(\.offset) == (0..<sax.members.count).map { offsets[$0] })
    #expect(sax.size == (try SAXFixture.helper("sax_size").load(as: Int.self)))
  }

  @Test func eventsAgreeWithExpat() throws {
    try RecordingSAXDelegate.withDelegate { delegate, recorder, documents in
      // Members without a block or a real function are NULL.
      let implemented: Set = ["startElement", "endElement", "characters", "error", "endDocument"]
      for member in delegate.callbackTable.members where member.signature != nil {
        #expect((try delegate.function(for: member.name) != nil) == implemented.contains(member.name), "\(member.name)")
      }

      let parse = try SAXFixture.parseMemory.get()
      let status = RecordingSAXDelegate.document.withCString {
        parse(delegate.table, delegate.context, $0, Int32(strlen($0)))
      }
      #expect(status == 0)
      #expect(documents.pointee == 1, "the real delegate's endDocument ran once")
      #expect(recorder.errors.withLock { $0 }.isEmpty)

      let got = recorder.events.withLock { $0 }
      #expect(got == (try RecordingSAXDelegate.expatEvents()))
      #expect(got.count > 15)
    }
  }

  @Test func malformedDocumentsReachTheErrorBlock() throws {
    try RecordingSAXDelegate.withDelegate { delegate, recorder, _ in
      let parse = try SAXFixture.parseMemory.get()
      let status = "<a><b></a>".withCString { parse(delegate.table, delegate.context, $0, Int32(strlen($0))) }
      #expect(status != 0)
      let errors = recorder.errors.withLock { $0 }
      #expect(!errors.isEmpty)
      #expect(errors.contains { $0.contains("mismatch") }, "\(errors)")
    }
  }
}
