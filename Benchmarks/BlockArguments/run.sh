#!/bin/sh
# Builds the compiled side (clang with blocks, GNUstep's flags, the package's stand-in
# <objc/blocks_runtime.h>) and the Swift side (release), then sorts the same strings with
# sortedArrayUsingComparator: and a clang block, and with a Swift block, in alternating rounds:
#   Benchmarks/BlockArguments/run.sh [strings, default 1000] [sorts per round, default 200]
# Needs: apt-get install -y libgnustep-base-dev gobjc
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
mkdir -p .build
runtime=$(dirname "$(readlink -f "$(command -v clang)")")/../lib/swift/linux
# shellcheck disable=SC2046
clang -O2 -fblocks -fobjc-runtime=gcc -fobjc-exceptions -fconstant-string-class=NSConstantString -w \
  -shared -fPIC -I ../../ObjCSupport/include -I "$(gcc -print-file-name=include)" \
  $(gnustep-config --objc-flags | tr ' ' '\n' | grep -E '^-(I|D)') \
  -o .build/libcompiled.so compiled.m -L "$runtime" -lBlocksRuntime $(gnustep-config --base-libs)
# A source file added to or renamed in ../../Sources since the last build is missing from
# SwiftPM's cached build description of this package: drop it, keep the objects.
rm -f .build/*/release/description.json
swift build -c release >/dev/null
exec "$(swift build -c release --show-bin-path)/block-arguments-bench" "$here/.build/libcompiled.so" "$@"
