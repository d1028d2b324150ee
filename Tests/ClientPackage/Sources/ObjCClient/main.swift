// The README's Objective-C example, as written there (Scripts/client-test.sh compares its
// output with the README's comments).
import BlockSignatureFFI
import BlockSignatureObjC

try ObjCRuntime.withAutoreleasePool {
  // Messages, the types taken from the runtime: an NSRange comes back as two integers.
  let text = try ObjCObject(string: "héllo, wörld")
  print(try text.send("length"))  // 12
  print(try text.send("rangeOfString:", .object(ObjCObject(string: ","))))  // [5, 1]

  // A method made from a Swift block, added to GNUstep's own NSString.
  let vowels: @convention(block) (UnsafeRawPointer?) -> UInt = { this in
    guard let this, let text = try? ObjCObject(retaining: this).stringValue() else { return 0 }
    return UInt(text.filter { "aeiouéö".contains($0) }.count)
  }
  try ObjCClass(named: "NSString").addMethod(
    "vowelCount", types: "Q16@0:8", block: unsafeBitCast(vowels, to: UnsafeRawPointer.self))
  print(try text.send("vowelCount"))  // 3

  // NSXMLParser's delegate, made of blocks. GCC's runtime records no types for a protocol's
  // @optional methods: they come from the header (`blocksig objc protocol`) or, here, as text.
  let delegate = try ObjCDynamicDelegate(
    protocolName: "NSXMLParserDelegate",
    methods: [
      ObjCMethodDescription(
        selector: "parser:didStartElement:namespaceURI:qualifiedName:attributes:", types: "v56@0:8@16@24@32@40@48"),
      ObjCMethodDescription(selector: "parser:foundCharacters:", types: "v32@0:8@16@24"),
    ])
  try delegate.implement("parser:didStartElement:namespaceURI:qualifiedName:attributes:") { arguments in
    print("start", try ObjCObject(retaining: arguments[1]).stringValue())  // start greeting
    return .void
  }
  try delegate.implement("parser:foundCharacters:") { arguments in
    print("text", try ObjCObject(retaining: arguments[1]).stringValue())  // text hello
    return .void
  }
  let xml = try ObjCObject(string: "<greeting lang='en'>hello</greeting>")
  let data = try xml.sendForObject("dataUsingEncoding:", .unsigned(4))  // NSUTF8StringEncoding
  let parser = ObjCObject(
    adopting: try ObjCClass(named: "NSXMLParser").makeInstanceAllocated("initWithData:", .object(data))!)
  try parser.send("setDelegate:", .object(delegate.object))
  print(try parser.send("parse"))  // 1 (YES)
}
