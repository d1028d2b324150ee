#!/usr/bin/env bash
# Builds and runs every ```swift block of README.md as a program: each block becomes the
# main.swift of its own executable target (ReadmeExample1, 2, … in README order) in a
# throwaway client package that depends on this one by path and on its library products, as
# a new user's package would. Fails on any compile error or any example that exits non-zero.
#
#   Scripts/readme-examples.sh [extra swift build arguments, e.g. -j 1]
#
# The client package is written afresh to .build/readme-examples/ on each run (its build
# folder is kept there, so a second run rebuilds only what changed).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
client=.build/readme-examples
rm -rf "$client/Sources" "$client/Package.swift"
mkdir -p "$client/Sources"

# Each block's lines, between its ```swift line and the closing ```, to its own main.swift;
# a block whose first line is `// Package.swift…` is a manifest excerpt, not a program, and
# is left out.
count=$(awk -v sources="$client/Sources" '
  /^```swift$/ { opening = 1; next }
  opening {
    opening = 0
    if ($0 ~ /^\/\/ Package\.swift/) next
    n++; dir = sources "/ReadmeExample" n; system("mkdir -p " dir); file = dir "/main.swift"
  }
  /^```/ { if (file) close(file); file = ""; next }
  file { print > file }
  END { print n + 0 }' README.md)
if [ "$count" -eq 0 ]; then
  echo "FAIL README.md has no \`\`\`swift block" >&2
  exit 1
fi

source "$root/Scripts/lib/client-manifest.sh"
client_manifest ReadmeExamples ".package(path: \"$root\")" "$(basename "$root")" "$(library_products)" \
  "$(for n in $(seq "$count"); do printf 'ReadmeExample%s ' "$n"; done)" >"$client/Package.swift"

cd "$client"
swift build --scratch-path .build "$@"
bin=$(swift build --scratch-path .build --show-bin-path)
status=0
for n in $(seq "$count"); do
  echo "== ReadmeExample$n"
  "$bin/ReadmeExample$n" || {
    echo "FAIL ReadmeExample$n exited with status $?" >&2
    status=1
  }
done
[ "$status" -eq 0 ] && echo "README examples: $count built and ran"
exit "$status"
