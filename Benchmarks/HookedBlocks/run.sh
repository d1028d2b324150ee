#!/bin/sh
# Builds the benchmark (release) and times a hooked block, from C, beside a made block and the
# bare libffi closure:
#   Benchmarks/HookedBlocks/run.sh [calls per round, default 2000000]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
# A source file added to or renamed in ../../Sources since the last build is missing from
# SwiftPM's cached build description of this package: drop it, keep the objects.
rm -f .build/*/release/description.json
swift build -c release >/dev/null
exec "$(swift build -c release --show-bin-path)/hook-bench" "$@"
