#!/usr/bin/env bash
# Builds libBlockSignatureBlockClasses.so: linked into an Objective-C program (GNUstep on GCC's
# runtime), it makes the process's block classes Objective-C classes before main, so blocks
# answer copy, retain, release, description… and GNUstep's NSBlockOperation works. It is
# Sources/CBlockSignatureObjC/BlockClasses.c, the code BlockSignatureObjC runs when it loads
# GNUstep, compiled to install at load. Link the toolchain's libBlocksRuntime before
# libgnustep-base (GNUstep Base carries a private runtime whose stack block class has no room
# for a class); the README's Objective-C section has the whole command line.
#
#   Scripts/build-block-classes.sh OUTPUT   e.g. .build/libBlockSignatureBlockClasses.so
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 OUTPUT" >&2
  exit 64
fi
output=$1
root=$(cd "$(dirname "$0")/.." && pwd)
clang=$(command -v clang)
mkdir -p "$(dirname "$output")"
# shellcheck disable=SC2046  # gnustep-config prints several words.
"$clang" -std=gnu11 -O2 -shared -fPIC -DCBO_BLOCK_CLASSES_AT_LOAD \
  -I "$root/Sources/CBlockSignatureObjC/include" "$root/Sources/CBlockSignatureObjC/BlockClasses.c" \
  -Wl,-soname,"$(basename "$output")" -o "$output" $(gnustep-config --base-libs)
