// swift-tools-version:6.1
// libFuzzer harnesses for BlockSignature (swift-protobuf's FuzzTesting/ layout). A separate package,
// so a plain `swift test` at the root never builds them. Build and run with `./fuzz.sh`.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
  .enableUpcomingFeature("MemberImportVisibility"),
  .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
  name: "FuzzTesting",
  dependencies: [
    .package(name: "BlockSignature", path: "../")
  ],
  targets: [
    .executableTarget(
      name: "FuzzTypeEncoding",
      dependencies: [.product(name: "BlockSignature", package: "BlockSignature")],
      swiftSettings: swiftSettings),
    .executableTarget(
      name: "FuzzSignature",
      dependencies: [.product(name: "BlockSignature", package: "BlockSignature")],
      swiftSettings: swiftSettings),
    .executableTarget(
      name: "FuzzBinaryScanner",
      dependencies: [
        .product(name: "BlockSignature", package: "BlockSignature"),
        .product(name: "BlockSignatureBinary", package: "BlockSignature"),
      ],
      swiftSettings: swiftSettings),
    // The check before dlopen, and dlopen of what it lets through (in a forked child).
    .executableTarget(
      name: "FuzzLibraryLoad",
      dependencies: [
        .product(name: "BlockSignatureBinary", package: "BlockSignature"),
        .product(name: "BlockSignatureRuntime", package: "BlockSignature"),
      ],
      swiftSettings: swiftSettings),
    .executableTarget(
      name: "FuzzCompatibility",
      dependencies: [.product(name: "BlockSignature", package: "BlockSignature")],
      swiftSettings: swiftSettings),
    .executableTarget(
      name: "FuzzSwiftType",
      dependencies: [.product(name: "BlockSignature", package: "BlockSignature")],
      swiftSettings: swiftSettings),
    .executableTarget(
      name: "FuzzExtendedLayout",
      dependencies: [.product(name: "BlockSignature", package: "BlockSignature")],
      swiftSettings: swiftSettings),
    // The next three need libffi's headers (BlockSignatureFFI); the last two fuzz its JSON form
    // of values (`CValue(json:as:model:)`, `jsonText`), the one `blocksig call` reads and prints.
    .executableTarget(
      name: "FuzzCallbackTable",
      dependencies: [
        .product(name: "BlockSignature", package: "BlockSignature"),
        .product(name: "BlockSignatureFFI", package: "BlockSignature"),
      ],
      swiftSettings: swiftSettings),
    .executableTarget(
      name: "FuzzCValueJSON",
      dependencies: [
        .product(name: "BlockSignature", package: "BlockSignature"),
        .product(name: "BlockSignatureFFI", package: "BlockSignature"),
      ],
      swiftSettings: swiftSettings),
    .executableTarget(
      name: "FuzzTypedCall",
      dependencies: [
        .product(name: "BlockSignature", package: "BlockSignature"),
        .product(name: "BlockSignatureFFI", package: "BlockSignature"),
      ],
      swiftSettings: swiftSettings),
  ],
  swiftLanguageModes: [.v6]
)
