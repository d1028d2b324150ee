// swift-tools-version:6.1
// The benchmark package: kept apart from the library so a plain `swift test` never resolves the
// benchmark harness (swift-nio's Benchmarks/ layout). Run everything with `./run.sh`.
import Foundation
import PackageDescription

// A path dependency's identity is its folder name (the checkout may be called anything).
let library = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
  name: "BlockSignatureBenchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(path: "../"),
    .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
  ],
  targets: [
    // Loads Corpus/signatures.tsv (clang's signatures and sizes) and the peers' subsets.
    .target(
      name: "BenchmarkCorpus",
      dependencies: [.product(name: "BlockSignature", package: library)],
      swiftSettings: swiftSettings
    ),
    // The floor pass `corpus-check --bench floor` times beside the readers.
    .target(name: "CBenchFloor", path: "Sources/CBenchFloor"),
    // Our answers on the whole corpus against clang's truth (answered / correct counts).
    .executableTarget(
      name: "corpus-check",
      dependencies: [
        "BenchmarkCorpus", "CBenchFloor", .product(name: "BlockSignature", package: library),
        .product(name: "BlockSignatureBinary", package: library),
      ],
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "EncodingBenchmarks",
      dependencies: [
        "BenchmarkCorpus",
        .product(name: "BlockSignature", package: library),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/EncodingBenchmarks",
      swiftSettings: swiftSettings,
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "LayoutBenchmarks",
      dependencies: [
        "BenchmarkCorpus",
        .product(name: "BlockSignature", package: library),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/LayoutBenchmarks",
      swiftSettings: swiftSettings,
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "SignatureBenchmarks",
      dependencies: [
        "BenchmarkCorpus",
        .product(name: "BlockSignature", package: library),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/SignatureBenchmarks",
      swiftSettings: swiftSettings,
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "CompatibilityBenchmarks",
      dependencies: [
        "BenchmarkCorpus",
        .product(name: "BlockSignature", package: library),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/CompatibilityBenchmarks",
      swiftSettings: swiftSettings,
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "BinaryBenchmarks",
      dependencies: [
        "BenchmarkCorpus",
        .product(name: "BlockSignature", package: library),
        .product(name: "BlockSignatureBinary", package: library),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/BinaryBenchmarks",
      swiftSettings: swiftSettings,
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    // libffi's own entry points, for the bare `ffi_call` the invocation benchmarks compare with.
    .systemLibrary(
      name: "CBenchFFI", path: "Sources/CBenchFFI", pkgConfig: "libffi", providers: [.apt(["libffi-dev"])]),
    // A clang block and C loops that call blocks and function pointers, for the made blocks.
    .target(
      name: "CBenchBlocks", path: "Sources/CBenchBlocks", cSettings: [.unsafeFlags(["-fblocks"])],
      linkerSettings: [.linkedLibrary("ffi")]),
    .executableTarget(
      name: "InvocationBenchmarks",
      dependencies: [
        "CBenchFFI", "CBenchBlocks",
        .product(name: "BlockSignatureFFI", package: library),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/InvocationBenchmarks",
      swiftSettings: swiftSettings,
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
