// Times calls of a `double (^)(int, double)` from C, in alternating rounds in one process, and
// prints the median time per call of each way and its ratio to a made block's raw call: clang's
// heap block, the bare libffi closure, a DynamicBlock with a raw handler, clang's block hooked
// with an empty `before`, and hooked with a `before` that reads its arguments as CValues.

import BlockSignatureFFI
import BlockSignatureHook
import CHookBench
import Glibc

let calls = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 2_000_000 : 2_000_000
let rounds = 7

do {
  let raw = try DynamicBlock(signature: "d20@?0i8d12") { call in
    let product = Double(call.argumentAddress(0).load(as: Int32.self)) * call.argumentAddress(1).load(as: Double.self)
    call.result.storeBytes(of: product, as: Double.self)
  }
  guard let bare = chb_bare_closure() else {
    print("error: libffi refused the bare closure")
    exit(1)
  }
  let hooked = chb_clang_hooked_block()
  var checksum = 0.0
  // One hook on the block at a time: the empty one, swapped for the reading one while that is
  // timed.
  var emptyBefore = try BlockCallHook(on: hooked, before: { _ in })
  let readingBefore: (@Sendable (HookedCall) -> Void) = { call in
    if call.arguments.count != 2 { print("unexpected") }
  }
  func timeHookedReading() throws -> Double {
    try emptyBefore.remove()
    let reading = try BlockCallHook(on: hooked, before: readingBefore)
    let time = chb_time_block(hooked, calls, &checksum)
    try reading.remove()
    emptyBefore = try BlockCallHook(on: hooked, before: { _ in })
    return time
  }
  let ways: [(String, () throws -> Double)] = [
    ("clang heap block", { chb_time_block(chb_clang_heap_block(), calls, &checksum) }),
    ("bare libffi closure", { chb_time_function(bare, calls, &checksum) }),
    ("made block, raw", { raw.withBlock { chb_time_block($0, calls, &checksum) } }),
    ("hooked, empty before", { chb_time_block(hooked, calls, &checksum) }),
    ("hooked, typed before", timeHookedReading),
  ]
  // One way alone, for an instruction count: BENCH_ONLY="hooked, empty before" valgrind --tool=callgrind …
  if let only = getenv("BENCH_ONLY").map({ String(cString: $0) }) {
    if let way = ways.first(where: { $0.0 == only }) { _ = try way.1() }
    exit(0)
  }
  for way in ways { _ = try way.1() }  // warm-up
  var samples = [[Double]](repeating: [], count: ways.count)
  for round in 0..<rounds {
    let order = round % 2 == 0 ? Array(ways.indices) : ways.indices.reversed()
    for index in order { samples[index].append(try ways[index].1()) }
  }
  let medians = samples.map { $0.sorted()[$0.count / 2] }
  func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }
  print("calls per round: \(calls), rounds: \(rounds) (alternating order); median ns per call from C")
  for (index, way) in ways.enumerated() {
    let name = way.0 + String(repeating: " ", count: max(0, 22 - way.0.count))
    print(
      "\(name)\(rounded(medians[index])) ns  \(rounded(medians[index] / medians[2]))× made raw  "
        + "\(rounded(medians[index] / medians[1]))× the bare closure")
  }
  print("checksum \(checksum)")
} catch {
  print("error: \(error)")
  exit(1)
}
