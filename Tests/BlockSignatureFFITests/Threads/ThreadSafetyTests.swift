import BlockSignature
import BlockSignatureFFI
import BlockSignatureRuntime
import Foundation
import Synchronization
import Testing

/// Made blocks, trampolines and delegates used from many threads at once, most of them C's
/// own: each check holds on every run, and `Scripts/sanitize.sh thread` runs them under ThreadSanitizer,
/// which reports any unsynchronised access they make.
@Suite struct ThreadSafetyTests {
  /// A value behind an `NSLock` (a pthread mutex, which ThreadSanitizer follows; it cannot see
  /// Synchronization's `Mutex` hand the lock over in the kernel).
  final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
      lock.lock()
      defer { lock.unlock() }
      return try body(&value)
    }
  }

  /// A made block called from 8 C threads, each through copies it makes and releases as it
  /// calls, while Swift lets go of its own reference: every call computes, the handler runs
  /// once per call, and it is released once, after the last copy.
  @Test func madeBlockCalledFromCThreadsWhileCopiesAreReleased() throws {
    let start = try ThreadsFixture.symbol("crowd_start", as: ThreadsFixture.CrowdStart.self)
    let join = try ThreadsFixture.symbol("crowd_join", as: ThreadsFixture.CrowdJoin.self)
    let (threads, iterations) = (8, 400)
    let counter = DeinitCounter()
    let calls = Atomic<Int>(0)
    let crowd: UnsafeMutableRawPointer
    do {
      let tracked = Tracked(counter)
      let made = try DynamicBlock(signature: "q24@?0q8q16") { arguments in
        _ = tracked
        calls.add(1, ordering: .relaxed)
        guard case .signed(let a) = arguments[0], case .signed(let b) = arguments[1] else { return .signed(-1) }
        return .signed(a * b + 1)
      }
      crowd = start(made.unsafeBlock, Int32(threads), Int32(iterations))
    }
    // The DynamicBlock is gone; the threads' copies keep the handler.
    let wrong = join(crowd)
    #expect(wrong == 0)
    #expect(calls.load(ordering: .relaxed) == threads * iterations)
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 1, "the handler is released once, at the end")
  }

  /// One trampoline's function called from 8 C threads at once: each call reaches the block
  /// with its own arguments and gets its own result back.
  @Test func trampolineSharedAcrossThreads() throws {
    let fanOut = try ThreadsFixture.symbol("fan_out", as: ThreadsFixture.FanOut.self)
    let (threads, iterations) = (8, 1000)
    let calls = Atomic<Int>(0)
    let seenThreads = Guarded<Set<UInt>>([])
    let multiply: @convention(block) (Int, Int) -> Int = { a, b in
      calls.add(1, ordering: .relaxed)
      _ = seenThreads.withLock { $0.insert(UInt(bitPattern: Int(bitPattern: pthread_self()))) }
      return a * b + 1
    }
    let trampoline = try CFunctionTrampoline(block: unsafeBitCast(multiply, to: UnsafeRawPointer.self))
    #expect(trampoline.signature.description == "q16q0q8")
    let wrong = fanOut(
      trampoline.unsafeFunction(as: ThreadsFixture.PairFunction.self), Int32(threads), Int32(iterations))
    #expect(wrong == 0)
    #expect(calls.load(ordering: .relaxed) == threads * iterations)
    #expect(seenThreads.withLock { $0.count } == threads)
  }

  /// A delegate released while C is inside one of its members: the call already running
  /// finishes with the block it started with and returns its result, and the block is
  /// released only after that call returns. (New calls through the table after the release
  /// are not allowed: the table is freed with the delegate.)
  @Test func delegateReleasedWhileAMemberCallIsInFlight() throws {
    let callStart = try ThreadsFixture.symbol("call_start", as: ThreadsFixture.CallStart.self)
    let callJoin = try ThreadsFixture.symbol("call_join", as: ThreadsFixture.CallJoin.self)
    let entered = DispatchSemaphore(value: 0)
    let proceed = DispatchSemaphore(value: 0)
    let counter = DeinitCounter()
    weak var released: DynamicDelegate?
    let pending: UnsafeMutableRawPointer
    do {
      let delegate = try DynamicDelegate(try CallbackTable(parsing: OpsFixture.description, name: "ops"))
      released = delegate
      let tracked = Tracked(counter)
      let add: @convention(block) (UnsafeMutableRawPointer?, Int32, Int32) -> Int32 = { _, a, b in
        _ = tracked
        entered.signal()
        proceed.wait()
        return a + b + 7
      }
      try delegate.implement("add", withBlock: unsafeBitCast(add, to: UnsafeRawPointer.self))
      let function = try #require(try delegate.function(for: "add"))
      pending = callStart(
        unsafeBitCast(function, to: ThreadsFixture.MemberFunction.self), delegate.context, 40, 2)
      entered.wait()
    }
    #expect(released == nil, "the delegate is gone while its member runs")
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 0, "the running call holds its block")
    proceed.signal()
    #expect(callJoin(pending) == 49)
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 1, "released once the call returned")
  }

  /// Many threads making blocks of one signature text no block had before, all at once: one
  /// prototype results (every block has the same descriptor and invoke) and every block works.
  @Test(arguments: 0..<5) func blocksOfANewSignatureMadeAtOnce(round: Int) throws {
    let threads = 8
    // A structure name no other test uses makes the text new to this process.
    let tag = UUID().uuidString.replacingOccurrences(of: "-", with: "")
    let signature = "q24@?0{Race\(tag)=qq}8"
    let ready = Atomic<Int>(0)
    let made = Guarded<[Int: DynamicBlock]>([:])
    let failures = Guarded<[String]>([])
    let group = DispatchGroup()
    for index in 0..<threads {
      group.enter()
      Thread {
        defer { group.leave() }
        // Start together: each thread spins until all have arrived.
        ready.add(1, ordering: .sequentiallyConsistent)
        while ready.load(ordering: .sequentiallyConsistent) < threads {}
        do {
          let block = try DynamicBlock(signature: signature) { arguments in
            guard case .aggregate(let members) = arguments[0], case .signed(let a) = members[0],
              case .signed(let b) = members[1]
            else { return .signed(-1) }
            return .signed(a * 100 + b + Int128(index))
          }
          made.withLock { $0[index] = block }
        } catch {
          failures.withLock { $0.append("\(error)") }
        }
      }.start()
    }
    group.wait()
    #expect(failures.withLock { $0 } == [])
    let blocks = made.withLock { $0 }
    try #require(blocks.count == threads)
    var descriptors = Set<UInt>()
    var invokes = Set<UInt>()
    for (index, block) in blocks {
      let info = try BlockInfo(inspecting: block.unsafeBlock)
      descriptors.insert(info.descriptorAddress)
      invokes.insert(info.invokeAddress)
      #expect(info.signature == signature)
      let result = try BlockInvocation(block: block.unsafeBlock).invoke([.aggregate([.signed(3), .signed(4)])])
      #expect(result == .signed(304 + Int128(index)))
    }
    #expect(descriptors.count == 1, "one descriptor for the signature")
    #expect(invokes.count == 1, "one libffi closure for the signature")
  }
}
