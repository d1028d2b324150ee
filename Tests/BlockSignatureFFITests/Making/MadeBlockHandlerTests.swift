import BlockSignature
import BlockSignatureFFI
import Dispatch
import Glibc
import Synchronization
import Testing

/// Handlers as Swift 6 code writes them: trailing closures that only throw pick one
/// initializer, and state shared between calls from several threads lives in a `Mutex` or an
/// atomic. Each test compiles only while the API stays unambiguous.
@Suite struct MadeBlockHandlerTests {
  struct Refusal: Error {}

  typealias IntBlock = @Sendable @convention(block) () -> Int32

  @Test func aTrailingClosureThatOnlyThrowsMakesABlock() throws {
    let made = try DynamicBlock(signature: "i@?", failure: .returnValue(.signed(7))) { _ in throw Refusal() }
    #expect(made.withBlock { unsafeBitCast($0, to: IntBlock.self)() } == 7)
  }

  @Test func aTrailingClosureThatOnlyThrowsMakesABlockOfAParsedSignature() throws {
    let signature = try MethodSignature(parsing: "i@?", model: try #require(DataModel.host))
    let made = try DynamicBlock(signature: signature, failure: .returnValue(.signed(8))) { _ in throw Refusal() }
    #expect(made.withBlock { unsafeBitCast($0, to: IntBlock.self)() } == 8)
  }

  @Test func aTrailingClosureThatReadsTheCallIsARawHandler() throws {
    let twice = try DynamicBlock(signature: "d@?d") { call in
      call.result.storeBytes(of: call.argumentAddress(0).load(as: Double.self) * 2, as: Double.self)
    }
    typealias Twice = @convention(block) (Double) -> Double
    #expect(twice.withBlock { unsafeBitCast($0, to: Twice.self)(21) } == 42)
  }

  @Test func theRawLabelMakesARawHandlerThatOnlyThrows() throws {
    let made = try DynamicBlock(
      signature: "i@?", failure: .returnValue(.signed(9)), rawHandler: { _ in throw Refusal() })
    #expect(made.withBlock { unsafeBitCast($0, to: IntBlock.self)() } == 9)
  }

  @Test func aStackBlockHandlerThatOnlyThrows() throws {
    let result = try DynamicBlock.withStackBlock(
      signature: "i@?", failure: .returnValue(.signed(3)), handler: { _ in throw Refusal() }
    ) { block throws(InvocationError) in
      try BlockInvocation(block: block).invoke([])
    }
    #expect(result == .signed(3))
  }

  @Test func aDelegateMemberHandlerThatOnlyThrows() throws {
    let delegate = try DynamicDelegate(try CallbackTable(parsing: OpsFixture.description, name: "ops"))
    try delegate.implement("add", failure: .returnValue(.signed(-5))) { _ in throw Refusal() }
    let report = try OpsFixture.run(delegate.table, context: delegate.context)
    #expect(report.contains(" add=-5 "), "\(report)")
  }

  /// Whether ThreadSanitizer instruments this process: Synchronization's `Mutex` hands its lock
  /// over in a futex TSan cannot see, so it reports the accesses the lock orders as races.
  static let underThreadSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil

  /// The README's example: a `Mutex` counts the calls C makes from many threads at once. Under
  /// ThreadSanitizer the atomic counter below covers the same calls.
  @Test(.disabled(if: underThreadSanitizer, "TSan cannot see Mutex's futex hand-off"))
  func aMutexCountsCallsFromManyThreads() throws {
    let calls = Mutex(0)
    let tick = try DynamicBlock(signature: "i@?") { _ in
      .signed(
        Int128(
          calls.withLock { count in
            count += 1
            return count
          }))
    }
    let seen = Mutex<Set<Int32>>([])
    tick.withBlock { block in
      let call = unsafeBitCast(block, to: IntBlock.self)
      DispatchQueue.concurrentPerform(iterations: 1000) { _ in
        let number = call()
        seen.withLock { _ = $0.insert(number) }
      }
    }
    #expect(calls.withLock { $0 } == 1000)
    #expect(seen.withLock { $0 } == Set(1...1000), "every call saw a count of its own")
  }

  @Test func anAtomicCountsCallsFromManyThreads() throws {
    let calls = Atomic<Int>(0)
    let tick = try DynamicBlock(signature: "v@?") { _ in
      calls.add(1, ordering: .relaxed)
      return .void
    }
    tick.withBlock { block in
      let call = unsafeBitCast(block, to: (@Sendable @convention(block) () -> Void).self)
      DispatchQueue.concurrentPerform(iterations: 1000) { _ in call() }
    }
    #expect(calls.load(ordering: .relaxed) == 1000)
  }
}
