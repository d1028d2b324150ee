#!/usr/bin/env bash
# Runs the whole test suite under a sanitizer, in its own scratch path so the normal .build
# stays untouched (.build-address and .build-thread are covered by .gitignore's `.build-*/`).
#
#   Scripts/sanitize.sh address|thread [extra swift test arguments, e.g. --filter Hardening]
#
# Environment: SANITIZE_JOBS limits parallel compile jobs (default: all cores).
#
# address: detect_leaks=0, since LeakSanitizer reports the Swift runtime's and Foundation's
# process-lifetime caches, which are not leaks of this library; every other check (overflows,
# use after free, double free) stays on and aborts the run.
#
# thread: any race report fails the run (halt_on_error). No suppressions: the whole suite, the
# Objective-C tests on GNUstep Base and GCC's libobjc (not instrumented) included, gives no
# report; a report in our own code is fixed, never suppressed. clang's TSan instrumentation
# calls __tsan_ignore_thread_begin/_end (in the block helpers of a C library built with
# -fsanitize=thread, such as libBlockFixtures.so), which the runtime defines but the
# toolchain's export list leaves out, so they are exported from every link. The Swift
# runtime's backtracer, catching TSan's abort, can hang trying to suspend the other threads:
# it is off, so the process ends at the report.
set -euo pipefail
cd "$(dirname "$0")/.."
sanitizer="${1:-}"
shift || true
flags=()
case "$sanitizer" in
  address)
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:detect_stack_use_after_return=0}" ;;
  thread)
    export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
    export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:second_deadlock_stack=1}"
    flags=(-Xlinker --export-dynamic-symbol=__tsan_ignore_thread_begin
      -Xlinker --export-dynamic-symbol=__tsan_ignore_thread_end) ;;
  *)
    echo "usage: $0 address|thread [swift test arguments]" >&2
    exit 64 ;;
esac
[ -n "${SANITIZE_JOBS:-}" ] && flags+=(-j "$SANITIZE_JOBS")
scratch=".build-$sanitizer"
start=$(date +%s)
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" "${flags[@]}"
built=$(date +%s)
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "${flags[@]}" "$@"
end=$(date +%s)
echo "$sanitizer sanitizer: build $((built - start))s, tests $((end - built))s" >&2
