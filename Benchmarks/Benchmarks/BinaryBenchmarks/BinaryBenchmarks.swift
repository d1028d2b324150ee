// Binary/scan/<file>: the binary scanner (`blocksig dump`) on large binaries of the Swift
// toolchain. One iteration scans the whole file (mapped); run.sh turns the time into MB/s and
// blocks/s with the file's size and the number of blocks found (`corpus-check --scan`).
//
// The files: BLOCKSIG_SCAN_FILES (colon-separated), or the toolchain's libdispatch, Foundation,
// swiftCore and swift-frontend, found from `swift` on PATH.

import Benchmark
import BenchmarkCorpus
import BlockSignature
import BlockSignatureBinary
import Foundation

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    warmupIterations: 1,
    maxDuration: .seconds(2),
    maxIterations: 50)

  for path in ScanFiles.paths() {
    let name = URL(fileURLWithPath: path).lastPathComponent
    Benchmark("Binary/scan/\(name)") { benchmark in
      for _ in benchmark.scaledIterations {
        blackHole(try? BinaryScanner.scan(fileAt: path))
      }
    }
  }
}
