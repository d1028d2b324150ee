#!/usr/bin/env bash
# Formats the Swift sources with the toolchain's swift-format and the committed .swift-format,
# then lints them.
#
#   Scripts/format.sh          format in place, then lint
#   Scripts/format.sh --lint   lint only (non-zero exit on findings)
set -euo pipefail
cd "$(dirname "$0")/.."
paths=(Package.swift Sources Tests FuzzTesting/Sources FuzzTesting/Package.swift Benchmarks/Package.swift Benchmarks/Sources Benchmarks/Benchmarks)
if [ "${1:-}" != "--lint" ]; then
  swift format format --in-place --recursive --parallel "${paths[@]}"
fi
swift format lint --strict --recursive --parallel "${paths[@]}"
