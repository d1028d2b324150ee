#!/usr/bin/env bash
# Times `blocksig decode` (text and --json) on one list of types read from standard input,
# 1 KB to 1 MB, the median of RUNS (default 3) whole-process wall times each, with the peak
# resident size. Linear work shows as a time ten times larger for each tenfold input.
#
#   Benchmarks/decode-scaling.sh [path to blocksig, default .build/debug/blocksig]
set -euo pipefail
cd "$(dirname "$0")/.."
blocksig=${1:-.build/debug/blocksig}
runs=${RUNS:-3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
unit='{P=dic}^v*[4i]'  # 14 bytes, 4 types: a list of types, the form laid out row by row

printf '%-8s %-6s %8s %10s %12s\n' bytes mode types seconds "peak KB"
for bytes in 1000 10000 100000 1000000; do
  input="$scratch/$bytes.txt"
  python3 -c "import sys; u=sys.argv[1]; print(u * (int(sys.argv[2]) // len(u)))" "$unit" "$bytes" >"$input"
  types=$(($(wc -c <"$input") / ${#unit} * 4))
  for mode in text json; do
    flag=()
    [ "$mode" = json ] && flag=(--json)
    times=()
    peak=0
    for _ in $(seq "$runs"); do
      /usr/bin/time -f '%e %M' -o "$scratch/time" "$blocksig" decode "${flag[@]}" <"$input" >/dev/null
      read -r seconds kilobytes <"$scratch/time"
      times+=("$seconds")
      [ "$kilobytes" -gt "$peak" ] && peak=$kilobytes
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
    printf '%-8s %-6s %8s %10s %12s\n' "$bytes" "$mode" "$types" "$median" "$peak"
  done
done
