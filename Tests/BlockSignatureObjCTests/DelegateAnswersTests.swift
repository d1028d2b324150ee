import BlockSignature
import BlockSignatureFFI
import BlockSignatureHeaders
import BlockSignatureObjC
import Foundation
import TestSupport
import Testing

/// What a dynamic delegate answers, asked by compiled Objective-C: `respondsToSelector:` is true
/// for the methods with a block, what the real delegate answers and the `NSObject` protocol,
/// and for nothing GNUstep's `NSObject` implements on its own.
@Suite struct DelegateAnswersTests {
  init() throws {
    try ObjCRuntime.loadFoundation()
    _ = try OracleFixture.handle.get()
  }

  /// The GNUstep Base protocols whose methods `NSObject` itself implements, in categories the
  /// headers declare (`NSObject (NSXMLParserDelegateEventAdditions)`, `NSObject
  /// (NSURLConnectionDelegate)`, `NSObject (NSURLDownloadDelegate)`). Found by reading every
  /// protocol of /usr/include/GNUstep/Foundation with clang and asking the runtime whether
  /// `NSObject`'s instances answer its methods: these three answer all of theirs, the others
  /// none (their categories are declared only for compilers without `@optional`); the test
  /// below checks it.
  static let protocolsNSObjectImplements = [
    ("NSXMLParser.h", "NSXMLParserDelegate"),
    ("NSURLConnection.h", "NSURLConnectionDelegate"),
    ("NSURLDownload.h", "NSURLDownloadDelegate"),
  ]

  static func protocolDescription(header: String, named name: String) throws -> ObjCProtocolDescription {
    let arguments = try #require(HeaderReader.gnustepArguments(), "gnustep-config is missing")
    return try HeaderReader(clang: Toolchain.clang, arguments: arguments).objcProtocol(
      header: "/usr/include/GNUstep/Foundation/\(header)", named: name)
  }

  /// Every protocol of GNUstep Base's headers whose methods the header also declares in an
  /// `NSObject` category (`#else @end @interface NSObject (…)`, for compilers without
  /// `@optional`): where `NSObject` may implement a protocol.
  static var protocolsWithNSObjectCategories: [String] {
    let folder = "/usr/include/GNUstep/Foundation"
    let headers = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return headers.filter { $0.hasSuffix(".h") }.sorted().flatMap { header -> [String] in
      guard let text = try? String(contentsOfFile: "\(folder)/\(header)", encoding: .utf8) else { return [] }
      return text.components(separatedBy: "@protocol").dropFirst().compactMap { chunk -> String? in
        let name = chunk.drop { $0 == " " || $0 == "\t" }.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard !name.isEmpty, let end = chunk.range(of: "@end") else { return nil }
        let after = chunk[end.upperBound...].drop { $0.isWhitespace }
        return after.hasPrefix("@interface NSObject") ? String(name) : nil
      }
    }
  }

  /// The list above is complete: of the protocols the headers pair with an `NSObject`
  /// category, `NSObject` answers every method of the three listed and none of the others'.
  @Test func nsObjectImplementsExactlyTheListedProtocols() async throws {
    let candidates = Self.protocolsWithNSObjectCategories
    let listed = Set(Self.protocolsNSObjectImplements.map(\.1))
    #expect(listed.isSubset(of: candidates))
    #expect(candidates.count >= 8)
    let object = try ObjCClass(named: "NSObject")
    let arguments = try #require(HeaderReader.gnustepArguments(), "gnustep-config is missing")
    let reader = HeaderReader(clang: Toolchain.clang, arguments: arguments)
    try await withThrowingTaskGroup(of: (String, Int, Int).self) { group in
      for name in candidates {
        group.addTask {
          // Through Foundation.h: some headers (NSFilePresenter.h) do not compile alone.
          let description = try reader.objcProtocol(
            header: "/usr/include/GNUstep/Foundation/Foundation.h", named: name)
          let selectors = description.methods.filter(\.isInstanceMethod).map { Selector($0.selector) }
          return (name, selectors.count, selectors.filter { object.instancesRespond(to: $0) }.count)
        }
      }
      for try await (name, count, answered) in group {
        #expect(count > 0, "\(name)")
        #expect(answered == (listed.contains(name) ? count : 0), "\(name): NSObject answers \(answered) of \(count)")
      }
    }
  }

  typealias Responds = @convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt8

  static func responds() throws -> Responds { try OracleFixture.function("oracle_responds", as: Responds.self) }

  @Test(arguments: protocolsNSObjectImplements)
  func aDelegateWithOneBlockAnswersForThatMethodAlone(header: String, protocolName: String) throws {
    let description = try Self.protocolDescription(header: header, named: protocolName)
    let methods = description.methods.map(ObjCMethodDescription.init).filter(\.isInstanceMethod)
    #expect(methods.count >= 8)
    let object = try ObjCClass(named: "NSObject")
    let responds = try Self.responds()
    for method in methods {
      // The premise: GNUstep's NSObject answers the method by itself.
      #expect(object.instancesRespond(to: method.selector), "NSObject does not answer \(method.selector)")
      let delegate = try ObjCDynamicDelegate(protocolName: protocolName, methods: methods)
      try delegate.implement(method.selector) { _ in .void }
      for other in methods {
        let expected = other.selector == method.selector
        #expect(
          responds(delegate.object.pointer, other.selector.pointer) == (expected ? 1 : 0),
          "\(protocolName), a block for \(method.selector) only: respondsToSelector: \(other.selector)")
        #expect(delegate.responds(to: other.selector) == expected)
      }
    }
  }

  /// The `NSObject` protocol answers, whatever the blocks; what GNUstep's `NSObject` adds does
  /// not (`copy`, `encodeWithCoder:`, `methodForSelector:`'s class-side twin).
  @Test func theNSObjectProtocolAndNothingElse() throws {
    let delegate = try ObjCDynamicDelegate(protocolName: "BSEveryType")
    let responds = try Self.responds()
    // What GNUstep Base's delegating classes send their delegates (NSXMLParser, NSURLConnection,
    // NSURLDownload, NSSpellServer, NSNetService's Avahi back end, GSStream).
    let sentByGNUstep: [Selector] = [
      "respondsToSelector:", "methodForSelector:", "retain", "release", "autorelease",
      "performSelector:withObject:withObject:",
    ]
    let rest: [Selector] = [
      "class", "superclass", "self", "isEqual:", "hash", "description", "isProxy", "isKindOfClass:",
      "isMemberOfClass:", "conformsToProtocol:", "retainCount", "zone", "performSelector:",
      "performSelector:withObject:",
    ]
    for selector in sentByGNUstep + rest {
      #expect(responds(delegate.object.pointer, selector.pointer) == 1, "\(selector)")
    }
    for selector: Selector in [
      "copy", "encodeWithCoder:", "handlePortMessage:", "archiver:willEncodeObject:", "add:to:",
    ] {
      #expect(responds(delegate.object.pointer, selector.pointer) == 0, "\(selector)")
      #expect(try ObjCClass(named: "NSObject").instancesRespond(to: selector) == (selector.name != "add:to:"))
    }
    #expect(try delegate.object.send("isProxy") == .unsigned(1))
  }

  /// Without a block, a method goes to the real delegate, sent by compiled code through
  /// `performSelector:withObject:` (GNUstep's forwarding) or typed from Swift; then to
  /// GNUstep's `NSObject` defaults; with nothing to answer it, `doesNotRecognizeSelector:`
  /// raises.
  @Test func everythingElseGoesToTheRealDelegateOrIsRefused() throws {
    let makeTarget = try OracleFixture.function("oracle_target", as: (@convention(c) () -> UnsafeRawPointer).self)
    let real = ObjCObject(adopting: makeTarget())
    let parserDelegate = try Self.protocolDescription(header: "NSXMLParser.h", named: "NSXMLParserDelegate")
    let delegate = try ObjCDynamicDelegate(parserDelegate, realDelegate: real)
    let responds = try Self.responds()
    #expect(responds(delegate.object.pointer, Selector("classOf:").pointer) == 1)
    // The real delegate is an NSObject, which answers every NSXMLParserDelegate method.
    #expect(responds(delegate.object.pointer, Selector("parser:foundComment:").pointer) == 1)
    let perform = try OracleFixture.function(
      "oracle_perform",
      as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer, UnsafeRawPointer?) -> UnsafeRawPointer?).self)
    let item = try ObjCClass(named: "NSObject").makeInstance()
    let direct = perform(real.pointer, Selector("classOf:").pointer, item.pointer)
    #expect(direct != nil)
    #expect(perform(delegate.object.pointer, Selector("classOf:").pointer, item.pointer) == direct)
    let add = try ObjCMessage("add:to:", types: "i24@0:8i16i20")
    #expect(try add.send(to: delegate.object.pointer, [.signed(40), .signed(2)]) == .signed(42))

    let alone = try ObjCDynamicDelegate(parserDelegate)
    #expect(responds(alone.object.pointer, Selector("parser:foundComment:").pointer) == 0)
    #expect(responds(alone.object.pointer, Selector("classOf:").pointer) == 0)
    let refused = #expect(throws: ObjCError.self) { try add.send(to: alone.object.pointer, [.signed(1), .signed(2)]) }
    #expect(refused?.kind == .unknownSelector)
    #expect(refused?.exceptionName == "NSInvalidArgumentException")
    #expect(refused?.message.contains("add:to:") == true)
    let raisedBy = try OracleFixture.function(
      "oracle_raised_by", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UnsafePointer<CChar>?).self)
    #expect(
      raisedBy(alone.object.pointer, Selector("noSuchMethod").pointer).map { String(cString: $0) }
        == "NSInvalidArgumentException")
    #expect(raisedBy(alone.object.pointer, Selector("self").pointer) == nil)

    // A method of GNUstep's NSObject categories that nothing here answers runs NSObject's empty
    // default (GNUstep's libxml2 NSXMLParser sends every event unasked); respondsToSelector:
    // still says NO.
    let typedIn = try ObjCDynamicDelegate(
      protocolName: "NSXMLParserDelegate",
      methods: [ObjCMethodDescription(selector: "parser:foundCharacters:", types: "v32@0:8@16@24")])
    #expect(responds(typedIn.object.pointer, Selector("parserDidStartDocument:").pointer) == 0)
    #expect(raisedBy(typedIn.object.pointer, Selector("parserDidStartDocument:").pointer) == nil)
    #expect(
      raisedBy(typedIn.object.pointer, Selector("noSuchMethod").pointer).map { String(cString: $0) }
        == "NSInvalidArgumentException")
  }
}
