#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer, in its own scratch path so the normal
# .build stays untouched (.build-asan is covered by .gitignore's `.build-*/`).
#
#   Scripts/asan.sh [extra swift test arguments, e.g. --filter Hardening]
#
# Environment: ASAN_JOBS limits parallel compile jobs (default: all cores).
# detect_leaks=0: LeakSanitizer reports the Swift runtime's and Foundation's process-lifetime
# caches, which are not leaks of this library; every other ASan check (overflows, use after
# free, double free) stays on and aborts the run.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=()
[ -n "${ASAN_JOBS:-}" ] && jobs=(-j "$ASAN_JOBS")
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0}"
start=$(date +%s)
swift build --build-tests --sanitize=address --scratch-path .build-asan "${jobs[@]}"
built=$(date +%s)
swift test --skip-build --sanitize=address --scratch-path .build-asan "$@"
end=$(date +%s)
echo "asan: build $((built - start))s, tests $((end - built))s" >&2
