import BlockSignatureFFI
import Foundation
import LibXML2Support
import Synchronization
import Testing

/// Members implemented by handlers made from the member's signature: raw views of a call and
/// the delegate's context, called by C (libxml2, the ops fixture compiled by clang).
@Suite struct DelegateHandlerTests {
  @Test func aRawHandlerReadsLenBytesWhereCPassesNoTerminator() throws {
    let delegate = try DynamicDelegate(try CallbackTable(parsing: SAXFixture.description, name: "xmlSAXHandler"))
    let texts = Mutex<[String]>([])
    // void characters(void *ctx, const xmlChar *ch, int len): `ch` points into the document.
    try delegate.implement("characters") { (call: DynamicBlock.Call) in
      let bytes = call.argumentAddress(1).load(as: UnsafePointer<UInt8>.self)
      let count = Int(call.argumentAddress(2).load(as: Int32.self))
      let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
      texts.withLock { $0.append(text) }
    }
    let parse = try SAXFixture.parseMemory.get()
    let status = "<a>hello<b/>world</a>".withCString { parse(delegate.table, delegate.context, $0, Int32(strlen($0))) }
    #expect(status == 0)
    #expect(texts.withLock { $0 } == ["hello", "world"])
  }

  @Test func aContextHandlerReachesItsDelegate() throws {
    let delegate = try DynamicDelegate(try CallbackTable(parsing: OpsFixture.description, name: "ops"))
    try delegate.setValue(.unsigned(1000), of: "version")
    let seen = Mutex<[UInt]>([])
    try delegate.implement("add") { context, arguments in
      seen.withLock { $0.append(UInt(bitPattern: context)) }
      let owner = Unmanaged<DynamicDelegate>.fromOpaque(context).takeUnretainedValue()
      guard case .unsigned(let version) = try owner.value(of: "version"), case .pointer(let passed) = arguments[0],
        case .signed(let a) = arguments[1], case .signed(let b) = arguments[2]
      else { return .signed(-1) }
      return .signed(a + b + Int128(version) + (passed == UInt(bitPattern: context) ? 0 : 1_000_000))
    }
    let report = try OpsFixture.run(delegate.table, context: delegate.context)
    #expect(report.contains(" add=1042 "), "\(report)")
    #expect(seen.withLock { $0 } == [UInt(bitPattern: delegate.context)])
  }

  @Test func aRawHandlerFindsTheContextInItsCall() throws {
    let delegate = try DynamicDelegate(try CallbackTable(parsing: OpsFixture.description, name: "ops"))
    let seen = Mutex<[UInt?]>([])
    try delegate.implement("add") { (call: DynamicBlock.Call) in
      seen.withLock { $0.append(call.context.map(UInt.init(bitPattern:))) }
      let sum = call.argumentAddress(1).load(as: Int32.self) + call.argumentAddress(2).load(as: Int32.self)
      call.result.storeBytes(of: sum, as: Int32.self)
    }
    let report = try OpsFixture.run(delegate.table, context: delegate.context)
    #expect(report.contains(" add=42 "), "\(report)")
    #expect(seen.withLock { $0 } == [UInt(bitPattern: delegate.context)])
  }

  @Test func aBlockMadeOnItsOwnHasNoContext() throws {
    let seen = Mutex<[Bool]>([])
    let made = try DynamicBlock(signature: "v@?") { (call: DynamicBlock.Call) in
      seen.withLock { $0.append(call.context == nil) }
    }
    _ = try made.withBlock { block throws(InvocationError) in try BlockInvocation(block: block).invoke([]) }
    #expect(seen.withLock { $0 } == [true])
  }
}
