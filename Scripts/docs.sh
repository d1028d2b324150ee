#!/usr/bin/env bash
# Builds the library's DocC documentation with the toolchain's `docc` and fails on any warning:
# a broken ``symbol`` link, an undocumented parameter, a missing article. The symbol graph comes
# from a build of the library alone in its own scratch folder (.build/docs), so the ordinary
# debug build is not rebuilt with other flags.
#
#   Scripts/docs.sh                 check (used by .ci/run)
#   Scripts/docs.sh FOLDER          also keep the archives (one per target) in FOLDER
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build/docs
symbols="$scratch/symbol-graphs"
# Kept between runs: an up-to-date build emits no new graphs.
mkdir -p "$symbols"
for target in BlockSignature BlockSignatureBinary BlockSignatureRuntime BlockSignatureValues BlockSignatureFFI BlockSignatureHeaders BlockSignatureObjC BlockSignatureHook; do
  swift build --target "$target" --scratch-path "$scratch" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$symbols" >/dev/null
done
for target in BlockSignature BlockSignatureBinary BlockSignatureRuntime BlockSignatureValues BlockSignatureFFI BlockSignatureHeaders BlockSignatureObjC BlockSignatureHook; do
  output="${1:-$scratch}/$target.doccarchive"
  # Each catalog with its own module's symbol graph (and its extensions of other modules).
  graphs="$scratch/graphs-$target"
  rm -rf "$graphs"
  mkdir -p "$graphs"
  cp "$symbols/$target".symbols.json "$graphs/"
  cp "$symbols/$target"@*.symbols.json "$graphs/" 2>/dev/null || true
  docc convert "Sources/$target/$target.docc" \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name "$target" --fallback-bundle-identifier "org.blocksignature.$target" \
    --warnings-as-errors --output-path "$output"
done
echo "docs: no warnings"
