#!/usr/bin/env bash
# Builds and runs a client package that depends on this one by URL and version, as a user's
# would: `.package(url: …, from: "0.1.0")`, naming every library product. SwiftPM refuses a
# versioned dependency whose product a client names if that product's targets use unsafe
# flags, so this fails if a library product ever gets one (the fixtures, which need -fblocks,
# are no product for that reason).
#
# The committed HEAD is cloned into a temporary folder and tagged there with the version
# `blocksig --version` prints (no tag is made in this repository), and the client depends on
# that clone through a file:// URL. Uncommitted changes are not part of the test.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
version=$(sed -n 's/^ *version: "\([0-9.]*\)",$/\1/p' Sources/blocksig/BlockSig.swift)
if [ -z "$version" ]; then
  echo "FAIL no version: \"…\" in Sources/blocksig/BlockSig.swift" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$root" "$work/BlockSignature"
git -C "$work/BlockSignature" checkout -q "$(git rev-parse HEAD)"
# -f: a clone of a repository that has the tag already points it at HEAD here.
git -C "$work/BlockSignature" tag -f "$version"

mkdir -p "$work/Client/Sources/Client"
cat >"$work/Client/Package.swift" <<SWIFT
// swift-tools-version:6.1
import PackageDescription

let package = Package(
  name: "Client",
  dependencies: [.package(url: "file://$work/BlockSignature", from: "$version")],
  targets: [
    .executableTarget(
      name: "Client",
      dependencies: [
        "BlockSignature", "BlockSignatureBinary", "BlockSignatureRuntime", "BlockSignatureFFI",
        "BlockSignatureHeaders", "BlockSignatureObjC",
      ]
        .map { .product(name: \$0, package: "BlockSignature") })
  ]
)
SWIFT
cat >"$work/Client/Sources/Client/main.swift" <<'SWIFT'
import BlockSignature
import BlockSignatureBinary
import BlockSignatureFFI
import BlockSignatureHeaders
import BlockSignatureObjC
import BlockSignatureRuntime

let scale: @convention(block) (Int32, Double) -> Double = { Double($0) * $1 }
let invocation = try BlockInvocation(block: unsafeBitCast(scale, to: UnsafeRawPointer.self))
print(try SignatureEncoding(parsing: "d20@?0i8d12").cDeclaration(), try invocation.invoke([.signed(3), .double(0.5)]))
print(Selector("rangeOfString:").argumentCount, HeaderReader().clang)
SWIFT
cd "$work/Client"
swift build "$@"
output=$(.build/debug/Client)
echo "$output"
if [ "$output" != $'double (^)(int, double) 1.5\n1 clang' ]; then
  echo "FAIL the client printed '$output'" >&2
  exit 1
fi
echo "URL client at $version: ok"
