// swift-tools-version:6.1
// A message sent through BlockSignatureObjC, side by side with the same message sent by
// compiled Objective-C and by GNUstep's NSInvocation, in one process. Run with ./run.sh (it
// builds the compiled side with gcc first). No harness: the timing loop is in main.swift, so
// this package resolves nothing from the network.
import Foundation
import PackageDescription

// A path dependency's identity is its folder name (the checkout may be called anything).
let library = URL(fileURLWithPath: Context.packageDirectory)
  .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
  name: "ObjCMessagingBenchmark",
  dependencies: [.package(path: "../..")],
  targets: [
    .executableTarget(
      name: "objc-messaging-bench",
      dependencies: [
        .product(name: "BlockSignatureFFI", package: library),
        .product(name: "BlockSignatureObjC", package: library),
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)
