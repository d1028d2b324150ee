#!/bin/sh
# Builds the peer drivers with the Debian compilers (gcc, gcc's Objective-C front end) against
# Debian's libobjc-12-dev and libgnustep-base-dev:
#   apt-get install -y libobjc-12-dev libgnustep-base-dev
# Output: $1 (default Benchmarks/.build-peers)/{libobjc,gnustep}-driver
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/../.build-peers"}
mkdir -p "$out"
CC=${PEER_CC:-gcc}
"$CC" -O2 -std=gnu11 -w -o "$out/libobjc-driver" "$here/libobjc_driver.c" -lobjc
# shellcheck disable=SC2046
"$CC" -O2 -std=gnu11 -w -x objective-c $(gnustep-config --objc-flags | sed 's/-MMD -MP//; s/ -g / /') \
  -o "$out/gnustep-driver" "$here/gnustep_driver.m" $(gnustep-config --base-libs)
echo "$out/libobjc-driver"
echo "$out/gnustep-driver"
