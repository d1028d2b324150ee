import BlockSignature
import BlockSignatureFFI
import BlockSignatureObjC
import BlockSignatureSystem
import Foundation
import Testing

/// Dynamic delegates for the fixture's protocol, whose required methods the runtime records:
/// blocks in both forms, forwarding, refusals, lifetimes and threads.
@Suite struct DynamicDelegateTests {
  init() throws {
    try ObjCRuntime.loadFoundation()
    _ = try OracleFixture.handle.get()
  }

  typealias Object = UnsafeRawPointer?
  typealias Add = @convention(c) (UnsafeRawPointer, Int32, Int32) -> Int32

  static func add() throws -> Add { try OracleFixture.function("oracle_add", as: Add.self) }

  @Test func methodTypesComeFromTheRuntimesRecordOfTheProtocol() throws {
    let delegate = try ObjCDynamicDelegate(protocolName: "BSEveryType")
    #expect(delegate.methods.count == 11)
    #expect(delegate.methods.first { $0.selector == "add:to:" }?.signature.description == "i24@0:8i16i20")
    #expect(delegate.object.objectClass.conforms(to: try ObjCProtocol(named: "BSEveryType")))
    let unknown = #expect(throws: ObjCError.self) { try ObjCDynamicDelegate(protocolName: "BSNoSuchProtocol") }
    #expect(unknown?.kind == .unknownProtocol)
  }

  @Test func blocksInBothFormsAndTheRealDelegate() throws {
    let makeTarget = try OracleFixture.function("oracle_target", as: (@convention(c) () -> UnsafeRawPointer).self)
    let real = ObjCObject(adopting: makeTarget())
    let delegate = try ObjCDynamicDelegate(protocolName: "BSEveryType", realDelegate: real)
    let add = try Self.add()
    #expect(add(delegate.object.pointer, 2, 3) == 5)  // the real delegate's
    let product: @convention(block) (Int32, Int32) -> Int32 = { $0 * $1 }
    try delegate.implement("add:to:", withBlock: unsafeBitCast(product, to: UnsafeRawPointer.self))
    #expect(add(delegate.object.pointer, 2, 3) == 6)
    let withSelf: @convention(block) (Object, Int32, Int32) -> Int32 = { this, a, b in this == nil ? -1 : a - b }
    try delegate.implement("add:to:", withBlock: unsafeBitCast(withSelf, to: UnsafeRawPointer.self))
    #expect(add(delegate.object.pointer, 2, 3) == -1 + 0 || add(delegate.object.pointer, 2, 3) == -1)
    #expect(try delegate.blockImplementation(for: "add:to:") != nil)
    try delegate.removeBlockImplementation(for: "add:to:")
    #expect(add(delegate.object.pointer, 2, 3) == 5)
    #expect(try delegate.blockImplementation(for: "add:to:") == nil)
    // A selector outside the protocol goes to the real delegate through forwardingTargetForSelector:.
    #expect(
      try delegate.object.send("forwardingTargetForSelector:", .selector("add:to:"))
        == .pointer(UInt(bitPattern: real.pointer)))
  }

  @Test func withoutABlockOrARealDelegateAMethodAnswersZero() throws {
    let delegate = try ObjCDynamicDelegate(protocolName: "BSEveryType")
    #expect(!delegate.responds(to: "add:to:"))
    #expect(try Self.add()(delegate.object.pointer, 2, 3) == 0)
    #expect(
      try delegate.object.send("vectorWith:::", .double(1), .double(2), .double(3))
        == .aggregate([.double(0), .double(0), .double(0)]))
  }

  @Test func refusals() throws {
    let delegate = try ObjCDynamicDelegate(protocolName: "BSEveryType")
    let wrong: @convention(block) (Double) -> Double = { $0 }
    let block = unsafeBitCast(wrong, to: UnsafeRawPointer.self)
    let incompatible = #expect(throws: ObjCError.self) { try delegate.implement("add:to:", withBlock: block) }
    #expect(incompatible?.kind == .incompatibleSignature)
    #expect(incompatible?.diagnostics.isEmpty == false)
    #expect(try delegate.blockImplementation(for: "add:to:") == nil)
    let unknown = #expect(throws: ObjCError.self) { try delegate.implement("noSuch:", withBlock: block) }
    #expect(unknown?.kind == .unknownSelector)
    let notABlock = #expect(throws: ObjCError.self) {
      try delegate.implement("add:to:", withBlock: UnsafeRawPointer(bitPattern: 0x10)!)
    }
    #expect(notABlock?.kind == .invalidCall)
  }

  @Test func blocksAndTheRealDelegateGoWithTheDelegateObject() throws {
    let counter = LifetimeCounter()
    weak var weakReal: ObjCObject?
    var extra: ObjCObject?
    do {
      let token = counter.token()
      let real = try ObjCClass(named: "NSObject").makeInstance()
      weakReal = real
      let delegate = try ObjCDynamicDelegate(protocolName: "BSEveryType", realDelegate: real)
      try delegate.implement("add:to:") { _ in
        _ = token
        return .signed(7)
      }
      #expect(try Self.add()(delegate.object.pointer, 1, 1) == 7)
      extra = try ObjCObject(retaining: delegate.object.pointer)
    }
    // The wrapper is gone; the object lives on, and its block and real delegate with it.
    #expect(counter.count == 0)
    #expect(weakReal != nil)
    #expect(try Self.add()(try #require(extra).pointer, 1, 1) == 7)
    extra = nil
    #expect(counter.count == 1)
    #expect(weakReal == nil)
  }

  @Test func callsFromManyThreadsWhileBlocksChange() async throws {
    let delegate = try ObjCDynamicDelegate(protocolName: "BSEveryType")
    let sum: @convention(block) (Int32, Int32) -> Int32 = { $0 + $1 }
    let sumBlock = UInt(bitPattern: unsafeBitCast(sum, to: UnsafeRawPointer.self))
    try delegate.implement("add:to:", withBlock: UnsafeRawPointer(bitPattern: sumBlock)!)
    let object = UInt(bitPattern: delegate.object.pointer)
    let results = await withTaskGroup(of: [(Int32, Int32, Int32)].self) { group in
      for worker in Int32(0)..<4 {
        group.addTask {
          let add = try! Self.add()
          return (Int32(0)..<500).map { ($0, worker, add(UnsafeRawPointer(bitPattern: object)!, worker, $0)) }
        }
      }
      group.addTask {
        for _ in 0..<200 {
          try? delegate.removeBlockImplementation(for: "add:to:")
          try? delegate.implement("add:to:", withBlock: UnsafeRawPointer(bitPattern: sumBlock)!)
        }
        return []
      }
      var all: [[(Int32, Int32, Int32)]] = []
      for await result in group where !result.isEmpty { all.append(result) }
      return all
    }
    // Each call saw the block (the sum) or no block (zero).
    #expect(results.count == 4)
    for (index, worker, value) in results.joined() { #expect(value == index + worker || value == 0) }
    withExtendedLifetime(sum) {}
  }
}
