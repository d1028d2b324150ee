import BlockSignature
import BlockSignatureFFI
import BlockSignatureObjC
import Testing

/// Messages sent through their type encodings to GNUstep's own classes.
@Suite struct MessageSendingTests {
  init() throws { try ObjCRuntime.loadFoundation() }

  @Test func stringLengthAndRange() throws {
    try ObjCRuntime.withAutoreleasePool {
      let text = try ObjCObject(string: "héllo, wörld")
      #expect(try text.send("length") == .unsigned(12))
      let comma = try ObjCObject(string: ",")
      #expect(try text.send("rangeOfString:", .object(comma)) == .aggregate([.unsigned(5), .unsigned(1)]))
      #expect(try text.stringValue() == "héllo, wörld")
    }
  }

  @Test func outOfRangeIndexIsATypedError() throws {
    try ObjCRuntime.withAutoreleasePool {
      let element = try ObjCObject(string: "x")
      let array = try #require(try ObjCClass(named: "NSArray").sendForObject("arrayWithObject:", .object(element)))
      #expect(try array.send("count") == .unsigned(1))
      let error = #expect(throws: ObjCError.self) { try array.send("objectAtIndex:", .unsigned(5)) }
      #expect(error?.kind == .exception)
      #expect(error?.exceptionName == "NSRangeException")
    }
  }
}
