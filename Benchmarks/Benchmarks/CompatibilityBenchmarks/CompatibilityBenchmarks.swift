// Compatibility/check-<level>/<pairs>: the compatibility checker on parsed signatures.
//
// `same-types`: each block signature of the corpus against its own method form (compatible at
// every positional level, so `check` should allocate nothing); `neighbours`: each block
// signature against the next one (different types: diagnostics are built and allocated);
// `clean`: the same-types pairs whose report at that level has no diagnostic at all — the case
// the checker documents as allocation-free.
// One iteration checks every pair once; run.sh divides by the number of pairs.

import Benchmark
import BenchmarkCorpus
import BlockSignature
import Foundation

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    warmupIterations: 2,
    maxDuration: .seconds(1),
    maxIterations: 200)

  let blocks: [SignatureEncoding]
  do {
    blocks = try Corpus.load().filter { $0.kind == "block" }.compactMap {
      try? SignatureEncoding(parsing: $0.signature)
    }
  } catch {
    FileHandle.standardError.write(Data("CompatibilityBenchmarks: cannot load the corpus: \(error)\n".utf8))
    return
  }
  let sameTypes: [(SignatureEncoding, SignatureEncoding)] = blocks.compactMap { block in
    guard let method = try? block.methodEncoding(for: .x86_64SysV) else { return nil }
    return (block, method)
  }
  let neighbours = Array(zip(blocks, blocks.dropFirst()))

  for level in CompatibilityLevel.allCases {
    let checker = CompatibilityChecker(level: level, model: .x86_64SysV)
    let clean = sameTypes.filter { checker.check($0.0, against: $0.1).diagnostics.isEmpty }
    for (label, pairs) in [("same-types", sameTypes), ("clean", clean), ("neighbours", neighbours)] {
      Benchmark("Compatibility/check-\(level.rawValue)/\(label)") { benchmark in
        for _ in benchmark.scaledIterations {
          for (candidate, expected) in pairs {
            blackHole(checker.check(candidate, against: expected).isCompatible)
          }
        }
      }
    }
  }
}
