import BlockSignatureHook
import HookFixtures
import Testing

extension HookTests {
  /// Eight C threads call a block while it is hooked and unhooked 10,000 times: every call
  /// sees the block or the hooked block, and both happen.
  @Test func hookingWhileEightThreadsCall() throws {
    let block = try #require(hook_make_quiet_add(3))
    defer { hook_release(block) }
    let original = headerBytes(block)
    hook_hammer_start(block, 3, 1000)
    for _ in 0..<10_000 {
      let hook = try BlockCallHook(
        on: block,
        before: { call in
          let first = call.argumentAddress(0)
          first.storeBytes(of: first.load(as: Int32.self) + 1000, as: Int32.self)
        })
      try hook.remove()
    }
    var (originalCalls, hookedCalls, otherCalls) = (0, 0, 0)
    hook_hammer_stop(&originalCalls, &hookedCalls, &otherCalls)
    #expect(otherCalls == 0)
    #expect(originalCalls > 0)
    #expect(hookedCalls > 0)
    #expect(headerBytes(block) == original)
  }
}
