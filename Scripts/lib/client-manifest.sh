# Sourced by the scripts that build a throwaway client package of this one (readme-examples.sh,
# url-client-test.sh): the one way their manifests are written.
#
#   client_manifest NAME DEPENDENCY IDENTITY "PRODUCT…" "TARGET…"   prints a Package.swift
#   library_products                                                 this package's libraries
#
# NAME is the package's name; DEPENDENCY the `.package(…)` expression that brings this package
# and IDENTITY its identity there (a path dependency's is its folder's name); every executable
# target in TARGET… depends on every product in PRODUCT….
client_manifest() {
  local name=$1 dependency=$2 identity=$3 products=$4 targets=$5
  local quoted=""
  for product in $products; do quoted+="\"$product\", "; done
  cat <<SWIFT
// swift-tools-version:6.1
// Written by Scripts/lib/client-manifest.sh: a client package of BlockSignature.
import PackageDescription

let products: [Target.Dependency] = [${quoted%, }].map { .product(name: \$0, package: "$identity") }

let package = Package(
  name: "$name",
  dependencies: [$dependency],
  targets: [
SWIFT
  for target in $targets; do echo "    .executableTarget(name: \"$target\", dependencies: products),"; done
  echo "  ]"
  echo ")"
}

# The library products of Package.swift (beside this folder's parent), but the trace agent,
# which is preloaded into traced programs and never linked.
library_products() {
  sed -n 's/^ *\.library(name: "\([A-Za-z]*\)".*/\1/p' "$(dirname "${BASH_SOURCE[0]}")/../../Package.swift" \
    | grep -v '^BlockSignatureTraceAgent$' | tr '\n' ' '
}
