// Made blocks reached through the safe accessors in an optimized build, where Swift releases an
// object right after its last use: Scripts/client-test.sh builds this one with `-c release`.
// Each block's handler holds a `Tracked`; the checks read when it dies. Exits 1 on the first
// difference.

import BlockSignatureFFI

#if canImport(Glibc)
  import Glibc
#endif

func fail(_ message: String) -> Never {
  print("FAIL \(message)")
  exit(1)
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
  if !condition { fail(message()) }
}

final class Tracked: @unchecked Sendable {
  nonisolated(unsafe) static var deinits = 0
  deinit { Tracked.deinits += 1 }
}

typealias Add = @convention(block) (Int32, Int32) -> Int32

/// A made `int (^)(int, int)` whose handler holds a `Tracked`; not inlined, so the caller's
/// reference is its only one.
@inline(never) func makeAdder() throws -> DynamicBlock {
  let tracked = Tracked()
  return try DynamicBlock(signature: "i@?ii") { arguments in
    _ = tracked
    guard case .signed(let a) = arguments[0], case .signed(let b) = arguments[1] else { return .signed(-1) }
    return .signed(a + b)
  }
}

/// A reference to a made adder that the caller owns; the DynamicBlock dies on return.
@inline(never) func retainedAdder() throws -> UnsafeRawPointer {
  try makeAdder().retainedBlock()
}

/// The checks, in a function: its locals die after their last use (top-level variables in
/// main.swift are globals, which never die).
@inline(never) func run() throws {
  // The block inside withBlock: the DynamicBlock is a temporary, alive until the closure returns.
  let (sum, aliveInside) = try makeAdder().withBlock { block in
    (unsafeBitCast(block, to: Add.self)(2, 3), Tracked.deinits == 0)
  }
  check(sum == 5, "withBlock: the block returned \(sum)")
  check(aliveInside, "withBlock: the handler died while the closure ran")
  check(Tracked.deinits == 1, "withBlock: \(Tracked.deinits) handler deinits after the closure, expected 1")

  // A retained block whose DynamicBlock is gone: released when `retainedAdder` returns.
  let retained = try retainedAdder()
  let result = try BlockInvocation(block: retained).invoke([.signed(40), .signed(2)])
  check(result == .signed(42), "retainedBlock: the block returned \(result)")
  check(Tracked.deinits == 1, "retainedBlock: the handler died while C held a reference")
  DynamicBlock.release(retained)
  check(Tracked.deinits == 2, "retainedBlock: \(Tracked.deinits) handler deinits after the release, expected 2")

  // A trampoline reached through withFunction.
  typealias AddFunction = @convention(c) (Int32, Int32) -> Int32
  let viaFunction = try CFunctionTrampoline(try makeAdder()).withFunction(as: AddFunction.self) { $0(20, 22) }
  check(viaFunction == 42, "withFunction: the function returned \(viaFunction)")
  check(Tracked.deinits == 3, "withFunction: \(Tracked.deinits) handler deinits after the trampoline, expected 3")
  print("lifetimes: ok")
}

do {
  try run()
} catch {
  fail("\(error)")
}
