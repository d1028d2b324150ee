#!/usr/bin/env bash
# The README's first command, from a fresh Debian machine with Swift: installs what the build
# needs when it is missing (Scripts/install-dependencies.sh build: libffi-dev, gobjc), builds the
# package (its output kept in a log, shown only when the build fails) and the fixtures library
# (Scripts/build-fixtures-library.sh, into the build's debug folder), then calls a real block of
# it, saying what is called and what came back.
#
#   Scripts/call-fixture-block.sh [ARGUMENT, default 100]
#
# SCRATCH_PATH (default .build) is the build folder, as `swift build --scratch-path` takes it.
set -euo pipefail
cd "$(dirname "$0")/.."
argument=${1:-100}
scratch=${SCRATCH_PATH:-.build}

bash Scripts/install-dependencies.sh build
mkdir -p "$scratch"
log="$scratch/call-fixture-block-build.log"
echo "building: swift build (log in $log)"
if ! swift build --scratch-path "$scratch" >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "error: swift build failed; the whole log is $log" >&2
  exit 1
fi
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
bin=${bin#"$PWD/"}
# .build/debug, the README's spelling, when it is the same folder.
[ "$scratch/debug" -ef "$bin" ] && bin="$scratch/debug"
library="$bin/libBlockFixtures.so"
bash Scripts/build-fixtures-library.sh "$library"
symbol=bf_heap_captures_int

declaration=$("$bin/blocksig" inspect --library "$library" --symbol "$symbol" | sed -n 's/^declaration *//p')
kind=$("$bin/blocksig" inspect --library "$library" --symbol "$symbol" | sed -n 's/^block .*(\([a-z]*\)).*/\1/p')
echo "calling the $kind block $declaration that $symbol() in $library returns:"
echo "it adds the 42 it captured to its argument, here $argument"
echo "\$ $bin/blocksig call --library $library --symbol $symbol $argument"
"$bin/blocksig" call --library "$library" --symbol "$symbol" "$argument"
