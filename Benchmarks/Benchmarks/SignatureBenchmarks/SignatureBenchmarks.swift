// Signature/<operation>/<input>: converting clang's block signatures to method signatures.
//
// `block-to-method` converts signatures parsed beforehand (`methodEncoding(for:)`);
// `parse+block-to-method` starts from the bytes. One iteration converts every block signature of
// the corpus once; run.sh divides by the input's size.

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

  let blocks: [String]
  do {
    blocks = try Corpus.load().filter { $0.kind == "block" }.map(\.signature)
  } catch {
    FileHandle.standardError.write(Data("SignatureBenchmarks: cannot load the corpus: \(error)\n".utf8))
    return
  }
  let parsed = blocks.compactMap { try? SignatureEncoding(parsing: $0) }
  Benchmark("Signature/block-to-method/blocks") { benchmark in
    for _ in benchmark.scaledIterations {
      for signature in parsed {
        blackHole(try? signature.methodEncoding(for: .x86_64SysV))
      }
    }
  }

  let packed = PackedSignatures(blocks)
  Benchmark("Signature/parse+block-to-method/blocks") { benchmark in
    for _ in benchmark.scaledIterations {
      for bytes in packed.buffers {
        guard let signature = try? SignatureEncoding(parsingBytes: bytes) else { continue }
        blackHole(try? signature.methodEncoding(for: .x86_64SysV))
      }
    }
  }
}
