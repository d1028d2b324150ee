import BlockSignatureFFI
import BlockSignatureObjC
import BlockSignatureSystem
import Foundation
import TestSupport
import Testing

/// Blocks as Objective-C objects on GCC's runtime: the classes laid into the blocks runtime's
/// storage, a Swift block answering messages (sent from Swift and from gcc-compiled code), and
/// clang-compiled Objective-C running GNUstep's NSBlockOperation with and without them.
@Suite struct BlockClassesTests {
  @Test func theClassesLieInTheStorageOfTheProcesssBlocksRuntime() throws {
    let installed = try ObjCRuntime.installBlockClasses()
    #expect(
      installed.classes.map(\.name).prefix(4) == [
        "NSBlock", "__NSStackBlock__", "__NSMallocBlock__", "__NSGlobalBlock__",
      ])
    #expect(installed.runtimeLibrary.hasSuffix("libBlocksRuntime.so"))
    #expect(installed.retainsCapturedObjects != false)
    let pairs = [
      ("_NSConcreteStackBlock", "__NSStackBlock__"), ("_NSConcreteMallocBlock", "__NSMallocBlock__"),
      ("_NSConcreteGlobalBlock", "__NSGlobalBlock__"), ("_NSConcreteWeakBlockVariable", "__NSBlockVariable__"),
    ]
    for (symbol, name) in pairs {
      let storage = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: 0), symbol))
      #expect(try ObjCClass(named: name).pointer == UnsafeRawPointer(storage), "\(name) lies at \(symbol)")
    }
    let block = try ObjCClass(named: "NSBlock")
    #expect(block.superclass?.name == "NSObject")
    #expect(try ObjCClass(named: "__NSMallocBlock__").superclass == block)
    // A second call finds them in place.
    #expect(try ObjCRuntime.installBlockClasses().classes == installed.classes)
  }

  @Test func aSwiftBlockAnswersMessagesAsAnObject() throws {
    try ObjCRuntime.installBlockClasses()
    let counter = LifetimeCounter()
    // `retain` is the first message: ObjCObject sends it.
    let object = try Self.heldBlock(capturing: counter)
    #expect(counter.count == 0)
    #expect(object.objectClass.name == "__NSMallocBlock__")
    try ObjCRuntime.withAutoreleasePool {
      let description = try #require(try object.sendForObject("description")).stringValue()
      #expect(description.hasPrefix("<__NSMallocBlock__: 0x"))
      #expect(try object.send("retainCount") == .unsigned(1))
      #expect(try object.send("copy") == .pointer(UInt(bitPattern: object.pointer)))
      #expect(try object.send("retainCount") == .unsigned(2))
      #expect(try object.send("retain") == .pointer(UInt(bitPattern: object.pointer)))
      #expect(try object.send("retainCount") == .unsigned(3))
      _ = try object.send("release")
      _ = try object.send("release")
      _ = try object.send("autorelease")
      _ = try object.send("retain")
    }
    #expect(try object.send("retainCount") == .unsigned(1))
    for (name, expected) in [("NSObject", true), ("NSBlock", true), ("NSString", false)] {
      let objcClass = try ObjCClass(named: name)
      #expect(try object.send("isKindOfClass:", .objcClass(objcClass)) == .unsigned(expected ? 1 : 0))
      let compiled = try OracleFixture.function(
        "oracle_is_kind", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt8).self)
      #expect(compiled(object.pointer, objcClass.pointer) == (expected ? 1 : 0), "compiled isKindOfClass: \(name)")
    }
    let responds = try OracleFixture.function(
      "oracle_responds", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer) -> UInt8).self)
    for (selector, expected) in [("copy", true), ("release", true), ("description", true), ("bogus", false)] {
      #expect(try object.send("respondsToSelector:", .selector(Selector(selector))) == .unsigned(expected ? 1 : 0))
      #expect(responds(object.pointer, Selector(selector).pointer) == (expected ? 1 : 0))
    }
  }

  @Test func theLastReleaseFreesTheBlockAndItsCaptures() throws {
    try ObjCRuntime.installBlockClasses()
    let counter = LifetimeCounter()
    do {
      let object = try Self.heldBlock(capturing: counter)
      _ = try object.send("copy")
      _ = try object.send("release")
      #expect(counter.count == 0)
    }
    #expect(counter.count == 1)
  }

  /// A Swift block that captures a token of `counter`, held by an ``ObjCObject`` alone.
  static func heldBlock(capturing counter: LifetimeCounter) throws -> ObjCObject {
    let token = counter.token()
    let block: @convention(block) () -> Int = { token.counter.count }
    return try withExtendedLifetime(block) {
      try ObjCObject(retaining: unsafeBitCast(block, to: UnsafeRawPointer.self))
    }
  }

  @Test func swiftBlocksRunAsOperationsOnGNUstepsQueue() throws {
    try ObjCRuntime.installBlockClasses()
    let counter = LifetimeCounter()
    let ran = Locked<[Int]>([])
    try ObjCRuntime.withAutoreleasePool {
      let queue = try ObjCClass(named: "NSOperationQueue").makeInstance()
      for number in 1...4 {
        let token = counter.token()
        let work: @convention(block) () -> Void = {
          withExtendedLifetime(token) { ran.withLock { $0.append(number) } }
        }
        let operation = try withExtendedLifetime(work) {
          try ObjCClass(named: "NSBlockOperation").sendForObject(
            "blockOperationWithBlock:", .pointer(UInt(bitPattern: unsafeBitCast(work, to: UnsafeRawPointer.self))))
        }
        try queue.send("addOperation:", .object(operation))
      }
      try queue.send("waitUntilAllOperationsAreFinished")
    }
    #expect(ran.withLock { $0.sorted() } == [1, 2, 3, 4])
    // The operations and their blocks go when the queue's threads let go of them.
    for _ in 0..<500 where counter.count < 4 { usleep(10_000) }
    #expect(counter.count == 4)
  }

  @Test func startingAnOperationRunsItsSwiftBlock() throws {
    try ObjCRuntime.installBlockClasses()
    let ran = Locked(0)
    try ObjCRuntime.withAutoreleasePool {
      let work: @convention(block) () -> Void = { ran.withLock { $0 += 1 } }
      let operation = try withExtendedLifetime(work) {
        try ObjCClass(named: "NSBlockOperation").sendForObject(
          "blockOperationWithBlock:", .pointer(UInt(bitPattern: unsafeBitCast(work, to: UnsafeRawPointer.self))))
      }
      try operation?.send("start")
      #expect(try operation?.send("isFinished") == .unsigned(1))
    }
    #expect(ran.withLock { $0 } == 1)
  }

  @Test func compiledObjectiveCRunsBlockOperationsOnlyWithTheClasses() throws {
    let program = try CompiledObjCProgram(fixture: "BlockOperations")
    defer { try? FileManager.default.removeItem(at: program.folder) }

    let without = try program.run(linkingBlockClasses: false)
    #expect(without.signal == SIGSEGV, "without the classes: \(without)")
    #expect(!without.stdout.contains("operations total"))

    let with = try program.run(linkingBlockClasses: true)
    #expect(with.signal == nil && with.status == 0, "with the classes: \(with)")
    #expect(
      with.stdout.split(separator: "\n") == [
        "operations total 1136, some at once yes",
        "operations and their captured objects freed: 8 of 8",
        "global: class __NSGlobalBlock__, description <__NSGlobalBlock__, NSObject 1, NSBlock 1, copy 1, bogus 0",
        "stack: class __NSStackBlock__, description <__NSStackBlock__, NSObject 1, NSBlock 1, copy 1, bogus 0",
        "heap: class __NSMallocBlock__, description <__NSMallocBlock__, NSObject 1, NSBlock 1, copy 1, bogus 0",
        "global: copy same 1, retain same 1, count 1",
        "stack: retain same 1, count 1",
        "heap: count 1, retain same 1, count 2, released count 1, autoreleased count 2, drained count 1",
        "captured object freed: before last release 0, after 1",
      ])
  }

  @Test func theWrongLinkOrderIsSaidOnStandardError() throws {
    let program = try CompiledObjCProgram(fixture: "BlockOperations")
    defer { try? FileManager.default.removeItem(at: program.folder) }
    let run = try program.run(linkingBlockClasses: true, blocksRuntimeFirst: false)
    #expect(run.signal == SIGSEGV)
    #expect(run.stderr.contains("_NSConcreteStackBlock in"))
    #expect(run.stderr.contains("link libBlocksRuntime before libgnustep-base"))
  }
}
