// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
  name: "BlockSignature",
  products: [
    // The core: encodings, layout, the ABI model, signatures, compatibility, rendering.
    // No file I/O, no dlopen, no libffi.
    .library(name: "BlockSignature", targets: ["BlockSignature"]),
    // ELF and Mach-O readers and the block scanner.
    .library(name: "BlockSignatureBinary", targets: ["BlockSignatureBinary"]),
    // Live blocks: in this process or another; carries the toolchain's BlocksRuntime.
    .library(name: "BlockSignatureRuntime", targets: ["BlockSignatureRuntime"]),
    // Calling blocks through their signatures (libffi).
    .library(name: "BlockSignatureFFI", targets: ["BlockSignatureFFI"]),
    // C structs of callbacks and Objective-C protocols, read from headers by clang.
    .library(name: "BlockSignatureHeaders", targets: ["BlockSignatureHeaders"]),
    // Objective-C on GCC's runtime (GNUstep's): messages, methods from blocks, dynamic
    // delegates for protocols. Links libobjc (Debian `libobjc-12-dev`).
    .library(name: "BlockSignatureObjC", targets: ["BlockSignatureObjC"]),
    // Hooks on live blocks' calls: before, instead, after, on dispose (libffi).
    .library(name: "BlockSignatureHook", targets: ["BlockSignatureHook"]),
    // The library `blocksig trace` preloads into the traced program.
    .library(name: "BlockSignatureTraceAgent", type: .dynamic, targets: ["BlockSignatureTraceAgent"]),
    .executable(name: "blocksig", targets: ["blocksig"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
  ],
  targets: [
    .target(name: "CBlockABI"),
    .target(name: "CBlockSignatureShims"),
    .target(name: "BlockSignature", swiftSettings: swiftSettings),
    // Every system call and the one platform import (not a product): the libraries above it
    // reach the C library only through it.
    .target(name: "BlockSignatureSystem", dependencies: ["CBlockSignatureShims"], swiftSettings: swiftSettings),
    .target(
      name: "BlockSignatureBinary",
      dependencies: ["BlockSignature", "BlockSignatureSystem", "CBlockSignatureShims"],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "BlockSignatureRuntime",
      dependencies: [
        "BlockSignature", "BlockSignatureSystem", "BlockSignatureBinary", "CBlockABI", "CBlockSignatureShims",
      ],
      swiftSettings: swiftSettings,
      linkerSettings: [.linkedLibrary("BlocksRuntime")]
    ),
    // Plain data below libffi: JSON values and their reader, callback tables and their text form
    // (the header reader builds tables without libffi).
    .target(name: "BlockSignatureValues", dependencies: ["BlockSignature"], swiftSettings: swiftSettings),
    .systemLibrary(name: "CFFI", pkgConfig: "libffi", providers: [.apt(["libffi-dev"])]),
    .target(
      name: "BlockSignatureFFI",
      dependencies: [
        "BlockSignature", "BlockSignatureSystem", "BlockSignatureValues", "BlockSignatureRuntime", "CBlockABI", "CFFI",
      ],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "BlockSignatureHeaders",
      dependencies: ["BlockSignature", "BlockSignatureSystem", "BlockSignatureValues", "CBlockABI"],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "CBlockSignatureObjC", dependencies: ["CBlockABI"],
      linkerSettings: [.linkedLibrary("objc"), .linkedLibrary("ffi")]
    ),
    .target(
      name: "BlockSignatureObjC",
      dependencies: [
        "BlockSignature", "BlockSignatureSystem", "BlockSignatureRuntime", "BlockSignatureFFI", "BlockSignatureHeaders",
        "CBlockSignatureObjC", "CFFI",
      ],
      swiftSettings: swiftSettings
    ),
    .target(name: "CBlockSignatureHook", dependencies: ["CBlockABI"]),
    .target(
      name: "BlockSignatureHook",
      dependencies: [
        "BlockSignature", "BlockSignatureSystem", "BlockSignatureRuntime", "BlockSignatureFFI", "CBlockABI",
        "CBlockSignatureHook", "CFFI",
      ],
      swiftSettings: swiftSettings
    ),
    .target(name: "CBlockSignatureTraceAgent", linkerSettings: [.linkedLibrary("dl")]),
    .target(
      name: "BlockSignatureTraceAgent",
      dependencies: [
        "BlockSignature", "BlockSignatureSystem", "BlockSignatureRuntime", "BlockSignatureHook",
        "CBlockSignatureTraceAgent",
      ],
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "blocksig",
      dependencies: [
        "BlockSignature", "BlockSignatureSystem", "BlockSignatureBinary", "BlockSignatureRuntime", "BlockSignatureFFI",
        "BlockSignatureHeaders", "BlockSignatureObjC",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      swiftSettings: swiftSettings
    ),
    .target(
      name: "BlockFixtures",
      path: "Fixtures",
      cSettings: [.unsafeFlags(["-fblocks"])],
      linkerSettings: [.linkedLibrary("BlocksRuntime")]
    ),
    // Test helpers: running clang and other tools (TestSupport), the C fixture blocks
    // (FixtureSupport), libxml2 driven through a recording delegate (LibXML2Support).
    .target(
      name: "TestSupport",
      dependencies: ["BlockSignature", "CBlockSignatureShims"],
      path: "Tests/TestSupport",
      swiftSettings: swiftSettings
    ),
    .target(
      name: "FixtureSupport",
      dependencies: ["BlockFixtures", "TestSupport"],
      path: "Tests/FixtureSupport",
      swiftSettings: swiftSettings
    ),
    .target(
      name: "LibXML2Support",
      dependencies: ["BlockSignature", "BlockSignatureFFI", "TestSupport"],
      path: "Tests/LibXML2Support",
      swiftSettings: swiftSettings
    ),
    // One test target per library, each built without the libraries above it.
    .testTarget(
      name: "BlockSignatureTests",
      dependencies: ["BlockSignature", "TestSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "BlockSignatureBinaryTests",
      dependencies: ["BlockSignature", "BlockSignatureBinary", "TestSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "BlockSignatureRuntimeTests",
      dependencies: [
        "BlockSignature", "BlockSignatureBinary", "BlockSignatureRuntime", "CBlockABI", "CBlockSignatureShims",
        "BlockFixtures", "FixtureSupport", "TestSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "BlockSignatureFFITests",
      dependencies: [
        "BlockSignature", "BlockSignatureBinary", "BlockSignatureRuntime", "BlockSignatureFFI", "CBlockABI",
        "LibXML2Support", "TestSupport",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "BlockSignatureHeadersTests",
      dependencies: ["BlockSignature", "BlockSignatureFFI", "BlockSignatureHeaders", "LibXML2Support", "TestSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "BlockSignatureObjCTests",
      dependencies: [
        "BlockSignature", "BlockSignatureFFI", "BlockSignatureHeaders", "BlockSignatureObjC", "BlockSignatureSystem",
        "TestSupport",
      ],
      swiftSettings: swiftSettings
    ),
    // C blocks the hook tests hook, and C callers that record what the blocks return.
    .target(
      name: "HookFixtures",
      path: "Tests/HookFixtures",
      cSettings: [.unsafeFlags(["-fblocks"])],
      linkerSettings: [.linkedLibrary("BlocksRuntime")]
    ),
    .testTarget(
      name: "BlockSignatureHookTests",
      dependencies: [
        "BlockSignature", "BlockSignatureFFI", "BlockSignatureHook", "CBlockSignatureHook", "HookFixtures",
      ],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "BlockSignatureCLITests",
      // BlockSignature: the call tests read each fixture's parameter types to make arguments.
      // BlockSignatureObjC: the objc classes tests compare with the runtime in the test process.
      dependencies: ["blocksig", "BlockFixtures", "TestSupport", "BlockSignature", "BlockSignatureObjC"],
      swiftSettings: swiftSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
