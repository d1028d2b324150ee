// swift-tools-version:6.1
// Calls of a hooked block, timed from C beside a made block's raw call and the bare libffi
// closure, in one process. Run with ./run.sh. No harness: nothing is fetched.
import Foundation
import PackageDescription

// A path dependency's identity is its folder name (the checkout may be called anything).
let library = URL(fileURLWithPath: Context.packageDirectory)
  .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
  name: "HookedBlockBenchmark",
  dependencies: [.package(path: "../..")],
  targets: [
    // The C side: the loops that call, clang's blocks, a bare libffi closure (-fblocks is a root
    // package's own flag here, never a client's).
    .target(
      name: "CHookBench", cSettings: [.unsafeFlags(["-fblocks"])],
      linkerSettings: [.linkedLibrary("ffi"), .linkedLibrary("BlocksRuntime")]),
    .executableTarget(
      name: "hook-bench",
      dependencies: [
        "CHookBench", .product(name: "BlockSignatureFFI", package: library),
        .product(name: "BlockSignatureHook", package: library),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
