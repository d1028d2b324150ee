#!/usr/bin/env bash
# Compiles Fixtures/BlockFixtures.c into a shared library with the toolchain's clang, linked
# against the toolchain's libBlocksRuntime (found through an rpath), for `blocksig inspect`
# and `blocksig call --library`. The package does not offer it as a product: its C needs
# `-fblocks`, an unsafe flag, and a product with unsafe flags breaks every client that
# depends on the package by URL and names it.
#
#   Scripts/build-fixtures-library.sh OUTPUT   e.g. .build/debug/libBlockFixtures.so
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 OUTPUT" >&2
  exit 64
fi
output=$1
cd "$(dirname "$0")/.."
clang=$(command -v clang)
# <toolchain>/usr/bin/clang → <toolchain>/usr/lib/swift/linux, where libBlocksRuntime.so is.
runtime=$(cd "$(dirname "$(readlink -f "$clang")")/../lib/swift/linux" && pwd)
mkdir -p "$(dirname "$output")"
"$clang" -fblocks -shared -fPIC -O1 -I Fixtures/include Fixtures/BlockFixtures.c -o "$output" \
  -L "$runtime" -lBlocksRuntime -Wl,-rpath,"$runtime"
