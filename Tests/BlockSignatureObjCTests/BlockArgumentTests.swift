import BlockSignature
import BlockSignatureFFI
import BlockSignatureHeaders
import BlockSignatureObjC
import BlockSignatureSystem
import Foundation
import TestSupport
import Testing

/// Swift blocks passed to GNUstep's block-taking methods, checked against the block types of
/// GNUstep's headers (the signatures clang writes for them), and compared with the same calls
/// from clang-compiled Objective-C (`Tests/ObjCFixtures/BlockArguments.m`).
@Suite struct BlockArgumentTests {
  static let foundation = "/usr/include/GNUstep/Foundation/Foundation.h"
  static let words = "pear,fig,banana,kiwi,apple,date,plum"

  /// A reader of GNUstep's headers under `-fblocks`, with the package's stand-in header.
  static var reader: HeaderReader {
    HeaderReader(
      clang: Toolchain.clang,
      arguments: (HeaderReader.gnustepArguments() ?? [])
        + ["-I", Toolchain.packageRoot.appendingPathComponent("ObjCSupport/include").path])
  }

  /// What the compiled program printed, by the first word of each line.
  static let compiled: Result<[String: [String]], any Error> = Result {
    let program = try CompiledObjCProgram(fixture: "BlockArguments")
    defer { try? FileManager.default.removeItem(at: program.folder) }
    let run = try program.run(linkingBlockClasses: true)
    guard run.status == 0, run.signal == nil else { throw ToolRunFailure(command: [], status: -1, output: "\(run)") }
    var lines: [String: [String]] = [:]
    for line in run.stdout.split(separator: "\n") {
      let words = line.split(separator: " ", maxSplits: 1).map(String.init)
      lines[words[0], default: []].append(words.count > 1 ? words[1] : "")
    }
    return lines
  }

  @Test func headerBlockTypesGiveTheSignaturesClangWritesForLiterals() throws {
    let printed = try Self.compiled.get()
    let types = [
      "NSComparator", "GSEnumeratorBlock", "GSPredicateBlock", "GSKeysAndObjectsEnumeratorBlock", "GSNotificationBlock",
    ]
    for type in types {
      let signature = try Self.reader.blockSignature(ofType: type, header: Self.foundation)
      #expect([signature.description] == printed[type], "\(type)")
    }
    let spelled = try Self.reader.blockSignature(ofType: "BOOL (^)(id, NSUInteger, BOOL *)", header: Self.foundation)
    #expect(spelled.description == "C32@?0@8Q16*24")
  }

  @Test func aClasssBlockParametersComeWithTheSignaturesClangWrites() throws {
    let printed = try Self.compiled.get()
    let array = try Self.reader.objcBlockParameters(header: Self.foundation, className: "NSArray")
    let expected: [(String, Int, String)] = [
      ("sortedArrayUsingComparator:", 0, "NSComparator"), ("enumerateObjectsUsingBlock:", 0, "GSEnumeratorBlock"),
      ("indexesOfObjectsPassingTest:", 0, "GSPredicateBlock"),
      ("enumerateObjectsWithOptions:usingBlock:", 1, "GSEnumeratorBlock"),
    ]
    for (selector, index, type) in expected {
      let parameter = try #require(array.first { $0.selector == selector }, "\(selector)")
      #expect(parameter.index == index && parameter.type == type && parameter.isInstanceMethod, "\(selector)")
      #expect([parameter.signature.description] == printed[type], "\(selector)")
    }
    let center = try Self.reader.objcBlockParameters(header: Self.foundation, className: "NSNotificationCenter")
    #expect(
      center.map { "\($0.selector) \($0.index) \($0.signature)" } == [
        "addObserverForName:object:queue:usingBlock: 3 \(printed["GSNotificationBlock"]?.first ?? "")"
      ])
    // The runtime agrees that each of those methods takes a block there: gcc, which compiled
    // GNUstep Base and has no blocks, encodes GNUstep's stand-in block type (a pointer to a
    // struct of isa, flags, reserved and invoke), where clang writes `@?`.
    try ObjCRuntime.loadFoundation()
    let arrayClass = try ObjCClass(named: "NSArray")
    var checked = 0
    for parameter in array {
      guard let method = arrayClass.instanceMethod(Selector(parameter.selector)) else { continue }
      checked += 1
      let arguments = try SignatureEncoding(parsing: method.typeEncoding).arguments
      #expect(["@?", "^{?=^vii^?}"].contains(arguments[parameter.index + 2].type.description), "\(parameter.selector)")
    }
    #expect(checked >= expected.count)
    #expect(throws: HeaderReaderError.self) {
      try Self.reader.objcBlockParameters(header: Self.foundation, className: "BSNoSuchClass")
    }
  }

  @Test func whatIsNotABlockTypeIsRefused() throws {
    for type in ["NSUInteger", "void (*)(int)", "int (^)(int, ...)"] {
      #expect(throws: HeaderReaderError.self, "\(type)") {
        try Self.reader.blockSignature(ofType: type, header: Self.foundation)
      }
    }
  }

  @Test func aSwiftComparatorSortsAsCompiledObjectiveCDoes() throws {
    let comparator = try Self.reader.blockSignature(ofType: "NSComparator", header: Self.foundation)
    let byLength: @convention(block) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int = { a, b in
      guard let a, let b, let first = try? ObjCObject(retaining: a).stringValue(),
        let second = try? ObjCObject(retaining: b).stringValue()
      else { return 0 }
      if first.utf8.count != second.utf8.count { return first.utf8.count < second.utf8.count ? -1 : 1 }
      return first < second ? -1 : first == second ? 0 : 1
    }
    let argument = try withExtendedLifetime(byLength) {
      try ObjCBlockArgument(block: unsafeBitCast(byLength, to: UnsafeRawPointer.self), expecting: comparator)
    }
    #expect(try Self.sorted(with: argument) == Self.compiled.get()["sorted"]?.first)
  }

  @Test func aSignatureWrittenAsTextServesAsWell() throws {
    // The README's example: NSComparator's signature as text, no clang at run time.
    let comparator = try MethodSignature(parsing: "q24@?0@8@16")
    let byLength: @convention(block) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int = { a, b in
      let first = a.flatMap { try? ObjCObject(retaining: $0).stringValue() } ?? ""
      let second = b.flatMap { try? ObjCObject(retaining: $0).stringValue() } ?? ""
      return first.count == second.count ? 0 : first.count < second.count ? -1 : 1
    }
    let joined = try ObjCRuntime.withAutoreleasePool {
      let argument = try withExtendedLifetime(byLength) {
        try ObjCBlockArgument(block: unsafeBitCast(byLength, to: UnsafeRawPointer.self), expecting: comparator)
      }
      let words = try ObjCObject(string: "banana,fig,kiwi")
        .sendForObject("componentsSeparatedByString:", .object(ObjCObject(string: ",")))
      let sorted = try words?.sendForObject("sortedArrayUsingComparator:", argument.value)
      let joined = try sorted?.sendForObject("componentsJoinedByString:", .object(ObjCObject(string: " ")))
      return try joined?.stringValue() ?? ""
    }
    #expect(joined == "fig kiwi banana")
  }

  @Test func aMadeBlockSortsAsCompiledObjectiveCDoes() throws {
    let comparator = try Self.reader.blockSignature(ofType: "NSComparator", header: Self.foundation)
    let byLength = try DynamicBlock(signature: comparator.description) { arguments in
      guard case .pointer(let a) = arguments[0], case .pointer(let b) = arguments[1],
        let first = try? ObjCObject(retaining: UnsafeRawPointer(bitPattern: a)!).stringValue(),
        let second = try? ObjCObject(retaining: UnsafeRawPointer(bitPattern: b)!).stringValue()
      else { return .signed(0) }
      if first.utf8.count != second.utf8.count { return .signed(first.utf8.count < second.utf8.count ? -1 : 1) }
      return .signed(first < second ? -1 : first == second ? 0 : 1)
    }
    let argument = try ObjCBlockArgument(byLength, expecting: comparator)
    #expect(try Self.sorted(with: argument) == Self.compiled.get()["sorted"]?.first)
  }

  @Test func aSwiftBlockStopsEnumerationAsCompiledObjectiveCDoes() throws {
    let enumerator = try Self.reader.blockSignature(ofType: "GSEnumeratorBlock", header: Self.foundation)
    let visits = Locked<[String]>([])
    let visit: @convention(block) (UnsafeRawPointer?, UInt, UnsafeMutablePointer<UInt8>?) -> Void = {
      object, index, stop in
      let word = object.flatMap { try? ObjCObject(retaining: $0).stringValue() } ?? "?"
      visits.withLock { $0.append("\(index) \(word)") }
      if index == 2 { stop?.pointee = 1 }
    }
    let argument = try withExtendedLifetime(visit) {
      try ObjCBlockArgument(block: unsafeBitCast(visit, to: UnsafeRawPointer.self), expecting: enumerator)
    }
    try ObjCRuntime.withAutoreleasePool {
      let array = try Self.array()
      try array.send("enumerateObjectsUsingBlock:", argument.value)
    }
    #expect(visits.withLock { $0 } == (try Self.compiled.get()["visit"] ?? []))
  }

  @Test func aBlockOfAnotherTypeIsRefusedWithTheCheckersDiagnostics() throws {
    let comparator = try Self.reader.blockSignature(ofType: "NSComparator", header: Self.foundation)
    let wrong: @convention(block) (Int32) -> Int32 = { $0 }
    do {
      _ = try withExtendedLifetime(wrong) {
        try ObjCBlockArgument(block: unsafeBitCast(wrong, to: UnsafeRawPointer.self), expecting: comparator)
      }
      Issue.record("a (Int32) -> Int32 block was taken as an NSComparator")
    } catch let error as ObjCError {
      #expect(error.kind == .incompatibleSignature)
      #expect(!error.diagnostics.isEmpty)
    }
    try ObjCRuntime.withAutoreleasePool {
      let text = try ObjCObject(string: "not a block")
      #expect(throws: ObjCError.self) { try ObjCBlockArgument(block: text.pointer, expecting: comparator) }
    }
  }

  @Test func aSwiftPredicatePicksTheIndexesCompiledObjectiveCDoes() throws {
    let predicate = try Self.reader.blockSignature(ofType: "GSPredicateBlock", header: Self.foundation)
    let fourLetters: @convention(block) (UnsafeRawPointer?, UInt, UnsafeMutablePointer<UInt8>?) -> UInt8 = {
      object, _, _ in
      (object.flatMap { try? ObjCObject(retaining: $0).stringValue() })?.utf8.count == 4 ? 1 : 0
    }
    let argument = try withExtendedLifetime(fourLetters) {
      try ObjCBlockArgument(block: unsafeBitCast(fourLetters, to: UnsafeRawPointer.self), expecting: predicate)
    }
    var indexes: [String] = []
    try ObjCRuntime.withAutoreleasePool {
      let set = try #require(try Self.array().sendForObject("indexesOfObjectsPassingTest:", argument.value))
      var index = try set.send("firstIndex")
      while case .unsigned(let value) = index, value != UInt128(UInt.max >> 1) {
        indexes.append("\(value)")
        index = try set.send("indexGreaterThanIndex:", .unsigned(value))
      }
    }
    #expect(try Self.compiled.get()["indexes"] == [indexes.joined(separator: " ")])
  }

  @Test func aSwiftBlockVisitsTheDictionaryAsCompiledObjectiveCDoes() throws {
    let pairBlock = try Self.reader.blockSignature(ofType: "GSKeysAndObjectsEnumeratorBlock", header: Self.foundation)
    let pairs = Locked<[String]>([])
    let visit: @convention(block) (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeMutablePointer<UInt8>?) -> Void = {
      key, value, _ in
      let text = [key, value].map { $0.flatMap { try? ObjCObject(retaining: $0).stringValue() } ?? "?" }
      pairs.withLock { $0.append(text.joined(separator: "=")) }
    }
    let argument = try withExtendedLifetime(visit) {
      try ObjCBlockArgument(block: unsafeBitCast(visit, to: UnsafeRawPointer.self), expecting: pairBlock)
    }
    try ObjCRuntime.withAutoreleasePool {
      let keys = try ObjCObject(string: "cherry,lemon,lime")
        .sendForObject("componentsSeparatedByString:", .object(ObjCObject(string: ",")))
      let values = try ObjCObject(string: "red,yellow,green")
        .sendForObject("componentsSeparatedByString:", .object(ObjCObject(string: ",")))
      let dictionary = try ObjCClass(named: "NSDictionary").sendForObject(
        "dictionaryWithObjects:forKeys:", .object(values), .object(keys))
      try dictionary?.send("enumerateKeysAndObjectsUsingBlock:", argument.value)
    }
    #expect(pairs.withLock { $0.sorted() } == (try Self.compiled.get()["pair"] ?? []).sorted())
  }

  @Test func anObserverBlockLivesWhileTheCenterHoldsIt() throws {
    let notificationBlock = try Self.reader.blockSignature(ofType: "GSNotificationBlock", header: Self.foundation)
    let counter = LifetimeCounter()
    let received = Locked(0)
    try ObjCRuntime.withAutoreleasePool {
      let center = try #require(try ObjCClass(named: "NSNotificationCenter").sendForObject("defaultCenter"))
      let name = try ObjCObject(string: "BSPing")
      let observer: ObjCObject?
      do {
        let token = counter.token()
        let observe: @convention(block) (UnsafeRawPointer?) -> Void = { _ in
          withExtendedLifetime(token) { received.withLock { $0 += 1 } }
        }
        let argument = try withExtendedLifetime(observe) {
          try ObjCBlockArgument(block: unsafeBitCast(observe, to: UnsafeRawPointer.self), expecting: notificationBlock)
        }
        // GNUstep returns the observer owned by the caller (the center does not retain it).
        let added = try center.send(
          "addObserverForName:object:queue:usingBlock:", .object(name), .object(nil), .object(nil), argument.value)
        guard case .pointer(let address) = added, let pointer = UnsafeRawPointer(bitPattern: address) else {
          Issue.record("addObserverForName:object:queue:usingBlock: returned \(added)")
          return
        }
        observer = ObjCObject(adopting: pointer)
      }
      // The observer holds its own copy of the block: the argument's is gone.
      #expect(counter.count == 0)
      try center.send("postNotificationName:object:", .object(name), .object(nil))
      try center.send("postNotificationName:object:", .object(name), .object(nil))
      try center.send("removeObserver:", .object(observer))
      try center.send("postNotificationName:object:", .object(name), .object(nil))
      #expect(counter.count == 0)
      withExtendedLifetime(observer) {}
    }
    #expect(["\(received.withLock { $0 })"] == (try Self.compiled.get()["received"] ?? []))
    // Releasing the observer freed the block, as in compiled Objective-C.
    #expect(try Self.compiled.get()["freed"] == ["before release 0, after 1"])
    #expect(counter.count == 1)
  }

  /// The words as an NSArray.
  static func array() throws -> ObjCObject {
    let text = try ObjCObject(string: words)
    return try #require(try text.sendForObject("componentsSeparatedByString:", .object(ObjCObject(string: ","))))
  }

  /// The words sorted with `comparator`, joined by commas.
  static func sorted(with comparator: ObjCBlockArgument) throws -> String {
    try ObjCRuntime.withAutoreleasePool {
      let sorted = try #require(try array().sendForObject("sortedArrayUsingComparator:", comparator.value))
      let joined = try #require(try sorted.sendForObject("componentsJoinedByString:", .object(ObjCObject(string: ","))))
      return try joined.stringValue()
    }
  }
}
