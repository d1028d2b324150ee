import BlockSignatureFFI
import CBlockABI
import Foundation
import Testing

/// A million cycles of the made-block and delegate life cycles leave resident memory where it
/// was, each measured in a process of its own so that no other test allocates meanwhile. Under
/// a sanitizer (AddressSanitizer's quarantine keeps freed memory, ThreadSanitizer's shadow what
/// a run touched) resident memory is not compared, and 20 000 cycles check the life cycle
/// alone. One child at a time: each keeps a core busy for about a minute of a debug build.
@Suite(.serialized) struct ResidentMemoryTests {
  typealias Add = @convention(block) (Int32, Int32) -> Int32
  typealias AddMember = @convention(c) (UnsafeMutableRawPointer?, Int32, Int32) -> Int32

  static var cycles: Int {
    Int(ProcessInfo.processInfo.environment["BLOCKSIG_MEMORY_CYCLES"] ?? "") ?? (sanitized ? 20_000 : 1_000_000)
  }

  static var sanitized: Bool {
    let environment = ProcessInfo.processInfo.environment
    let process = dlopen(nil, RTLD_NOW)
    return environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
      || dlsym(process, "__asan_init") != nil || dlsym(process, "__tsan_init") != nil
  }

  /// Runs `cycle` 10 000 times, then `count` times more, and exits 0 when every cycle succeeded
  /// and resident memory grew by less than 2 MiB over the second run.
  static func measure(_ count: Int, _ cycle: (Int) throws -> Bool) throws -> Never {
    for index in 0..<10_000 where try !cycle(index) { exit(2) }
    let before = try DynamicBlockTests.residentBytes()
    for index in 0..<count where try !cycle(index) { exit(3) }
    let growth = try DynamicBlockTests.residentBytes() - before
    FileHandle.standardError.write(Data("\(count) cycles, grew \(growth) bytes\n".utf8))
    exit(sanitized || growth < 2 << 20 ? 0 : 1)
  }

  /// Make a block, call it through `withBlock`, hand C a retained copy that calls it and
  /// releases it, drop the block: its handler must die each time.
  @Test func madeBlocksMadeCalledAndReleased() async throws {
    let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      let counter = DeinitCounter()
      try ResidentMemoryTests.measure(ResidentMemoryTests.cycles) { index in
        let tracked = Tracked(counter)
        let made = try DynamicBlock(signature: "i@?ii") { (call: DynamicBlock.Call) in
          _ = tracked
          let sum = call.argumentAddress(0).load(as: Int32.self) &+ call.argumentAddress(1).load(as: Int32.self)
          call.result.storeBytes(of: sum, as: Int32.self)
        }
        let direct = made.withBlock { unsafeBitCast($0, to: Add.self)(Int32(truncatingIfNeeded: index), 1) }
        let kept = made.retainedBlock()
        let viaCopy = unsafeBitCast(kept, to: Add.self)(2, 3)
        _Block_release(kept)
        return direct == Int32(truncatingIfNeeded: index) &+ 1 && viaCopy == 5
      }
    }
    print("child: " + String(decoding: result?.standardErrorContent ?? [], as: UTF8.self))
  }

  /// Implement a member with a block, call it through the table as C does, remove it.
  @Test func delegateMembersImplementedAndRemoved() async throws {
    let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      let delegate = try DynamicDelegate(try CallbackTable(parsing: OpsFixture.description, name: "ops"))
      // The member's own shape, context included: one signature check per implement.
      let add: @convention(block) (UnsafeMutableRawPointer?, Int32, Int32) -> Int32 = { $1 &+ $2 }
      let block = unsafeBitCast(add, to: UnsafeRawPointer.self)
      try withExtendedLifetime(add) {
        try ResidentMemoryTests.measure(ResidentMemoryTests.cycles) { index in
          try delegate.implement("add", withBlock: block)
          guard let function = try delegate.function(for: "add") else { return false }
          let sum = unsafeBitCast(function, to: AddMember.self)(delegate.context, Int32(truncatingIfNeeded: index), 2)
          try delegate.removeBlockImplementation(for: "add")
          let removed = try delegate.function(for: "add") == nil
          return sum == Int32(truncatingIfNeeded: index) &+ 2 && removed
        }
      }
    }
    print("child: " + String(decoding: result?.standardErrorContent ?? [], as: UTF8.self))
  }
}
