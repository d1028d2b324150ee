#!/usr/bin/env bash
# Checks the two URL lines the README gives. The line that works before any release,
# `.package(url: …, branch: "main")`, must resolve to the committed HEAD. Then a client package
# that depends on this one by URL and version, as a user's would after a release,
# `.package(url: …, from: "0.1.0")`, naming every library product, is built and run. SwiftPM refuses a
# versioned dependency whose product a client names if that product's targets use unsafe
# flags, so this fails if a library product ever gets one (the fixtures, which need -fblocks,
# are no product for that reason).
#
# The committed HEAD is cloned into a temporary folder, made its `main` and tagged there with
# the version `blocksig --version` prints (no tag is made in this repository), and the clients
# depend on that clone through a file:// URL. Uncommitted changes are not part of the test.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
source Scripts/lib/client-manifest.sh
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
# The branch the README's branch line follows, at HEAD whatever branch this repository is on.
git -C "$work/BlockSignature" branch -f main HEAD

# The branch line: resolved only (the build below covers the products).
mkdir -p "$work/BranchClient/Sources/BranchClient"
client_manifest BranchClient ".package(url: \"file://$work/BlockSignature\", branch: \"main\")" BlockSignature \
  "BlockSignature" "BranchClient" >"$work/BranchClient/Package.swift"
echo 'import BlockSignature' >"$work/BranchClient/Sources/BranchClient/main.swift"
(cd "$work/BranchClient" && swift package resolve)
pin=$(tr -d ' \n' <"$work/BranchClient/Package.resolved")
head=$(git rev-parse HEAD)
if ! grep -q "\"branch\":\"main\",\"revision\":\"$head\"" <<<"$pin"; then
  echo "FAIL branch: \"main\" did not resolve to $head:" >&2
  cat "$work/BranchClient/Package.resolved" >&2
  exit 1
fi
echo "URL client on branch main: resolves to $head"

mkdir -p "$work/Client/Sources/Client"
client_manifest Client ".package(url: \"file://$work/BlockSignature\", from: \"$version\")" BlockSignature \
  "$(library_products)" "Client" >"$work/Client/Package.swift"
cat >"$work/Client/Sources/Client/main.swift" <<'SWIFT'
import BlockSignature
import BlockSignatureBinary
import BlockSignatureFFI
import BlockSignatureHeaders
import BlockSignatureHook
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
