import BlockSignature
import BlockSignatureFFI
import BlockSignatureHeaders
import BlockSignatureObjC
import BlockSignatureSystem
import Foundation
import TestSupport
import Testing

/// GNUstep's `NSXMLParser` driven with a dynamic delegate whose methods are Swift closures (one
/// a ``DynamicBlock``, one a clang block from a fixture), one method left to a real delegate
/// compiled by gcc: the events must be those Python's expat reports for the same document.
/// Serialized: the real delegates record comments in one buffer of the fixture.
@Suite(.serialized) struct XMLParserDelegateTests {
  static let document = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE doc [<!ENTITY who "wörld">]>
    <doc xmlns:p="urn:example:p" lang="en" id="d1"><p:greeting kind="warm">héllo &who; &amp; more</p:greeting>\
    <empty/><!-- a comment --><code><![CDATA[if (a < b) { return; }]]></code></doc>
    """

  /// Every event as `[kind, …]`, adjacent text joined, in the order expat reports them.
  final class Recorder: Sendable {
    let events = Locked<[[String]]>([])

    func record(_ event: [String]) {
      events.withLock { events in
        if event[0] == "text", let last = events.last, last[0] == "text" {
          events[events.count - 1][1] += event[1]
        } else {
          events.append(event)
        }
      }
    }
  }

  /// NSXMLParserDelegate read from GNUstep's header by clang (every method is `@optional`, so
  /// the runtime has no types for them).
  static let protocolDescription: Result<ObjCProtocolDescription, any Error> = Result {
    let arguments = try #require(HeaderReader.gnustepArguments(), "gnustep-config is missing")
    let reader = HeaderReader(clang: Toolchain.clang, arguments: arguments)
    return try reader.objcProtocol(
      header: "/usr/include/GNUstep/Foundation/NSXMLParser.h", named: "NSXMLParserDelegate")
  }

  /// The delegate methods' types: from the header, each checked against what gcc writes for a
  /// class implementing it.
  static func methods() throws -> [ObjCMethodDescription] {
    let description = try protocolDescription.get()
    _ = try OracleFixture.handle.get()
    let compiled = try ObjCClass(named: "BSCompiledXMLDelegate")
    for method in compiled.methods {
      let header = try #require(description.method(selector: method.selector.name), "\(method.selector)")
      let report = CompatibilityChecker(level: .abi, model: header.signature.model).check(
        try method.signature().encoding, against: header.signature.encoding)
      #expect(report.isCompatible, "\(method.selector): gcc \(method.typeEncoding), clang \(header.signature)")
    }
    return description.methods.map(ObjCMethodDescription.init)
  }

  static func string(_ argument: CValue) throws -> String {
    guard case .pointer(let address) = argument, let object = UnsafeRawPointer(bitPattern: address) else { return "" }
    return try ObjCObject(retaining: object).stringValue()
  }

  /// `[[key, value], …]` sorted by key: NSDictionary keeps no document order.
  static func attributes(_ argument: CValue) throws -> [String] {
    guard case .pointer(let address) = argument, let pointer = UnsafeRawPointer(bitPattern: address) else { return [] }
    let dictionary = try ObjCObject(retaining: pointer)
    let keys = try #require(try dictionary.sendForObject("allKeys"))
    guard case .unsigned(let count) = try keys.send("count") else { return [] }
    var pairs: [(String, String)] = []
    for index in 0..<Int(count) {
      let key = try #require(try keys.sendForObject("objectAtIndex:", .unsigned(UInt128(index))))
      let value = try #require(try dictionary.sendForObject("objectForKey:", .object(key)))
      pairs.append((try key.stringValue(), try value.stringValue()))
    }
    return pairs.sorted { $0.0 < $1.0 }.flatMap { [$0.0, $0.1] }
  }

  /// A clang block (`void (^)(void *parser)`) that counts its calls, from a fixture library.
  static func countingBlock() throws -> (block: UnsafeRawPointer, count: () -> Int32) {
    let source = """
      static int calls;
      static void (^counting)(void *) = ^(void *parser) { (void)parser; calls += 1; };
      const void *counting_block(void) { return (const void *)counting; }
      int counting_calls(void) { return calls; }
      """
    let (folder, library) = try Toolchain.compileC(
      source, arguments: ["-fblocks", "-shared", "-fPIC"], output: "libcounting.so")
    defer { try? FileManager.default.removeItem(at: folder) }
    let handle = try #require(dlopen(library.path, RTLD_NOW))
    let block = unsafeBitCast(dlsym(handle, "counting_block"), to: (@convention(c) () -> UnsafeRawPointer).self)()
    let count = unsafeBitCast(dlsym(handle, "counting_calls"), to: (@convention(c) () -> Int32).self)
    return (block, { count() })
  }

  static func expatEvents() throws -> [[String]] {
    let script = #"""
      import json, sys, xml.parsers.expat
      events, cdata = [], [False]
      def text(kind, data):
          if events and events[-1][0] == kind: events[-1][1] += data
          else: events.append([kind, data])
      p = xml.parsers.expat.ParserCreate()
      p.StartElementHandler = lambda n, a: events.append(["start", n] + [x for k in sorted(a) for x in (k, a[k])])
      p.EndElementHandler = lambda n: events.append(["end", n])
      p.CharacterDataHandler = lambda d: text("cdata" if cdata[0] else "text", d)
      p.StartCdataSectionHandler = lambda: cdata.__setitem__(0, True)
      p.EndCdataSectionHandler = lambda: cdata.__setitem__(0, False)
      p.CommentHandler = lambda d: events.append(["comment", d])
      p.Parse(sys.stdin.buffer.read(), True)
      print(json.dumps(events))
      """#
    let output = try Toolchain.run("/usr/bin/env", ["python3", "-c", script], stdin: document)
    try #require(output.status == 0, "python3: \(output.stderr)")
    return try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String]])
  }

  /// Parses ``document`` with `delegate` (an object) as the parser's delegate.
  static func parse(delegate: UnsafeRawPointer) throws -> CValue {
    try ObjCRuntime.withAutoreleasePool { () throws -> CValue in
      let text = try ObjCObject(string: Self.document)
      let data = try #require(try text.sendForObject("dataUsingEncoding:", .unsigned(4)))  // NSUTF8StringEncoding
      let parser = ObjCObject(
        adopting: try #require(
          try ObjCClass(named: "NSXMLParser").makeInstanceAllocated("initWithData:", .object(data))))
      try parser.send("setDelegate:", .pointer(UInt(bitPattern: delegate)))
      return try parser.send("parse")
    }
  }

  /// Methods typed in, as the README does, without `parser:foundComment:`: the comments reach
  /// the real delegate (through `respondsToSelector:`, `methodForSelector:` and GNUstep's
  /// forwarding), as they do when the compiled delegate is the parser's own.
  @Test func theRealDelegateGetsWhatNoMethodListed() throws {
    try ObjCRuntime.loadFoundation()
    let makeReal = try OracleFixture.function(
      "oracle_real_xml_delegate", as: (@convention(c) () -> UnsafeRawPointer).self)
    let realComments = try OracleFixture.function(
      "oracle_real_xml_comments", as: (@convention(c) () -> UnsafePointer<CChar>).self)
    let compiled = ObjCObject(adopting: makeReal())
    #expect(try Self.parse(delegate: compiled.pointer) == .unsigned(1))
    let alone = String(cString: realComments())
    #expect(alone == " a comment ")

    let real = ObjCObject(adopting: makeReal())
    let delegate = try ObjCDynamicDelegate(
      protocolName: "NSXMLParserDelegate",
      methods: [
        ObjCMethodDescription(selector: "parserDidStartDocument:", types: "v24@0:8@16"),
        ObjCMethodDescription(
          selector: "parser:didStartElement:namespaceURI:qualifiedName:attributes:", types: "v56@0:8@16@24@32@40@48"),
        ObjCMethodDescription(selector: "parser:foundCharacters:", types: "v32@0:8@16@24"),
        ObjCMethodDescription(selector: "parserDidEndDocument:", types: "v24@0:8@16"),
      ], realDelegate: real)
    let elements = Recorder()
    try delegate.implement("parser:didStartElement:namespaceURI:qualifiedName:attributes:") { arguments in
      elements.record(["start", try Self.string(arguments[1])])
      return .void
    }
    #expect(delegate.responds(to: "parser:foundComment:"))
    #expect(delegate.responds(to: "parser:foundCharacters:"))
    #expect(try Self.parse(delegate: delegate.object.pointer) == .unsigned(1))
    #expect(String(cString: realComments()) == alone)
    #expect(elements.events.withLock { $0.map { $0[1] } } == ["doc", "p:greeting", "empty", "code"])
  }

  @Test func parsesAsExpatDoes() throws {
    try ObjCRuntime.loadFoundation()
    let makeReal = try OracleFixture.function(
      "oracle_real_xml_delegate", as: (@convention(c) () -> UnsafeRawPointer).self)
    let real = ObjCObject(adopting: makeReal())
    let delegate = try ObjCDynamicDelegate(
      protocolName: "NSXMLParserDelegate", methods: try Self.methods(), realDelegate: real)
    let recorder = Recorder()
    typealias Object = UnsafeRawPointer?
    let startDocument: @convention(block) (Object) -> Void = { _ in recorder.record(["startDocument"]) }
    try delegate.implement(
      "parserDidStartDocument:", withBlock: unsafeBitCast(startDocument, to: UnsafeRawPointer.self))
    let start: @convention(block) (Object, Object, Object, Object, Object) -> Void = { _, name, _, _, attributes in
      let name = (try? Self.string(.pointer(UInt(bitPattern: name)))) ?? "?"
      recorder.record(["start", name] + ((try? Self.attributes(.pointer(UInt(bitPattern: attributes)))) ?? ["?"]))
    }
    try delegate.implement(
      "parser:didStartElement:namespaceURI:qualifiedName:attributes:",
      withBlock: unsafeBitCast(start, to: UnsafeRawPointer.self))
    // The delegate first, as imp_implementationWithBlock's blocks take it.
    let end: @convention(block) (Object, Object, Object, Object, Object) -> Void = { this, _, name, _, _ in
      #expect(this != nil)
      recorder.record(["end", (try? Self.string(.pointer(UInt(bitPattern: name)))) ?? "?"])
    }
    try delegate.implement(
      "parser:didEndElement:namespaceURI:qualifiedName:", withBlock: unsafeBitCast(end, to: UnsafeRawPointer.self))
    // A made block with a typed handler.
    try delegate.implement("parser:foundCharacters:") { arguments in
      recorder.record(["text", try Self.string(arguments[1])])
      return .void
    }
    let cdata: @convention(block) (Object, Object) -> Void = { _, data in
      guard let data, let object = try? ObjCObject(retaining: data),
        case .unsigned(let length)? = try? object.send("length"), case .pointer(let bytes)? = try? object.send("bytes"),
        let start = UnsafeRawPointer(bitPattern: bytes)
      else { return recorder.record(["cdata", "?"]) }
      recorder.record([
        "cdata", String(decoding: UnsafeRawBufferPointer(start: start, count: Int(length)), as: UTF8.self),
      ])
    }
    try delegate.implement("parser:foundCDATA:", withBlock: unsafeBitCast(cdata, to: UnsafeRawPointer.self))
    let counting = try Self.countingBlock()
    try delegate.implement("parserDidEndDocument:", withBlock: counting.block)

    // respondsToSelector:, asked by compiled code: a block, or whatever the real delegate answers
    // (GNUstep's NSObject answers every NSXMLParserDelegate method with an empty default).
    let responds = try OracleFixture.function(
      "oracle_responds", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt8).self)
    let alone = try ObjCDynamicDelegate(protocolName: "NSXMLParserDelegate", methods: try Self.methods())
    try alone.implement("parser:foundCDATA:", withBlock: unsafeBitCast(cdata, to: UnsafeRawPointer.self))
    for name in ["parser:foundCDATA:", "parser:foundComment:", "parser:foundIgnorableWhitespace:"] {
      let selector = Selector(name)
      let withBlock = name == "parser:foundCDATA:"
      #expect(alone.responds(to: selector) == withBlock)
      #expect(responds(alone.object.pointer, selector.pointer) == (withBlock ? 1 : 0))
      #expect(
        responds(delegate.object.pointer, selector.pointer)
          == (withBlock ? 1 : responds(real.pointer, selector.pointer)))
    }
    #expect(responds(alone.object.pointer, Selector("description").pointer) == 1)
    #expect(responds(alone.object.pointer, Selector("noSuchMethod").pointer) == 0)

    let parsed = try ObjCRuntime.withAutoreleasePool { () throws -> CValue in
      let text = try ObjCObject(string: Self.document)
      let data = try #require(try text.sendForObject("dataUsingEncoding:", .unsigned(4)))  // NSUTF8StringEncoding
      let parserClass = try ObjCClass(named: "NSXMLParser")
      let parser = ObjCObject(
        adopting: try #require(try parserClass.makeInstanceAllocated("initWithData:", .object(data))))
      try parser.send("setDelegate:", .object(delegate.object))
      return try parser.send("parse")
    }
    #expect(parsed == .unsigned(1))
    let expat = try Self.expatEvents()
    let comments = expat.filter { $0[0] == "comment" }.map { $0[1] }.joined()
    let expected = [["startDocument"]] + expat.filter { $0[0] != "comment" }
    #expect(recorder.events.withLock { $0 } == expected)
    #expect(counting.count() == 1)
    let realComments = try OracleFixture.function(
      "oracle_real_xml_comments", as: (@convention(c) () -> UnsafePointer<CChar>).self)
    #expect(String(cString: realComments()) == comments)
  }
}
