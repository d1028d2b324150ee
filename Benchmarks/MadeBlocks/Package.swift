// swift-tools-version:6.1
// Calls of blocks made at run time, timed from C beside the floor every made block pays (a bare
// libffi closure), a direct call and a block clang compiled, in one process; and what making a
// block and a trampoline costs. Run with ./run.sh. No harness: nothing is fetched.
import Foundation
import PackageDescription

// A path dependency's identity is its folder name (the checkout may be called anything).
let library = URL(fileURLWithPath: Context.packageDirectory)
  .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
  name: "MadeBlockBenchmark",
  dependencies: [.package(path: "../..")],
  targets: [
    // The C side: the loops that call, a clang block, a bare libffi closure (-fblocks is a root
    // package's own flag here, never a client's).
    .target(
      name: "CMadeBlockBench", cSettings: [.unsafeFlags(["-fblocks"])],
      linkerSettings: [.linkedLibrary("ffi"), .linkedLibrary("BlocksRuntime")]),
    .executableTarget(
      name: "made-block-bench",
      dependencies: ["CMadeBlockBench", .product(name: "BlockSignatureFFI", package: library)]
    ),
  ],
  swiftLanguageModes: [.v6]
)
