#!/bin/sh
# The cost `blocksig trace --json --output FILE` adds to each call of a heap block, beside what
# `ltrace -e` adds to each call of a plain C function in a shared library, in one run:
#   Benchmarks/HookedBlocks/trace-overhead.sh [calls, default 1000000]
# Builds blocksig and the trace agent (release) in the package, and the C programs with the
# toolchain's clang against its BlocksRuntime. Needs ltrace (Debian `ltrace`).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
calls=${1:-1000000}
runtime=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib/swift/linux
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$root" && swift build -c release --product BlockSignatureTraceAgent >/dev/null &&
  swift build -c release --product blocksig >/dev/null)
blocksig="$root/.build/release/blocksig"
clang -O2 -fblocks -o "$work/heap-calls" "$here/TraceOverhead/heap-calls.c" -L"$runtime" -lBlocksRuntime \
  -Wl,-rpath,"$runtime"
clang -O2 -shared -fPIC -o "$work/libadd.so" "$here/TraceOverhead/add.c"
clang -O2 -o "$work/plain-calls" "$here/TraceOverhead/plain-calls.c" -L"$work" -ladd -Wl,-rpath,"$work"
# Wall time of a whole run, in nanoseconds: start-up and the trace's last writes included.
wall() {
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1
  echo $(($(date +%s%N) - start))
}
untraced=$(wall "$work/heap-calls" "$calls")
traced=$(wall "$blocksig" trace --json --output "$work/trace.jsonl" -- "$work/heap-calls" "$calls")
lines=$(wc -l <"$work/trace.jsonl")
plain=$(wall "$work/plain-calls" "$calls")
ltraced=$(wall ltrace -e overhead_add -o "$work/ltrace.txt" "$work/plain-calls" "$calls")
echo "calls: $calls; wall time per call, whole runs"
echo "heap block, untraced:              $((untraced / calls)) ns"
echo "heap block, blocksig trace --json: $((traced / calls)) ns  (+$(((traced - untraced) / calls)) ns; $lines lines)"
echo "plain function, untraced:          $((plain / calls)) ns"
echo "plain function, ltrace -e:         $((ltraced / calls)) ns  (+$(((ltraced - plain) / calls)) ns)"
