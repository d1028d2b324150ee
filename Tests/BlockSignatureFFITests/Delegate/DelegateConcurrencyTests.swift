import BlockSignature
import BlockSignatureFFI
import Foundation
import Testing

/// Implementing and removing a member while C calls it from several threads: each call must
/// reach the block or the real delegate, never a freed block or a torn pointer.
@Suite struct DelegateConcurrencyTests {
  typealias Hammer =
    @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer?, Int32, Int32, UnsafeMutablePointer<Int32>) -> Int32

  @Test(arguments: [true, false]) func changingMembersWhileCIsCalling(withRealDelegate: Bool) async throws {
    let table = try CallbackTable(parsing: OpsFixture.description, name: "ops")
    let delegate = try DynamicDelegate(table, realDelegate: withRealDelegate ? OpsFixture.realDelegate : nil)
    let hammer = try OpsFixture.symbol("ops_hammer", as: Hammer.self)
    let tablePointer = UInt(bitPattern: delegate.table)
    let context = UInt(bitPattern: delegate.context)
    let calls = Task.detached { () -> (wrong: Int32, called: Int32) in
      var called: Int32 = 0
      let wrong = hammer(
        UnsafeRawPointer(bitPattern: tablePointer)!, UnsafeMutableRawPointer(bitPattern: context), 4, 20_000, &called)
      return (wrong, called)
    }
    var changes = 0
    repeat {
      let add: @convention(block) (Int32, Int32) -> Int32 = { $0 + $1 + 1000 }
      try delegate.implement("add", withBlock: unsafeBitCast(add, to: UnsafeRawPointer.self))
      try delegate.removeBlockImplementation(for: "add")
      changes += 1
      await Task.yield()
    } while changes < 2_000
    let (wrong, called) = await calls.value
    #expect(wrong == 0, "\(wrong) of \(called) calls returned neither the block's nor the real delegate's result")
    #expect(called > 0 || !withRealDelegate)
  }
}
