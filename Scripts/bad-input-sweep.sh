#!/usr/bin/env bash
# Hands every subcommand bad input and fails on any signal or hang: truncated and byte-flipped
# real libraries (the fixtures library and the toolchain's libdispatch) through the three
# commands that load one, malformed encodings, garbage files, missing headers, bogus processes.
# Each run must exit by itself within 60 s with a documented status (0, 1, 64, 65, 66 or 70).
#
#   Scripts/bad-input-sweep.sh        builds blocksig (debug) and the fixtures library first
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product blocksig > /dev/null
bin="$(swift build --show-bin-path)"
blocksig="$bin/blocksig"
fixtures="$bin/libBlockFixtures.so"
bash Scripts/build-fixtures-library.sh "$fixtures"
runtime="$(cd "$(dirname "$(readlink -f "$(command -v clang)")")/../lib/swift/linux" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

runs=0
failures=0
# sweep EXPECTED-STATUSES ARGUMENTS…: runs blocksig (standard input from $input, else
# /dev/null), checks how it ended.
sweep() {
  local allowed=$1
  shift
  local status=0
  timeout -s KILL 60 "$blocksig" "$@" > "$work/out" 2> "$work/err" < "${input:-/dev/null}" || status=$?
  runs=$((runs + 1))
  if ! [[ " $allowed " == *" $status "* ]]; then
    failures=$((failures + 1))
    echo "FAIL: exit $status (allowed: $allowed): blocksig $(printf '%q ' "$@" | cut -c1-300)" >&2
    head -c 600 "$work/err" >&2
    echo >&2
  fi
}

# Libraries, cut and flipped, through every loading command.
for library in "$fixtures" "$runtime/libdispatch.so"; do
  name="$(basename "$library")"
  size=$(stat -c %s "$library")
  for cut in 0 16 64 4096 8192 65536 $((size / 2)) $((size - 100)); do
    [ "$cut" -lt "$size" ] || continue
    head -c "$cut" "$library" > "$work/cut-$cut-$name"
  done
  for seed in 1 2 3 4 5; do
    python3 - "$library" "$work/flip-$seed-$name" "$seed" <<'EOF'
import random, sys
data = bytearray(open(sys.argv[1], "rb").read())
rng = random.Random(int(sys.argv[3]))
for _ in range(40):
    data[rng.randrange(4096)] ^= rng.randrange(1, 256)
open(sys.argv[2], "wb").write(data)
EOF
  done
done
for file in "$work"/cut-* "$work"/flip-*; do
  sweep "0 65 66 70" inspect --library "$file" --symbol bf_int_long
  sweep "0 65 66 70" inspect --library "$file" --variable bf_global_block_variable --json
  sweep "0 65 66 70" call --library "$file" --symbol bf_int_long 3 4
  sweep "0 65 66 70" objc classes "$file"
  sweep "0 1 65 66" dump "$file"
done

# Not libraries at all.
printf 'not a library\n' > "$work/text.so"
mkdir -p "$work/folder.so" "$work/empty"
mkfifo "$work/fifo.so"
for file in "$work/text.so" "$work/folder.so" "$work/fifo.so" /dev/null /nonexistent/lib.so libnosuch.so; do
  sweep "65 66" inspect --library "$file" --symbol f
  sweep "65 66" call --library "$file" --symbol f 1
  sweep "65 66" objc classes "$file"
done
sweep "1 66" dump "$work/text.so" "$work/fifo.so" /nonexistent
sweep "66" dump -r "$work/empty"

# Malformed encodings and values.
for encoding in '' '{' '{S=' '[99999999999999999999i]' 'i-1@?0' '^^^^^^^^^^' '(' '@"' 'b999999999' \
  "$(printf 'v16@?0%.0s{' {1..2000})" "$(head -c 3000 /dev/urandom | base64 -w0)"; do
  sweep "0 64 65" decode "$encoding"
  sweep "0 1 65" check "$encoding" 'v16@?0i8'
  sweep "0 1 65" check --level abi 'v16@?0i8' "$encoding"
  sweep "0 65" method "$encoding"
  sweep "0 65" block "$encoding"
  sweep "65" call --library "$fixtures" --symbol bf_int_long --signature "$encoding" 1 2
done
head -c 100000 /dev/urandom > "$work/random.bin"
input="$work/random.bin" sweep "0 65" decode
for value in '' '[' '1e999999' '"0x1ffffffffffffffffffffffffffffffff"' '{"member": 9}' 'null' '-1'; do
  sweep "0 64 65" call --library "$fixtures" --symbol bf_int_long -- "$value" 2
done

# Processes and headers that are not there or not right.
sweep "64 65 66" inspect --pid 999999999 --address 0x1000
sweep "64 65 66" inspect --pid 1 --address 0
sweep "64" inspect --pid -5 --all
sweep "66" table /nonexistent.h --struct s
sweep "65 66" table "$work/text.so" --struct s
sweep "66" objc protocol /nonexistent.h --protocol P
sweep "65 66" objc protocol "$work/text.so" --protocol P
sweep "64" nosuchcommand
sweep "64" help nosuch
sweep "64"

echo "bad-input sweep: $runs runs, $failures with a signal, a hang or an undocumented status"
[ "$failures" -eq 0 ]
