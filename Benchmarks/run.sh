#!/bin/sh
# One command for the whole comparison: builds the peers (Debian gcc, libobjc-12-dev,
# libgnustep-base-dev) and our benchmarks in release mode, probes and times everything on
# Corpus/signatures.tsv, and prints one table (also left in .build-peers/table.md).
#
#   Benchmarks/run.sh                 # BENCH_REPEATS=7 timed passes per peer by default
#
# Needs: apt-get install -y libobjc-12-dev libgnustep-base-dev; clang and swift on PATH.
# Regenerate the corpus (not needed for a run) with Corpus/generate.py.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
"$here/Peers/build.sh" "$here/.build-peers" >/dev/null
# A source file added to ../Sources since the last build is missing from SwiftPM's cached build
# description of this package (it plans the path dependency once): drop it, keep the objects.
rm -f .build/*/release/description.json
swift build -c release --product corpus-check >/dev/null
exec python3 "$here/report.py"
