// swift-tools-version:6.1
// A package that uses BlockSignature as a new user would: a path dependency and no settings
// of its own. `Scripts/client-test.sh` builds it and runs its executables.
import Foundation
import PackageDescription

// A path dependency's identity is its folder name (the checkout may be called anything).
let library = URL(fileURLWithPath: Context.packageDirectory)
  .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
  name: "ClientPackage",
  dependencies: [
    .package(path: "../..")
  ],
  targets: [
    // The README's library example: a live block, through BlockSignatureRuntime.
    .executableTarget(
      name: "RuntimeClient",
      dependencies: [.product(name: "BlockSignatureRuntime", package: library)]
    ),
    // The README's calling example, through BlockSignatureFFI (libffi comes with the product).
    .executableTarget(
      name: "CallClient",
      dependencies: [.product(name: "BlockSignatureFFI", package: library)]
    ),
    // Blocks made at run time, copied and released by whichever blocks runtime is loaded.
    .executableTarget(
      name: "MakeClient",
      dependencies: [
        .product(name: "BlockSignatureFFI", package: library),
        .product(name: "BlockSignatureRuntime", package: library),
      ]
    ),
    // Made blocks reached through withBlock, retainedBlock and withFunction, built optimized.
    .executableTarget(
      name: "LifetimeClient",
      dependencies: [.product(name: "BlockSignatureFFI", package: library)]
    ),
    // The README's Objective-C example, through BlockSignatureObjC (GNUstep on GCC's runtime).
    .executableTarget(
      name: "ObjCClient",
      dependencies: [
        .product(name: "BlockSignatureFFI", package: library),
        .product(name: "BlockSignatureObjC", package: library),
      ]
    ),
    // The core product alone: it must not need libBlocksRuntime or libffi.
    .executableTarget(
      name: "CoreClient",
      dependencies: [.product(name: "BlockSignature", package: library)]
    ),
  ]
)
