import BlockSignatureFFI
import Foundation
import TestSupport
import Testing

/// libxml2's `xmlSAXHandler` described as a callback table, libxml2 itself (loaded with
/// `dlopen`), and two oracles: clang's layout of the struct from libxml2's own header, and the
/// events Python's expat (an independent parser) reports for a document.
package enum SAXFixture {
  /// `struct _xmlSAXHandler` of libxml2 2.9 (`libxml/parser.h`), member by member. The
  /// variadic members are described by their fixed part; `error` also by its first variadic
  /// argument, which x86-64 and AArch64 Linux pass where a fixed one would go.
  package static let description = """
    internalSubset         function  v^vr*r*r*
    isStandalone           function  i^v
    hasInternalSubset      function  i^v
    hasExternalSubset      function  i^v
    resolveEntity          function  ^v^vr*r*
    getEntity              function  ^v^vr*
    entityDecl             function  v^vr*ir*r**
    notationDecl           function  v^vr*r*r*
    attributeDecl          function  v^vr*r*iir*^v
    elementDecl            function  v^vr*i^v
    unparsedEntityDecl     function  v^vr*r*r*r*
    setDocumentLocator     function  v^v^v
    startDocument          function  v^v
    endDocument            function  v^v
    startElement           function  v^vr*^r*
    endElement             function  v^vr*
    reference              function  v^vr*
    characters             function  v^vr*i
    ignorableWhitespace    function  v^vr*i
    processingInstruction  function  v^vr*r*
    comment                function  v^vr*
    warning                function  v^vr*     # variadic: the fixed part
    error                  function  v^vr*r*   # variadic: libxml2 passes ("%s", message)
    fatalError             function  v^vr*     # variadic: the fixed part
    getParameterEntity     function  ^v^vr*
    cdataBlock             function  v^vr*i
    externalSubset         function  v^vr*r*r*
    initialized            data      I
    _private               data      ^v
    startElementNs         function  v^vr*r*r*i^r*ii^r*
    endElementNs           function  v^vr*r*r*
    serror                 function  v^v^v
    """

  package static var memberNames: [String] {
    description.split(separator: "\n").map { String($0.split(separator: " ")[0]) }
  }

  /// Clang's offsets of every member and the struct's size, from libxml2's header, and a real
  /// delegate's `endDocument` written in C that counts through its context.
  nonisolated(unsafe) package static let helpers: Result<UnsafeMutableRawPointer, any Error> = Result {
    let offsets = memberNames.map { "offsetof(xmlSAXHandler, \($0))" }.joined(separator: ", ")
    let source = """
      #include <stddef.h>
      #include <libxml/parser.h>
      size_t sax_offsets[] = { \(offsets) };
      size_t sax_size = sizeof(xmlSAXHandler);
      void c_end_document(void *ctx) { (*(int *)ctx)++; }
      """
    return try CompiledCLibrary(source, named: "sax", flags: ["-I/usr/include/libxml2", "-w"]).handle
  }

  package static func helper(_ name: String) throws -> UnsafeMutableRawPointer {
    try #require(dlsym(try helpers.get(), name), "no symbol \(name)")
  }

  package typealias ParseMemory =
    @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer?, UnsafePointer<CChar>, Int32) -> Int32

  /// libxml2's `xmlSAXUserParseMemory`.
  package static let parseMemory: Result<ParseMemory, any Error> = Result {
    guard let libxml2 = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL) else {
      throw LoadFailure(message: String(cString: dlerror()))
    }
    let symbol = try #require(dlsym(libxml2, "xmlSAXUserParseMemory"))
    return unsafeBitCast(symbol, to: ParseMemory.self)
  }

  /// The events expat reports for `document`: `["start", name, [[attribute, value], …]]`,
  /// `["end", name]`, `["text", characters]` (adjacent text joined).
  package static func expatEvents(_ document: String) throws -> [[Any]] {
    let script = #"""
      import json, sys, xml.sax
      class Handler(xml.sax.ContentHandler):
          def __init__(self):
              super().__init__()
              self.events = []
          def text(self, data):
              if self.events and self.events[-1][0] == "text":
                  self.events[-1][1] += data
              else:
                  self.events.append(["text", data])
          def startElement(self, name, attrs):
              self.events.append(["start", name, [[k, attrs[k]] for k in attrs.getNames()]])
          def endElement(self, name):
              self.events.append(["end", name])
          def characters(self, data):
              self.text(data)
      handler = Handler()
      xml.sax.parseString(sys.stdin.buffer.read(), handler)
      print(json.dumps(handler.events))
      """#
    let output = try Toolchain.run("/usr/bin/env", ["python3", "-c", script], stdin: document)
    try #require(output.status == 0, "python3: \(output.stderr)")
    return try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[Any]])
  }
}
