#!/usr/bin/env bash
# Builds the libFuzzer harnesses and runs each one briefly, one after another.
#
#   FuzzTesting/fuzz.sh [seconds-per-target] [target…]     default: 60 seconds, every target
#   FuzzTesting/fuzz.sh --short [target…]                   CI's short mode (.ci/run)
#
# Short mode first replays every input kept in Corpus/<target> and FailCases/<target> (none
# may fail), then fuzzes each target for FUZZ_SHORT_SECONDS (default 10): the whole step,
# build included, takes a few minutes.
#
# Build: SwiftPM's `--sanitize=fuzzer --sanitize=address` passes two `-sanitize=` options and
# swiftc keeps only the last, so Swift code would get ASan but no coverage. `--sanitize=fuzzer`
# is kept (SwiftPM then links libFuzzer's main and skips the testable-executable renaming of
# `main`) and `-Xswiftc -sanitize=fuzzer,address` comes last, so both apply; `-parse-as-library`
# because the harnesses define `LLVMFuzzerTestOneInput`, not `main`. libFuzzer is the
# toolchain's `libclang_rt.fuzzer-x86_64.a`.
#
# Each target fuzzes a scratch copy of Corpus/<target> (in .build/corpus, never committed) with
# its dictionary; a crash, leak, timeout or oversized allocation is written to
# FailCases/<target>/ and the script exits non-zero; each target's log ends up in
# .build/fuzz-<target>.log. Replay one with
#   .build/debug/<target> FailCases/<target>/<file>
# Environment: FUZZ_CONFIGURATION=debug|release (default debug), FUZZ_JOBS (default 1).
set -euo pipefail
cd "$(dirname "$0")"
short=0
if [ "${1:-}" = "--short" ]; then
  short=1
  seconds="${FUZZ_SHORT_SECONDS:-10}"
else
  seconds="${1:-60}"
fi
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(FuzzTypeEncoding FuzzSignature FuzzBinaryScanner FuzzLibraryLoad FuzzExtendedLayout)
  [ -d Sources/FuzzCompatibility ] && targets+=(FuzzCompatibility)
  targets+=(FuzzSwiftType FuzzCallbackTable FuzzCValueJSON FuzzTypedCall)
fi
configuration="${FUZZ_CONFIGURATION:-debug}"
jobs="${FUZZ_JOBS:-1}"

mkdir -p .build
# SwiftPM keeps a local dependency's file list in its cached build description: a source file
# added to ../Sources since the last fuzz build would be missing ("cannot find type"; touching
# ../Package.swift did not always help). Dropping the description makes it plan again; the
# compiled objects are kept.
rm -f .build/*/"$configuration"/description.json
if ! swift build -c "$configuration" --sanitize=fuzzer \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xcc -fsanitize=address \
  > .build/fuzz-build.log 2>&1; then
  # gold warns once per ASan helper symbol; keep only what matters.
  grep -v "Cannot export local symbol" .build/fuzz-build.log >&2
  exit 1
fi
bin="$(swift build -c "$configuration" --show-bin-path)"

status=0
for target in "${targets[@]}"; do
  leaks=()
  asan="${ASAN_OPTIONS:-}"
  case "$target" in
    FuzzBinaryScanner) dict=Dictionaries/binary.dict; max_len=16384 ;;
    # A library loaded in a forked child stays mapped there only; the parent keeps nothing.
    FuzzLibraryLoad) dict=Dictionaries/binary.dict; max_len=16384 ;;
    FuzzExtendedLayout) dict=""; max_len=256 ;;
    FuzzCompatibility) dict=Dictionaries/encoding.dict; max_len=1024 ;;
    FuzzSwiftType) dict=Dictionaries/swift.dict; max_len=1024 ;;
    FuzzCallbackTable) dict=Dictionaries/table.dict; max_len=4096 ;;
    FuzzCValueJSON) dict=Dictionaries/json.dict; max_len=4096 ;;
    # Each new signature text prepares a made-block prototype kept for the process's life by
    # design (DynamicBlock.preparedSignatureCount), which LeakSanitizer reports on first use;
    # that made blocks leave nothing behind is the unit test tenThousandBlocksLeaveNothingBehind's.
    FuzzTypedCall) dict=Dictionaries/json.dict; max_len=4096; leaks=(-detect_leaks=0); asan="detect_leaks=0" ;;
    *) dict=Dictionaries/encoding.dict; max_len=1024 ;;
  esac
  work=".build/corpus/$target"
  mkdir -p "$work" "FailCases/$target"
  args=(-max_total_time="$seconds" -jobs="$jobs" -workers="$jobs" -timeout=10 -rss_limit_mb=2048
        -malloc_limit_mb=512 -max_len="$max_len" -print_final_stats=1
        -artifact_prefix="FailCases/$target/")
  [ -n "$dict" ] && args+=(-dict="$dict")
  args+=("${leaks[@]}")
  before=$(ls "FailCases/$target" | wc -l)
  if [ "$short" -eq 1 ]; then
    # Every kept input once: a seed or a fixed failure that crashes again fails the step.
    kept=()
    for file in "Corpus/$target"/* "FailCases/$target"/*; do [ -f "$file" ] && kept+=("$file"); done
    if [ ${#kept[@]} -gt 0 ] && ! ASAN_OPTIONS="$asan" "$bin/$target" -runs=1 -timeout=10 -rss_limit_mb=2048 "${leaks[@]}" "${kept[@]}" \
      > ".build/replay-$target.log" 2>&1; then
      echo "== $target: a kept input fails (log in FuzzTesting/.build/replay-$target.log)" >&2
      grep -E "ERROR|SUMMARY" ".build/replay-$target.log" >&2 || true
      status=1
      continue
    fi
  fi
  echo "== $target: ${seconds}s" >&2
  # With -jobs, libFuzzer runs the target in a child that logs to fuzz-0.log.
  ASAN_OPTIONS="$asan" "$bin/$target" "${args[@]}" "$work" "Corpus/$target" || true
  log=".build/fuzz-$target.log"
  [ -f fuzz-0.log ] && mv fuzz-0.log "$log"
  grep -E "^(Done|stat::)|ERROR|SUMMARY" "$log" >&2 || true
  if [ "$(ls "FailCases/$target" | wc -l)" -ne "$before" ]; then
    echo "== $target: FAILED (input kept in FailCases/$target/, log in FuzzTesting/$log)" >&2
    status=1
  fi
done
exit $status
