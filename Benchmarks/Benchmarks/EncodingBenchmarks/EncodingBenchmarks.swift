// Encoding/<operation>/<input>: parsing clang's signatures.
//
// One benchmark iteration parses every signature of the input once; run.sh divides by the
// input's size to report nanoseconds and mallocs per signature.

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

  let inputs: [(label: String, signatures: [String])]
  do {
    inputs = try Corpus.inputs()
  } catch {
    FileHandle.standardError.write(Data("EncodingBenchmarks: cannot load the corpus: \(error)\n".utf8))
    return
  }

  for (label, signatures) in inputs {
    let packed = PackedSignatures(signatures)
    // From bytes, as a descriptor's C string is read: what the peers are given.
    Benchmark("Encoding/parse/\(label)") { benchmark in
      for _ in benchmark.scaledIterations {
        for bytes in packed.buffers {
          blackHole(try? SignatureEncoding(parsingBytes: bytes))
        }
      }
    }
  }

  // From Swift strings, the convenience entry point (`init(parsing:)`), on the whole corpus.
  if let corpus = inputs.first {
    let strings = corpus.signatures
    Benchmark("Encoding/parse-string/\(corpus.label)") { benchmark in
      for _ in benchmark.scaledIterations {
        for string in strings {
          blackHole(try? SignatureEncoding(parsing: string))
        }
      }
    }
  }
}
