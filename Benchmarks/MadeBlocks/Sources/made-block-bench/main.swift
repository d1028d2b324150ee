// Times calls of a `double (^)(int, double)` from C, in alternating rounds in one process, and
// prints the median time per call of each and its ratio to the bare libffi closure (the floor
// any made block pays): a direct C call, clang's block, the bare closure, a DynamicBlock with a
// raw handler and with a typed one, a CFunctionTrampoline over clang's block. Then the cost of
// making (and releasing) a block for a signature already prepared, and of a trampoline.

import BlockSignatureFFI
import CMadeBlockBench
import Glibc

let calls = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 2_000_000 : 2_000_000
let rounds = 7
let signature = "d20@?0i8d12"

func now() -> Double {
  var time = timespec()
  clock_gettime(CLOCK_MONOTONIC, &time)
  return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
}

do {
  let raw = try DynamicBlock(signature: signature) { call in
    let product = Double(call.argumentAddress(0).load(as: Int32.self)) * call.argumentAddress(1).load(as: Double.self)
    call.result.storeBytes(of: product, as: Double.self)
  }
  let typed = try DynamicBlock(signature: signature) { arguments in
    guard case .signed(let a) = arguments[0], case .double(let b) = arguments[1] else { return .double(0) }
    return .double(Double(Int32(truncatingIfNeeded: a)) * b)  // not Double(Int128): slow in Swift itself
  }
  let trampoline = try CFunctionTrampoline(block: cmb_clang_block())
  guard let bare = cmb_bare_closure() else {
    print("error: libffi refused the bare closure")
    exit(1)
  }
  var checksum = 0.0
  let ways: [(String, () -> Double)] = [
    ("direct C call", { cmb_time_function(cmb_direct_function(), calls, &checksum) }),
    ("clang block", { cmb_time_block(cmb_clang_block(), calls, &checksum) }),
    ("bare libffi closure", { cmb_time_function(bare, calls, &checksum) }),
    ("made block, raw", { raw.withBlock { cmb_time_block($0, calls, &checksum) } }),
    ("made block, typed", { typed.withBlock { cmb_time_block($0, calls, &checksum) } }),
    ("trampoline", { trampoline.withFunction { cmb_time_function($0, calls, &checksum) } }),
  ]
  // One way alone, for an instruction count: BENCH_ONLY="made block, raw" valgrind --tool=callgrind …
  if let only = getenv("BENCH_ONLY").map({ String(cString: $0) }) {
    if let way = ways.first(where: { $0.0 == only }) { _ = way.1() }
    if only == "making a trampoline" {
      for _ in 0..<calls { _ = try CFunctionTrampoline(block: cmb_clang_block()) }
    }
    if only == "making a heap trampoline" {
      for _ in 0..<calls { _ = try CFunctionTrampoline(block: cmb_clang_heap_block()) }
    }
    if only == "making a block" {
      for _ in 0..<calls {
        _ = try DynamicBlock(signature: signature) { call in call.result.storeBytes(of: 1.0, as: Double.self) }
      }
    }
    exit(0)
  }
  for way in ways { _ = way.1() }  // warm-up
  var samples = [[Double]](repeating: [], count: ways.count)
  for round in 0..<rounds {
    let order = round % 2 == 0 ? Array(ways.indices) : ways.indices.reversed()
    for index in order { samples[index].append(ways[index].1()) }
  }
  let medians = samples.map { $0.sorted()[$0.count / 2] }
  func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
  print("calls per round: \(calls), rounds: \(rounds) (alternating order); median ns per call from C")
  for (index, way) in ways.enumerated() {
    let name = way.0 + String(repeating: " ", count: max(0, 22 - way.0.count))
    print("\(name)\(rounded(medians[index])) ns  \(rounded(medians[index] / medians[2]))× the bare closure")
  }
  // Making: a block of a prepared signature, made and released; a trampoline over clang's block.
  let makes = 20_000
  var makeSamples: [Double] = [], trampolineSamples: [Double] = [], madeTrampolineSamples: [Double] = []
  var heapTrampolineSamples: [Double] = []
  let madeBlock = try DynamicBlock(signature: signature) { call in call.result.storeBytes(of: 1.0, as: Double.self) }
  for _ in 0..<rounds {
    var start = now()
    for _ in 0..<makes {
      _ = try DynamicBlock(signature: signature) { call in call.result.storeBytes(of: 1.0, as: Double.self) }
    }
    makeSamples.append((now() - start) / Double(makes))
    start = now()
    for _ in 0..<makes { _ = try CFunctionTrampoline(block: cmb_clang_block()) }
    trampolineSamples.append((now() - start) / Double(makes))
    start = now()
    for _ in 0..<makes { _ = try CFunctionTrampoline(block: cmb_clang_heap_block()) }
    heapTrampolineSamples.append((now() - start) / Double(makes))
    start = now()
    for _ in 0..<makes { _ = try CFunctionTrampoline(madeBlock) }
    madeTrampolineSamples.append((now() - start) / Double(makes))
  }
  let make = makeSamples.sorted()[rounds / 2], makeTrampoline = trampolineSamples.sorted()[rounds / 2]
  let makeMadeTrampoline = madeTrampolineSamples.sorted()[rounds / 2]
  let makeHeapTrampoline = heapTrampolineSamples.sorted()[rounds / 2]
  print("making a block (prepared signature) and releasing it: \(rounded(make / 1000)) µs")
  print(
    "making a trampoline and releasing it: \(rounded(makeTrampoline / 1000)) µs (\(rounded(makeTrampoline / make))× a block)"
  )
  print(
    "making a trampoline over a heap copy of clang's block and releasing it: \(rounded(makeHeapTrampoline / 1000)) µs "
      + "(\(rounded(makeHeapTrampoline / make))× a block)")
  print(
    "making a trampoline over a made block and releasing it: \(rounded(makeMadeTrampoline / 1000)) µs "
      + "(\(rounded(makeMadeTrampoline / make))× a block)")
  print("checksum \(checksum)")
} catch {
  print("error: \(error)")
  exit(1)
}
