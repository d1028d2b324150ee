// Making/<path>/<signature>: one iteration makes 1 000 calls of a `double (^)(int, double)`
// from clang-compiled C, or makes and releases 1 000 blocks.
//
// - `direct`: C calls a plain C function; `clang-block`: C calls a block clang made;
// - `bare-closure`: C calls a bare libffi closure whose handler is C (the floor of a made block);
// - `made-raw`, `made-typed`: C calls a DynamicBlock with a raw or a typed handler;
// - `trampoline`: C calls a CFunctionTrampoline's function pointer over the clang block;
// - `int128-to-double`: 1 000 conversions of an Int128 (a typed handler's integer) to Double;
// - `create-release`, `trampoline-create-release`: make one and release it.

import Benchmark
import BlockSignatureFFI
import CBenchBlocks

func makingBenchmarks() {
  let calls: Int32 = 1_000
  let clangBlock = cbench_clang_block()
  Benchmark("Making/clang-block/d@?id") { benchmark in
    for _ in benchmark.scaledIterations { blackHole(cbench_call_block(clangBlock, calls)) }
  }
  let direct = cbench_direct_function()
  Benchmark("Making/direct/d@?id") { benchmark in
    for _ in benchmark.scaledIterations { blackHole(cbench_call_function(direct, calls)) }
  }
  guard let bare = cbench_bare_closure() else { fatalError("libffi refused the bare closure") }
  Benchmark("Making/bare-closure/d@?id") { benchmark in
    for _ in benchmark.scaledIterations { blackHole(cbench_call_function(bare, calls)) }
  }

  guard
    let raw = try? DynamicBlock(
      signature: "d@?id",
      rawHandler: { call in
        let a = call.argumentAddress(0).load(as: Int32.self)
        let b = call.argumentAddress(1).load(as: Double.self)
        call.result.storeBytes(of: Double(a) * b, as: Double.self)
      }),
    let typed = try? DynamicBlock(
      signature: "d@?id",
      handler: { arguments in
        guard case .signed(let a) = arguments[0], case .double(let b) = arguments[1] else { return .double(0) }
        // Through Int64: Swift 6.3's Double(Int128) alone costs about 450 ns (Making/int128-to-double).
        return .double(Double(Int64(truncatingIfNeeded: a)) * b)
      }),
    let trampoline = try? CFunctionTrampoline(block: clangBlock)
  else { fatalError("the blocks cannot be made") }

  Benchmark("Making/made-raw/d@?id") { benchmark in
    for _ in benchmark.scaledIterations { raw.withBlock { blackHole(cbench_call_block($0, calls)) } }
  }
  Benchmark("Making/made-typed/d@?id") { benchmark in
    for _ in benchmark.scaledIterations { typed.withBlock { blackHole(cbench_call_block($0, calls)) } }
  }
  // The conversion a typed handler of an `int` parameter may write, measured alone.
  Benchmark("Making/int128-to-double/1000") { benchmark in
    for _ in benchmark.scaledIterations {
      for value in 0..<calls { blackHole(Double(Int128(value))) }
    }
  }
  Benchmark("Making/trampoline/d@?id") { benchmark in
    for _ in benchmark.scaledIterations { trampoline.withFunction { blackHole(cbench_call_function($0, calls)) } }
  }
  Benchmark("Making/create-release/d@?id") { benchmark in
    for _ in benchmark.scaledIterations {
      for _ in 0..<calls {
        blackHole(try? DynamicBlock(signature: "d16@?0i8d12", rawHandler: { _ in }))
      }
    }
  }
  Benchmark("Making/trampoline-create-release/d@?id") { benchmark in
    for _ in benchmark.scaledIterations {
      for _ in 0..<calls { blackHole(try? CFunctionTrampoline(block: clangBlock)) }
    }
  }
}
