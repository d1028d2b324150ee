// swift-tools-version:6.1
// sortedArrayUsingComparator: over the same strings with a Swift block (through
// ObjCBlockArgument) and with a clang block in compiled Objective-C, in one process. Run with
// ./run.sh (it builds the compiled side with clang first). No harness: the timing loop is in
// main.swift, so this package resolves nothing from the network.
import Foundation
import PackageDescription

// A path dependency's identity is its folder name (the checkout may be called anything).
let library = URL(fileURLWithPath: Context.packageDirectory)
  .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
  name: "BlockArgumentsBenchmark",
  dependencies: [.package(path: "../..")],
  targets: [
    .executableTarget(
      name: "block-arguments-bench",
      dependencies: [
        .product(name: "BlockSignature", package: library),
        .product(name: "BlockSignatureFFI", package: library),
        .product(name: "BlockSignatureObjC", package: library),
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)
