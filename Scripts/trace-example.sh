#!/usr/bin/env bash
# Builds blocksig and its trace agent, compiles a small libdispatch program with the toolchain's
# clang (.build/trace-example), and runs it under `blocksig trace`: each call of its blocks is
# printed on standard error as it happens.
#
#   bash Scripts/trace-example.sh [--json]
set -euo pipefail
cd "$(dirname "$0")/.."
runtime=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib/swift/linux
swift build --product BlockSignatureTraceAgent >/dev/null
swift build --product blocksig >/dev/null
cat >.build/trace-example.c <<'C'
#include <Block.h>
#include <dispatch/dispatch.h>
#include <stdio.h>

int main(void) {
  dispatch_queue_t queue = dispatch_queue_create("example", DISPATCH_QUEUE_CONCURRENT);
  dispatch_group_t group = dispatch_group_create();
  double scale = 0.5;
  double (^half)(int) = Block_copy(^double(int value) { return value * scale; });
  for (int i = 1; i <= 3; i++) {
    dispatch_group_async(group, queue, ^{ printf("%d -> %g\n", i, half(i)); });
  }
  dispatch_group_wait(group, DISPATCH_TIME_FOREVER);
  Block_release(half);
  return 0;
}
C
clang -fblocks -I"$runtime/.." -o .build/trace-example .build/trace-example.c -L"$runtime" -lBlocksRuntime \
  -ldispatch -Wl,-rpath,"$runtime"
echo "\$ .build/debug/blocksig trace${*:+ $*} -- .build/trace-example"
exec .build/debug/blocksig trace "$@" -- .build/trace-example
