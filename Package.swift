// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("ExistentialAny"),
  .define("BLOCKSIGNATURE_INTERNAL_CHECKS", .when(configuration: .debug)),
]

let package = Package(
  name: "BlockSignature",
  products: [
    .library(name: "BlockSignature", targets: ["BlockSignature"]),
    .library(name: "CBlockABI", targets: ["CBlockABI"]),
    .executable(name: "blocksig", targets: ["blocksig"]),
    // A shared copy of the fixtures, for `blocksig inspect --library` (README, CLI tests).
    .library(name: "BlockFixtures", type: .dynamic, targets: ["BlockFixtures"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
  ],
  targets: [
    .target(name: "CBlockABI"),
    .target(
      name: "BlockSignature",
      dependencies: ["CBlockABI"],
      swiftSettings: swiftSettings
    ),
    .executableTarget(
      name: "blocksig",
      dependencies: [
        "BlockSignature",
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
    // Helpers shared by the test targets: running clang, reading its `-emit-llvm` truth.
    .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: swiftSettings),
    .testTarget(
      name: "BlockSignatureTests",
      dependencies: ["BlockSignature", "CBlockABI", "BlockFixtures", "TestSupport"],
      swiftSettings: swiftSettings
    ),
    .testTarget(
      name: "BlockSignatureCLITests",
      dependencies: ["blocksig", "BlockFixtures", "TestSupport"],
      swiftSettings: swiftSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
