// A libxml2 SAX handler filled by a `DynamicDelegate` whose closures record the events, for
// the tests that drive libxml2 through a callback table (FFI's written by hand, Headers' read
// from libxml2's header).

import BlockSignature
import BlockSignatureFFI
import Foundation
import Synchronization
import TestSupport
import Testing

/// A recording delegate for libxml2's SAX handler, and the document it parses.
package enum RecordingSAXDelegate {
  package static let document = """
    <?xml version="1.0"?>
    <library owner="ann, bob" size="2">
      <book id="b1" lang="en"><title>Blocks &lt;in&gt; C &amp; more</title><pages>120</pages></book>
      <!-- a comment -->
      <book id="b2"><title><![CDATA[Swift & <C>]]></title><empty/></book>
      text &#65;&#x42; tail
    </library>
    """

  /// What the closures saw, in the format of ``SAXFixture/expatEvents(_:)``.
  package final class Recorder: Sendable {
    package let events = Mutex<[[String]]>([])
    package let errors = Mutex<[String]>([])

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

  package typealias Start =
    @convention(block) (
      UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<UnsafePointer<CChar>?>?
    ) -> Void
  package typealias End = @convention(block) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void
  package typealias Error =
    @convention(block) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void
  package typealias Characters = @convention(block) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int32) -> Void

  /// A delegate of the table `description` whose closures record into `recorder`, with C's
  /// `endDocument` counting into `documents`. Its `error` takes libxml2's first variadic
  /// argument: only a description that declares it has it implemented.
  package static func delegate(
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

  /// Runs `body` with a recording delegate and the count of `endDocument` calls.
  package static func withDelegate(
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

  /// The events expat reports for ``document``, each flattened like the recorder's.
  package static func expatEvents() throws -> [[String]] {
    try SAXFixture.expatEvents(document).map { event -> [String] in
      let head = event.prefix(2).map { $0 as! String }
      let pairs = (event.count > 2 ? event[2] as! [[String]] : []).flatMap { $0 }
      return head + pairs
    }
  }
}
