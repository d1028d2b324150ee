// Invocation/<path>/<signature>: one iteration calls a `double (^)(int, double)` block 1 000 times.
//
// - `direct`: a compiled call through the block type (what clang-compiled C does);
// - `ffi_call`: bare libffi with a hand-built `ffi_cif` and argument array (the floor);
// - `raw`: BlockInvocation.invoke(result:arguments:);
// - `typed`: BlockInvocation.invoke(_:) with CValues.

import Benchmark
import BlockSignatureFFI
import CBenchFFI

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    warmupIterations: 3,
    maxDuration: .seconds(1),
    maxIterations: 2_000)

  typealias Scale = @convention(block) (Int32, Double) -> Double
  let scale: Scale = { Double($0) * $1 }
  let pointer = unsafeBitCast(scale, to: UnsafeRawPointer.self)
  guard let invocation = try? BlockInvocation(block: pointer) else { fatalError("the block cannot be called") }
  makingBenchmarks()
  let calls = 1_000

  Benchmark("Invocation/direct/d@?id") { benchmark in
    for _ in benchmark.scaledIterations {
      for index in 0..<calls { blackHole(scale(Int32(index), 0.5)) }
    }
  }

  // The bare floor: the cif, its types and the argument array built once by hand.
  let cif = UnsafeMutablePointer<ffi_cif>.allocate(capacity: 1)
  let types = UnsafeMutablePointer<UnsafeMutablePointer<ffi_type>?>.allocate(capacity: 3)
  types[0] = cbench_type_pointer()
  types[1] = cbench_type_sint32()
  types[2] = cbench_type_double()
  guard ffi_prep_cif(cif, cbench_default_abi(), 3, cbench_type_double(), types) == FFI_OK else {
    fatalError("ffi_prep_cif failed")
  }
  let invoke = unsafeBitCast(
    pointer.load(fromByteOffset: 16, as: UnsafeRawPointer.self), to: (@convention(c) () -> Void).self)
  // Buffers made once, outside the measured closures (they live as long as the process).
  let storage = UnsafeMutableRawPointer.allocate(byteCount: 48, alignment: 16)
  let values = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 3)
  storage.storeBytes(of: pointer, as: UnsafeRawPointer.self)
  storage.storeBytes(of: 0.5, toByteOffset: 16, as: Double.self)
  Benchmark("Invocation/ffi_call/d@?id") { benchmark in
    for _ in benchmark.scaledIterations {
      for index in 0..<calls {
        storage.storeBytes(of: Int32(index), toByteOffset: 8, as: Int32.self)
        // ffi_call may rewrite the array (for large structures), so it is filled on every call.
        values[0] = storage
        values[1] = storage + 8
        values[2] = storage + 16
        ffi_call(cif, invoke, storage + 32, values)
        blackHole(storage.load(fromByteOffset: 32, as: Double.self))
      }
    }
  }

  let rawStorage = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
  let result = UnsafeMutableRawPointer.allocate(byteCount: invocation.resultBufferSize, alignment: 16)
  let arguments = UnsafeMutablePointer<UnsafeRawPointer?>.allocate(capacity: 2)
  rawStorage.storeBytes(of: 0.5, toByteOffset: 8, as: Double.self)
  arguments[0] = UnsafeRawPointer(rawStorage)
  arguments[1] = UnsafeRawPointer(rawStorage + 8)
  Benchmark("Invocation/raw/d@?id") { benchmark in
    for _ in benchmark.scaledIterations {
      for index in 0..<calls {
        rawStorage.storeBytes(of: Int32(index), as: Int32.self)
        invocation.invoke(result: result, arguments: arguments)
        blackHole(result.load(as: Double.self))
      }
    }
  }

  // The arguments' array is made once: building one per call costs the caller a malloc.
  let typedArguments: [CValue] = [.signed(7), .double(0.5)]
  Benchmark("Invocation/typed/d@?id") { benchmark in
    for _ in benchmark.scaledIterations {
      for _ in 0..<calls {
        blackHole(try? invocation.invoke(typedArguments))
      }
    }
  }
}
