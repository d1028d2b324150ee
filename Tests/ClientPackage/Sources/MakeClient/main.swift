// Blocks made at run time under the blocks runtime this process has loaded: Scripts/client-test.sh
// runs it as built (the toolchain's runtime) and with Debian's preloaded. Copies and releases go
// through the runtime's own `_Block_copy` and `_Block_release`; the handler must be released
// exactly once, when the last copy dies. Exits 1 on the first difference.

import BlockSignatureFFI
import BlockSignatureRuntime

#if canImport(Glibc)
  import Glibc
#endif

typealias Copy = @convention(c) (UnsafeRawPointer?) -> UnsafeMutableRawPointer?
typealias Release = @convention(c) (UnsafeRawPointer?) -> Void

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

guard let runtime = BlocksRuntime.current else { fail("no blocks runtime is loaded") }
print("runtime: \(runtime.path) (\(runtime.referenceCountConvention))")
let process = dlopen(nil, RTLD_NOW)
guard let copySymbol = dlsym(process, "_Block_copy"), let releaseSymbol = dlsym(process, "_Block_release") else {
  fail("the runtime's entry points are not found")
}
let blockCopy = unsafeBitCast(copySymbol, to: Copy.self)
let blockRelease = unsafeBitCast(releaseSymbol, to: Release.self)

do {
  // A heap block made by the library, copied twice by the runtime, outliving its Swift owner.
  var copies: [UnsafeMutableRawPointer] = []
  do {
    let tracked = Tracked()
    let made = try DynamicBlock(signature: "q@?qd") { arguments in
      _ = tracked
      guard case .signed(let x) = arguments[0], case .double(let y) = arguments[1] else { return .signed(-1) }
      return .signed(x * Int128(y))
    }
    for _ in 0..<2 {
      let (copy, block) = made.withBlock { (blockCopy($0), $0) }
      guard let copy else { fail("_Block_copy returned NULL") }
      check(copy == UnsafeMutableRawPointer(mutating: block), "a heap block's copy is the block itself")
      copies.append(copy)
    }
    let info = try made.withBlock { block throws(BlockInspectionError) in try BlockInfo(inspecting: block) }
    check(info.referenceCount == 3, "reference count \(info.referenceCount.map(String.init) ?? "none"), expected 3")
  }
  check(Tracked.deinits == 0, "the handler died while copies live")
  let result = try BlockInvocation(block: copies[0]).invoke([.signed(6), .double(7)])
  check(result == .signed(42), "a copy returned \(result)")
  blockRelease(copies[0])
  check(Tracked.deinits == 0, "the handler died with one copy left")
  blockRelease(copies[1])
  check(Tracked.deinits == 1, "\(Tracked.deinits) handler deinits after the last release, expected 1")

  // A stack block moved to the heap by this runtime.
  let heap = try DynamicBlock.withStackBlock(signature: "v@?", handler: { _ in .void }) { stack in
    blockCopy(stack)
  }
  guard let heap else { fail("_Block_copy of the stack block returned NULL") }
  let info = try BlockInfo(inspecting: heap)
  check(info.kind == .heap, "the copy of the stack block is \(info.kind)")
  check(info.signature == "v8@?0", "signature \(info.signature ?? "none")")
  blockRelease(heap)
  print("made blocks: ok")
} catch {
  fail("\(error)")
}
