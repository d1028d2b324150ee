#!/usr/bin/env bash
# Makes a release: tags the committed HEAD with VERSION once everything that names the version
# agrees. Refuses, making no tag, unless
#   - VERSION is MAJOR.MINOR.PATCH (the form SwiftPM's `from:` resolves),
#   - CHANGELOG.md has an entry for it (a `## VERSION` heading),
#   - no tag VERSION exists yet,
#   - the work tree has no uncommitted change to a tracked file (the tag names HEAD),
#   - `blocksig --version` prints VERSION.
# The tag is annotated and local: pushing it (`git push origin VERSION`) publishes the release.
#
#   Scripts/release.sh [--blocksig PATH] VERSION
#
# --blocksig PATH: the blocksig whose version is checked; by default it is built here
# (`swift build --product blocksig`).
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: Scripts/release.sh [--blocksig PATH] VERSION" >&2
  exit 2
}
refuse() {
  echo "release.sh: error: $1; no tag made" >&2
  exit 1
}

blocksig=""
version=""
while [ $# -gt 0 ]; do
  case "$1" in
    --blocksig)
      [ $# -ge 2 ] || usage
      blocksig=$2
      shift 2
      ;;
    -*) usage ;;
    *)
      [ -z "$version" ] || usage
      version=$1
      shift
      ;;
  esac
done
[ -n "$version" ] || usage

if ! [[ "$version" =~ ^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$ ]]; then
  refuse "'$version' is not a version MAJOR.MINOR.PATCH, such as 0.1.0"
fi
if [ ! -f CHANGELOG.md ]; then
  refuse "there is no CHANGELOG.md"
fi
if ! grep -Eq "^## \[?${version//./\\.}\]?( |$)" CHANGELOG.md; then
  refuse "CHANGELOG.md has no entry for $version: add a '## $version' heading listing what it changes"
fi
if git rev-parse -q --verify "refs/tags/$version" >/dev/null; then
  refuse "tag $version exists already (at $(git rev-list -n 1 "$version" | cut -c1-12))"
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  refuse "the work tree has uncommitted changes: commit them, or release from a clean clone"
fi

if [ -z "$blocksig" ]; then
  swift build --product blocksig >&2
  blocksig="$(swift build --show-bin-path)/blocksig"
fi
printed=$("$blocksig" --version) || refuse "$blocksig --version failed"
if [ "$printed" != "$version" ]; then
  refuse "blocksig --version prints '$printed', not $version: set the version in Sources/blocksig/BlockSig.swift"
fi

git tag -a "$version" -m "BlockSignature $version"
echo "tagged $(git rev-parse --short HEAD) as $version; publish it with: git push origin $version"
