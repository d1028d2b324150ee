#!/bin/sh
# Builds the compiled side (gcc, GNUstep's flags) and the Swift side (release), then times a
# message sent seven ways in one process, in alternating rounds:
#   Benchmarks/ObjCMessaging/run.sh [calls per round, default 200000]
# Needs: apt-get install -y libgnustep-base-dev gobjc
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
mkdir -p .build
# shellcheck disable=SC2046
gcc -O2 -std=gnu11 -w -shared -fPIC $(gnustep-config --objc-flags | sed 's/-MMD -MP//; s/ -g / /') \
  -o .build/libcompiled.so compiled.m $(gnustep-config --base-libs) -lffi
# A source file added to or renamed in ../../Sources since the last build is missing from
# SwiftPM's cached build description of this package: drop it, keep the objects.
rm -f .build/*/release/description.json
swift build -c release >/dev/null
exec "$(swift build -c release --show-bin-path)/objc-messaging-bench" "$here/.build/libcompiled.so" "$@"
