// Layout/<operation>/<input>: sizes, alignments, slots and offsets of clang's signatures.
//
// `parse+layout` (tree: SignatureEncoding then layout(for:)), `compact-parse+layout`
// (CompactSignature then layout(for:)) and `fast-parse+layout` (one pass: SignatureFrame;
// `reader-parse+layout` through a SignatureFrame.Reader) are the operation the peers perform
// (parse a signature, size its return value and every argument); `compact-parse` parses alone;
// `layout` starts from signatures parsed beforehand. One benchmark
// iteration handles every signature of the input once; run.sh divides by the input's size.

import Benchmark
import BenchmarkCorpus
import BlockSignature
import Foundation

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    warmupIterations: 2,
    // About a second per benchmark, as the peers' drivers time theirs (five passes of 0.2 s):
    // 200 iterations over a 348-signature subset took 9 ms, so one burst of other work on the
    // shared cores could move a whole median.
    maxDuration: .seconds(1),
    maxIterations: 100_000)

  let inputs: [(label: String, signatures: [String])]
  do {
    inputs = try Corpus.inputs()
  } catch {
    FileHandle.standardError.write(Data("LayoutBenchmarks: cannot load the corpus: \(error)\n".utf8))
    return
  }

  for (label, signatures) in inputs {
    let packed = PackedSignatures(signatures)
    Benchmark("Layout/parse+layout/\(label)") { benchmark in
      for _ in benchmark.scaledIterations {
        for bytes in packed.buffers {
          guard let signature = try? SignatureEncoding(parsingBytes: bytes),
            let layout = try? signature.layout(for: .x86_64SysV)
          else { continue }
          blackHole(layout.frameLength &+ layout.returnLayout.size &+ (layout.arguments.last?.layout.size ?? 0))
        }
      }
    }
  }

  // The compact form: one allocation per signature for its nodes and text, laid out from them.
  for (label, signatures) in inputs {
    let packed = PackedSignatures(signatures)
    Benchmark("Layout/compact-parse+layout/\(label)") { benchmark in
      for _ in benchmark.scaledIterations {
        for bytes in packed.buffers {
          guard let signature = try? CompactSignature(parsingBytes: bytes),
            let layout = try? signature.layout(for: .x86_64SysV)
          else { continue }
          blackHole(layout.frameLength &+ layout.returnLayout.size &+ (layout.arguments.last?.layout.size ?? 0))
        }
      }
    }
    Benchmark("Layout/compact-parse/\(label)") { benchmark in
      for _ in benchmark.scaledIterations {
        for bytes in packed.buffers {
          guard let signature = try? CompactSignature(parsingBytes: bytes) else { continue }
          blackHole(signature.argumentCount)
        }
      }
    }
  }

  // The single-pass path: the same numbers without building the tree (SignatureFrame).
  for (label, signatures) in inputs {
    let packed = PackedSignatures(signatures)
    Benchmark("Layout/fast-parse+layout/\(label)") { benchmark in
      for _ in benchmark.scaledIterations {
        for bytes in packed.buffers {
          guard let frame = try? SignatureFrame(parsingBytes: bytes, for: .x86_64SysV) else { continue }
          blackHole(frame.frameLength &+ frame.returnValue.size &+ (frame.arguments.last?.size ?? 0))
        }
      }
    }
  }

  // The single pass through a reader that reuses the arguments' storage (no allocation).
  for (label, signatures) in inputs {
    let packed = PackedSignatures(signatures)
    // One reader for every iteration, as a program keeps one (its storage is made once).
    let box = ReaderBox()
    Benchmark("Layout/reader-parse+layout/\(label)") { benchmark in
      // The reader leaves its box for the run, as a program keeps one in a local: no
      // exclusivity check of the box per call, and (the box let go of it) its buffers stay
      // uniquely held. Nothing is allocated: a new reader would allocate its buffer list.
      guard var reader = box.reader else { return }
      box.reader = nil
      defer { box.reader = reader }
      for _ in benchmark.scaledIterations {
        for bytes in packed.buffers {
          guard let frame = try? reader.frame(parsingBytes: bytes) else { continue }
          blackHole(frame.frameLength &+ frame.returnValue.size &+ (frame.arguments.last?.size ?? 0))
        }
      }
    }
  }

  if let corpus = inputs.first {
    let parsed = corpus.signatures.compactMap { try? SignatureEncoding(parsing: $0) }
    Benchmark("Layout/layout/\(corpus.label)") { benchmark in
      for _ in benchmark.scaledIterations {
        for signature in parsed {
          guard let layout = try? signature.layout(for: .x86_64SysV) else { continue }
          blackHole(layout.frameLength &+ layout.returnLayout.size &+ (layout.arguments.last?.layout.size ?? 0))
        }
      }
    }
  }
}

/// The reader a benchmark keeps across its iterations (benchmarks run one at a time).
final class ReaderBox: @unchecked Sendable {
  var reader: SignatureFrame.Reader? = SignatureFrame.Reader(model: .x86_64SysV)
}
