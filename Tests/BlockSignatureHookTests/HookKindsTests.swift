import BlockSignature
import BlockSignatureFFI
import BlockSignatureHook
import CBlockSignatureHook
import Glibc
import HookFixtures
import Synchronization
import Testing

extension HookTests {
  @Test func beforeChangesWhatTheHeapBlockReceives() throws {
    let block = try #require(hook_make_add(5))
    defer { hook_release(block) }
    let seen = Seen()
    let hook = try BlockCallHook(
      on: block,
      before: { call in
        seen.append("before \(call.arguments)")
        try? call.setArgument(0, to: .signed(100))
      },
      after: { call in seen.append("after \(call.result)") })
    #expect(hook.signature?.description == "i16@?0i8i12")
    #expect(hook_call_add(block, 3, 4) == 109)
    #expect(hook_last().a == 100 && hook_last().b == 4)
    #expect(seen.all == ["before [3, 4]", "after 109"])
    try hook.remove()
    #expect(!hook.isInstalled)
    #expect(hook_call_add(block, 3, 4) == 12)
  }

  @Test func insteadReplacesTheCallAndCallsTheOriginalWithOtherArguments() throws {
    let block = try #require(hook_make_add(1))
    defer { hook_release(block) }
    let hook = try BlockCallHook(
      on: block,
      instead: { call in
        let original = try? call.callOriginal(with: [.signed(10), .signed(20)])
        #expect(original == .signed(31))
        try? call.setResult(.signed(-7))
      })
    #expect(hook_call_add(block, 3, 4) == -7)
    #expect(hook_last().a == 10 && hook_last().b == 20)
    try hook.remove()
  }

  @Test func insteadCallsTheOriginalWithTheArgumentsItChanged() throws {
    let block = try #require(hook_make_add(1))
    defer { hook_release(block) }
    let hook = try BlockCallHook(
      on: block,
      instead: { call in
        try? call.setArgument(0, to: .signed(50))
        call.callOriginal()
        guard case .signed(let value) = call.result else { return }
        try? call.setResult(.signed(value + 1))
      })
    #expect(hook_call_add(block, 3, 4) == 56)
    #expect(hook_last().a == 50)
    try hook.remove()
  }

  @Test func insteadThatNeverCallsReturnsZeroAndTheBlockDoesNotRun() throws {
    let block = try #require(hook_make_add(1))
    defer { hook_release(block) }
    hook_forget()
    let hook = try BlockCallHook(on: block, instead: { _ in })
    #expect(hook_call_add(block, 3, 4) == 0)
    #expect(hook_last().a == 0)
    try hook.remove()
  }

  @Test func afterReplacesTheResult() throws {
    let block = try #require(hook_make_add(0))
    defer { hook_release(block) }
    let hook = try BlockCallHook(
      on: block,
      after: { call in
        guard case .signed(let value) = call.result else { return }
        try? call.setResult(.signed(value * 2))
      })
    #expect(hook_call_add(block, 3, 4) == 14)
    try hook.remove()
  }

  @Test func globalLiteralInReadOnlyPageIsHookedAndThePageStaysReadOnly() throws {
    let block = try #require(hook_global_add)
    let slot = UInt(bitPattern: block) + 16
    let protection = cbh_protection(slot)
    #expect(protection == PROT_READ, "clang puts a global literal in .data.rel.ro, read-only after relocation")
    let before = headerBytes(block, descriptorWords: 2)
    let hook = try BlockCallHook(on: block, before: { call in try? call.setArgument(1, to: .signed(40)) })
    #expect(cbh_protection(slot) == protection)
    #expect(hook_call_add(block, 2, 3) == 42)
    try hook.remove()
    #expect(cbh_protection(slot) == protection)
    #expect(headerBytes(block, descriptorWords: 2) == before)
    #expect(hook_call_add(block, 2, 3) == 5)
  }

  @Test func stackBlockIsRefusedWithTheReason() throws {
    final class Outcome: @unchecked Sendable { var error: BlockCallHookError? }
    let outcome = Outcome()
    withExtendedLifetime(outcome) {
      hook_with_stack_block(
        { block, context in
          let outcome = Unmanaged<Outcome>.fromOpaque(context!).takeUnretainedValue()
          do {
            _ = try BlockCallHook(on: block!, before: { _ in })
          } catch let error as BlockCallHookError {
            outcome.error = error
          } catch {
          }
        }, Unmanaged.passUnretained(outcome).toOpaque())
    }
    let error = try #require(outcome.error)
    #expect(error.kind == .stackBlock)
    #expect(error.message.contains("frame"))
  }

  @Test func blockWithoutSignatureNeedsADeclaredOne() throws {
    let block = try #require(hook_unsigned_multiply())
    let missing = #expect(throws: BlockCallHookError.self) { _ = try BlockCallHook(on: block, before: { _ in }) }
    #expect(missing?.kind == .missingSignature)
    let seen = Seen()
    let hook = try BlockCallHook(on: block, signature: "i@?ii", before: { call in seen.append("\(call.arguments)") })
    #expect(hook_call_add(block, 6, 7) == 42)
    #expect(seen.all == ["[6, 7]"])
    try hook.remove()
    #expect(hook_call_add(block, 6, 7) == 42)
    #expect(seen.all.count == 1)
  }

  @Test func declaredSignatureMustFitTheBlocksOwn() throws {
    let block = try #require(hook_make_add(0))
    defer { hook_release(block) }
    let error = #expect(throws: BlockCallHookError.self) {
      _ = try BlockCallHook(on: block, signature: "d@?dd", before: { _ in })
    }
    #expect(error?.kind == .invalidSignature)
  }

  @Test func variadicBlockIsRefused() throws {
    let block = try #require(hook_make_add(0))
    defer { hook_release(block) }
    let error = #expect(throws: BlockCallHookError.self) {
      _ = try BlockCallHook(on: block, isVariadic: true, before: { _ in })
    }
    #expect(error?.kind == .variadic)
  }

  @Test func removalRestoresInvokeAndDescriptorByteForByte() throws {
    let block = try #require(hook_make_note())
    defer { hook_release(block) }
    let original = headerBytes(block)
    let hook = try BlockCallHook(on: block, before: { _ in })
    #expect(headerBytes(block) != original)
    try hook.remove()
    #expect(headerBytes(block) == original)
  }

  @Test(arguments: [false, true])
  func twoHooksRunInOrderAndComeOffInEitherOrder(firstOffFirst: Bool) throws {
    let block = try #require(hook_make_add(0))
    defer { hook_release(block) }
    let original = headerBytes(block)
    let seen = Seen()
    let first = try BlockCallHook(
      on: block, before: { _ in seen.append("before 1") }, after: { _ in seen.append("after 1") })
    let second = try BlockCallHook(
      on: block,
      before: { call in
        seen.append("before 2")
        try? call.setArgument(0, to: .signed(10))
      }, after: { _ in seen.append("after 2") })
    #expect(hook_call_add(block, 1, 2) == 12)
    #expect(seen.all == ["before 1", "before 2", "after 2", "after 1"])
    let (off, stays) = firstOffFirst ? (first, second) : (second, first)
    try off.remove()
    #expect(!off.isInstalled && stays.isInstalled)
    #expect(hook_call_add(block, 1, 2) == (firstOffFirst ? 12 : 3))
    try stays.remove()
    #expect(headerBytes(block) == original)
    #expect(hook_call_add(block, 1, 2) == 3)
  }

  @Test func onDisposeRunsWhenTheHeapCopyIsFreed() throws {
    let block = try #require(hook_make_add(2))
    let disposed = Mutex<[UInt]>([])
    let hook = try BlockCallHook(
      on: block, onDispose: { address in disposed.withLock { $0.append(UInt(bitPattern: address)) } })
    let copy = hook_copy(block)  // a second reference to the same heap block
    #expect(copy == block)
    hook_release(block)
    #expect(disposed.withLock { $0.isEmpty })
    #expect(hook_call_add(copy, 1, 1) == 4)
    hook_release(copy)
    #expect(disposed.withLock { $0 } == [UInt(bitPattern: block)])
    #expect(!hook.isInstalled)
  }

  @Test func onDisposeRunsBeforeTheBlocksOwnDisposeHelper() throws {
    let inner = try #require(hook_make_add(1))
    let outer = try #require(hook_make_capturing(inner))  // holds a reference to inner
    hook_release(inner)
    let order = Seen()
    let innerHook = try BlockCallHook(on: inner, onDispose: { _ in order.append("inner") })
    let outerHook = try BlockCallHook(
      on: outer, before: { call in order.append("call \(call.arguments)") }, onDispose: { _ in order.append("outer") })
    #expect(hook_call_add(outer, 2, 3) == 12)
    hook_release(outer)  // outer's dispose helper releases inner, which is freed in turn
    #expect(order.all == ["call [2, 3]", "outer", "inner"])
    #expect(!innerHook.isInstalled && !outerHook.isInstalled)
  }

  @Test func swiftBlockHandedToCIsHooked() throws {
    let closure: @convention(block) (Int32, Int32) -> Int32 = { $0 - $1 }
    let block = unsafeBitCast(closure, to: UnsafeRawPointer.self)
    try withExtendedLifetime(closure) {
      let hook = try BlockCallHook(on: block, after: { call in try? call.setResult(.signed(99)) })
      #expect(hook.signature?.description == "i16@?0i8i12")
      #expect(hook_call_add(block, 5, 3) == 99)
      try hook.remove()
      #expect(hook_call_add(block, 5, 3) == 2)
    }
  }
}

extension HookTests {
  @Test func blockWithoutSignatureIsObservedAndCalledUntouched() throws {
    let block = try #require(hook_unsigned_multiply())
    let original = headerBytes(block, descriptorWords: 2)
    let seen = Seen()
    let hook = try BlockCallHook(observing: block) { address in seen.append("call \(UInt(bitPattern: address))") }
    #expect(hook.signature == nil)
    #expect(hook_call_add(block, 6, 7) == 42)
    #expect(hook_last().a == 6 && hook_last().b == 7)
    #expect(seen.all == ["call \(UInt(bitPattern: block))"])
    let typed = #expect(throws: BlockCallHookError.self) { _ = try BlockCallHook(on: block, before: { _ in }) }
    #expect(typed?.kind == .missingSignature)
    try hook.remove()
    #expect(headerBytes(block, descriptorWords: 2) == original)
    #expect(hook_call_add(block, 6, 7) == 42)
    #expect(seen.all.count == 1)
  }

  @Test func observingABlockWithASignatureRunsBeforeTheOtherHooks() throws {
    let block = try #require(hook_make_add(0))
    defer { hook_release(block) }
    let seen = Seen()
    let observer = try BlockCallHook(observing: block) { _ in seen.append("observed") }
    let hook = try BlockCallHook(on: block, before: { _ in seen.append("before") })
    #expect(observer.signature?.description == "i16@?0i8i12")
    #expect(hook_call_add(block, 1, 2) == 3)
    #expect(seen.all == ["observed", "before"])
    try observer.remove()
    try hook.remove()
  }
}
