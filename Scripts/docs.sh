#!/usr/bin/env bash
# Builds the library's DocC documentation with the toolchain's `docc` and fails on any warning:
# a broken ``symbol`` link, an undocumented parameter, a missing article. The symbol graph comes
# from a build of the library alone in its own scratch folder (.build/docs), so the ordinary
# debug build is not rebuilt with other flags.
#
#   Scripts/docs.sh                 check (used by .ci/run)
#   Scripts/docs.sh OUTPUT.doccarchive   also keep the archive
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build/docs
symbols="$scratch/symbol-graphs"
rm -rf "$symbols"
mkdir -p "$symbols"
swift build --target BlockSignature --scratch-path "$scratch" \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$symbols" >/dev/null
output="${1:-$scratch/BlockSignature.doccarchive}"
docc convert Sources/BlockSignature/BlockSignature.docc \
  --additional-symbol-graph-dir "$symbols" \
  --fallback-display-name BlockSignature --fallback-bundle-identifier org.blocksignature.BlockSignature \
  --warnings-as-errors --output-path "$output"
echo "docs: no warnings ($output)"
