#!/usr/bin/env bash
# Runs the whole test suite under ThreadSanitizer, in its own scratch path so the normal
# .build stays untouched (.build-tsan is covered by .gitignore's `.build-*/`). Any race report
# fails the run: halt_on_error stops the process at the first one.
#
#   Scripts/tsan.sh [extra swift test arguments, e.g. --filter Concurrency]
#
# Environment: TSAN_JOBS limits parallel compile jobs (default: all cores).
#
# Linking: clang's TSan instrumentation calls __tsan_ignore_thread_begin/_end (in the block
# helpers of a C library built with -fsanitize=thread, such as libBlockFixtures.so), which the
# runtime defines but the toolchain's export list (libclang_rt.tsan-x86_64.a.syms) leaves out:
# an executable such as blocksig could not dlopen that library ("undefined symbol:
# __tsan_ignore_thread_begin"). The two symbols are exported from every link here.
#
# No suppressions: the whole suite, the Objective-C tests on GNUstep Base and GCC's libobjc
# (not instrumented) included, gives no report. A report in our own code is fixed, never
# suppressed.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=()
[ -n "${TSAN_JOBS:-}" ] && jobs=(-j "$TSAN_JOBS")
# The Swift runtime's backtracer, catching TSan's abort, can hang trying to suspend the other
# threads ("failed to suspend thread"): without it the process ends at the report.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:second_deadlock_stack=1}"
exports=(-Xlinker --export-dynamic-symbol=__tsan_ignore_thread_begin
  -Xlinker --export-dynamic-symbol=__tsan_ignore_thread_end)
start=$(date +%s)
swift build --build-tests --sanitize=thread --scratch-path .build-tsan "${exports[@]}" "${jobs[@]}"
built=$(date +%s)
swift test --skip-build --sanitize=thread --scratch-path .build-tsan "${exports[@]}" "$@"
end=$(date +%s)
echo "tsan: build $((built - start))s, tests $((end - built))s" >&2
