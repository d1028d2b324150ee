import BlockSignature
import BlockSignatureFFI
import Foundation
import Synchronization
import TestSupport
import Testing

/// libxml2 parses documents through a SAX handler filled by a ``DynamicDelegate``: Swift
/// closures for the element, text and error members, a real delegate written in C for
/// `endDocument`, every other member NULL. The events must be the ones expat reports.
@Suite struct LibXML2DelegateTests {
  static let document = """
    <?xml version="1.0"?>
    <library owner="ann, bob" size="2">
      <book id="b1" lang="en"><title>Blocks &lt;in&gt; C &amp; more</title><pages>120</pages></book>
      <!-- a comment -->
      <book id="b2"><title><![CDATA[Swift & <C>]]></title><empty/></book>
      text &#65;&#x42; tail
    </library>
    """

  /// What the closures saw, in the format of ``SAXFixture/expatEvents(_:)``.
  final class Recorder: Sendable {
    let events = Mutex<[[String]]>([])
    let errors = Mutex<[String]>([])

    func text(_ characters: String) {
      events.withLock { events in
        if let last = events.last, last[0] == "text" {
          events[events.count - 1][1] += characters
        } else {
          events.append(["text", characters])
        }
      }
    }
  }

  typealias Start =
    @convention(block) (
      UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<UnsafePointer<CChar>?>?
    ) -> Void
  typealias End = @convention(block) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void
  typealias Error = @convention(block) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void
  typealias Characters = @convention(block) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int32) -> Void

  /// A delegate of the table `description` whose closures record into `recorder`, with C's
  /// `endDocument` counting into `documents`. Its `error` takes libxml2's first variadic
  /// argument: only a description that declares it has it implemented.
  static func delegate(
    recording recorder: Recorder, documents: UnsafeMutablePointer<Int32>, realTable: UnsafeMutableRawPointer,
    description: String = SAXFixture.description
  ) throws -> DynamicDelegate {
    let sax = try CallbackTable(parsing: description, name: "xmlSAXHandler")
    let endDocument = try #require(sax.member(named: "endDocument"))
    realTable.storeBytes(
      of: try SAXFixture.helper("c_end_document"), toByteOffset: endDocument.offset, as: UnsafeRawPointer.self)
    let delegate = try DynamicDelegate(
      sax, realDelegate: .init(table: realTable, context: UnsafeMutableRawPointer(documents)))

    let start: Start = { _, name, attributes in
      var pairs: [String] = []
      var next = attributes
      while let key = next?.pointee, let value = next?.advanced(by: 1).pointee {
        pairs += [String(cString: key), String(cString: value)]
        next = next?.advanced(by: 2)
      }
      recorder.events.withLock { $0.append(["start", String(cString: name!)] + pairs) }
    }
    let end: End = { _, name in recorder.events.withLock { $0.append(["end", String(cString: name!)]) } }
    let characters: Characters = { _, bytes, count in
      recorder.text(String(decoding: UnsafeBufferPointer(start: bytes, count: Int(count)), as: UTF8.self))
    }
    let error: Error = { _, format, message in
      recorder.errors.withLock { $0.append(String(cString: format!) + " " + String(cString: message!)) }
    }
    try delegate.implement("startElement", withBlock: unsafeBitCast(start, to: UnsafeRawPointer.self))
    try delegate.implement("endElement", withBlock: unsafeBitCast(end, to: UnsafeRawPointer.self))
    try delegate.implement("characters", withBlock: unsafeBitCast(characters, to: UnsafeRawPointer.self))
    if sax.member(named: "error")?.signature?.encoding.arguments.count == 3 {
      try delegate.implement("error", withBlock: unsafeBitCast(error, to: UnsafeRawPointer.self))
    }
    return delegate
  }

  @Test func layoutIsLibxml2s() throws {
    let sax = try CallbackTable(parsing: SAXFixture.description, name: "xmlSAXHandler")
    let offsets = try SAXFixture.helper("sax_offsets").assumingMemoryBound(to: Int.self)
    #expect(sax.members.map(\.offset) == (0..<sax.members.count).map { offsets[$0] })
    #expect(sax.size == (try SAXFixture.helper("sax_size").load(as: Int.self)))
  }

  /// Runs `body` with a recording delegate and the count of `endDocument` calls.
  static func withDelegate(
    description: String = SAXFixture.description,
    _ body: (DynamicDelegate, Recorder, UnsafeMutablePointer<Int32>) throws -> Void
  ) throws {
    let recorder = Recorder()
    let documents = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    documents.pointee = 0
    let realTable = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)
    realTable.initializeMemory(as: UInt8.self, repeating: 0, count: 512)
    defer {
      documents.deallocate()
      realTable.deallocate()
    }
    try body(
      try delegate(recording: recorder, documents: documents, realTable: realTable, description: description),
      recorder, documents)
  }

  @Test func eventsAgreeWithExpat() throws {
    try Self.withDelegate { delegate, recorder, documents in
      // Members without a block or a real function are NULL.
      let implemented: Set = ["startElement", "endElement", "characters", "error", "endDocument"]
      for member in delegate.callbackTable.members where member.signature != nil {
        #expect((try delegate.function(for: member.name) != nil) == implemented.contains(member.name), "\(member.name)")
      }

      let parse = try SAXFixture.parseMemory.get()
      let status = Self.document.withCString { parse(delegate.table, delegate.context, $0, Int32(strlen($0))) }
      #expect(status == 0)
      #expect(documents.pointee == 1, "the real delegate's endDocument ran once")
      #expect(recorder.errors.withLock { $0 }.isEmpty)

      let got = recorder.events.withLock { $0 }
      #expect(got == (try Self.expatEvents()))
      #expect(got.count > 15)
    }
  }

  /// The events expat reports for ``document``, each flattened like the recorder's.
  static func expatEvents() throws -> [[String]] {
    try SAXFixture.expatEvents(document).map { event -> [String] in
      let head = event.prefix(2).map { $0 as! String }
      let pairs = (event.count > 2 ? event[2] as! [[String]] : []).flatMap { $0 }
      return head + pairs
    }
  }

  @Test func malformedDocumentsReachTheErrorBlock() throws {
    try Self.withDelegate { delegate, recorder, _ in
      let parse = try SAXFixture.parseMemory.get()
      let status = "<a><b></a>".withCString { parse(delegate.table, delegate.context, $0, Int32(strlen($0))) }
      #expect(status != 0)
      let errors = recorder.errors.withLock { $0 }
      #expect(!errors.isEmpty)
      #expect(errors.contains { $0.contains("mismatch") }, "\(errors)")
    }
  }
}
