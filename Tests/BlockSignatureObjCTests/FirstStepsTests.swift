import BlockSignature
import BlockSignatureFFI
import BlockSignatureHeaders
import BlockSignatureObjC
import Foundation
import Testing

/// What a new user meets first, each in a fresh process: a Foundation class named before
/// GNUstep Base is loaded, a header read without clang on `PATH`, and the README's flow run
/// without an autorelease pool of one's own.
@Suite struct FirstStepsTests {
  @Test func aFoundationClassBeforeGNUstepIsLoaded() async {
    await #expect(processExitsWith: .success) {
      // Nothing in the test process has loaded GNUstep Base yet.
      typealias LookUp = @convention(c) (UnsafePointer<CChar>) -> UnsafeRawPointer?
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "objc_lookUpClass") else { exit(2) }
      guard unsafeBitCast(symbol, to: LookUp.self)("NSObject") == nil else { exit(3) }
      guard let object = try? ObjCClass(named: "NSObject"), object.name == "NSObject" else { exit(4) }
      do throws(ObjCError) {
        _ = try ObjCClass(named: "BSNoSuchClass")
        exit(5)
      } catch {
        guard error.kind == .unknownClass, error.message.contains("GNUstep Base is loaded") else { exit(6) }
      }
    }
  }

  /// GNUstep loaded from a thread that is not the process's main one never learns the main
  /// thread; a GNUstep thread that then ends must end alone, not take the process with it
  /// (`+[NSThread exit]` calls `exit(0)` when it knows no main thread).
  @Test func aGNUstepThreadThatEndsLeavesTheProcessRunning() async {
    await #expect(processExitsWith: .exitCode(7)) {
      let loader = Thread {
        guard let thread = try? ObjCClass(named: "NSThread"), let object = try? ObjCClass(named: "NSObject") else {
          exit(2)
        }
        // A thread that sends +class to NSObject and ends.
        guard
          (try? thread.send(
            "detachNewThreadSelector:toTarget:withObject:", .selector(Selector("class")), .objcClass(object),
            .pointer(0))) != nil
        else { exit(3) }
      }
      loader.start()
      sleep(2)
      exit(7)
    }
  }

  @Test func aHeaderReadWithoutClangOnPathNamesTheInitializer() async throws {
    let result = try await #require(processExitsWith: .success, observing: [\.standardErrorContent]) {
      setenv("PATH", "/nonexistent", 1)
      do throws(HeaderReaderError) {
        _ = try HeaderReader().objcProtocol(
          header: "/usr/include/GNUstep/Foundation/NSXMLParser.h", named: "NSXMLParserDelegate")
        exit(2)
      } catch {
        guard error.kind == .compilerNotFound else { exit(3) }
        FileHandle.standardError.write(Data(error.message.utf8))
      }
    }
    let message = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(message == "clang: no such compiler on PATH (give its path as HeaderReader(clang:))")
    let missing = #expect(throws: HeaderReaderError.self) {
      try HeaderReader(clang: "/nonexistent/clang").objcProtocol(
        header: "/usr/include/GNUstep/Foundation/NSXMLParser.h", named: "NSXMLParserDelegate")
    }
    #expect(missing?.message == "/nonexistent/clang: no such compiler (give its path as HeaderReader(clang:))")
  }

  /// The README's Objective-C example, run once with no pool of the user's and once inside
  /// `ObjCRuntime.withAutoreleasePool`: GNUstep never complains of a missing pool.
  @Test func theREADMEFlowWithoutAPoolOfOnesOwn() async throws {
    let result = try #require(
      await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
        guard (try? FirstStepsTests.readmeFlow()) == 1 else { exit(2) }
        guard (try? ObjCRuntime.withAutoreleasePool { try FirstStepsTests.readmeFlow() }) == 1 else { exit(3) }
        let thread = Thread { exit((try? FirstStepsTests.readmeFlow()) == 1 ? 0 : 4) }
        thread.start()
        while true { sleep(1) }
      })
    let stderr = String(decoding: result.standardErrorContent, as: UTF8.self)
    #expect(!stderr.contains("autorelease called without pool"), "\(stderr)")
  }

  /// The README's example: messages, a method made from a block, NSXMLParser with a dynamic
  /// delegate. Returns what `parse` answered (1 for YES).
  static func readmeFlow() throws -> UInt128 {
    let text = try ObjCObject(string: "héllo, wörld")
    guard try text.send("length") == .unsigned(12),
      try text.send("rangeOfString:", .object(ObjCObject(string: ","))) == .aggregate([.unsigned(5), .unsigned(1)])
    else { return 0 }
    let vowels: @convention(block) (UnsafeRawPointer?) -> UInt = { this in
      guard let this, let text = try? ObjCObject(retaining: this).stringValue() else { return 0 }
      return UInt(text.filter { "aeiouéö".contains($0) }.count)
    }
    let stringClass = try ObjCClass(named: "NSString")
    if !stringClass.instancesRespond(to: "vowelCount") {
      try stringClass.addMethod("vowelCount", types: "Q16@0:8", block: unsafeBitCast(vowels, to: UnsafeRawPointer.self))
    }
    guard try text.send("vowelCount") == .unsigned(3) else { return 0 }
    let delegate = try ObjCDynamicDelegate(
      protocolName: "NSXMLParserDelegate",
      methods: [
        ObjCMethodDescription(
          selector: "parser:didStartElement:namespaceURI:qualifiedName:attributes:", types: "v56@0:8@16@24@32@40@48"),
        ObjCMethodDescription(selector: "parser:foundCharacters:", types: "v32@0:8@16@24"),
      ])
    try delegate.implement("parser:didStartElement:namespaceURI:qualifiedName:attributes:") { arguments in
      _ = try ObjCObject(retaining: arguments[1]).stringValue()
      return .void
    }
    try delegate.implement("parser:foundCharacters:") { arguments in
      _ = try ObjCObject(retaining: arguments[1]).stringValue()
      return .void
    }
    let xml = try ObjCObject(string: "<greeting lang='en'>hello</greeting>")
    let data = try xml.sendForObject("dataUsingEncoding:", .unsigned(4))
    guard
      let made = try ObjCClass(named: "NSXMLParser").makeInstanceAllocated("initWithData:", .object(data))
    else { return 0 }
    let parser = ObjCObject(adopting: made)
    try parser.send("setDelegate:", .object(delegate.object))
    guard case .unsigned(let parsed) = try parser.send("parse") else { return 0 }
    return parsed
  }
}
