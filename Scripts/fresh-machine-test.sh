#!/usr/bin/env bash
# Runs the README's first command (Scripts/call-fixture-block.sh) as on a machine without
# libffi-dev, and checks that it installs what it needs, builds, and calls the block.
#
# How libffi-dev is made absent without touching the machine: in a private mount namespace
# (`unshare -m`), an overlay filesystem is mounted over each folder that holds one of its
# files (the headers' /usr/include/<multiarch>, and /usr/lib/<multiarch> for libffi.so,
# libffi.a and pkgconfig/libffi.pc), and those files are deleted in the overlay, where a
# deletion is only a whiteout in a tmpfs. Inside the namespace the files are gone, while dpkg
# still lists libffi-dev as installed: a check that asked dpkg would skip the install and
# the build would fail on 'ffi.h' file not found. So success proves that the install step
# looks for the files themselves and puts them back (`apt-get install --reinstall` unpacks
# them into the overlay, where this namespace's build sees them). Outside the namespace
# nothing changes; the namespace and its tmpfs go away when the script's inner shell ends.
#
# The build runs in a fresh scratch folder, so no module built earlier with the header can
# stand in for it. Needs root (or CAP_SYS_ADMIN) and the network (apt); takes a full debug
# build's time.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "error: $0 needs root for unshare -m and mount" >&2
  exit 1
fi
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
work=$(mktemp -d)    # the overlays' tmpfs inside the namespace
build=$(mktemp -d)   # the fresh scratch folder, on disk
trap 'rm -rf "$work" "$build"' EXIT
export FRESH_WORK=$work FRESH_BUILD=$build FRESH_MULTIARCH=$multiarch

unshare -m bash -euo pipefail -c '
  mount --make-rprivate /
  mount -t tmpfs fresh-machine "$FRESH_WORK"
  # hide FOLDER FILE...: an overlay over FOLDER, then FILE... deleted in it.
  hide() {
    local folder=$1 name
    shift
    name=$(echo "$folder" | tr / _)
    mkdir -p "$FRESH_WORK/upper$name" "$FRESH_WORK/work$name"
    mount -t overlay overlay \
      -o "lowerdir=$folder,upperdir=$FRESH_WORK/upper$name,workdir=$FRESH_WORK/work$name" "$folder"
    for file in "$@"; do rm -f "$folder/$file"; done
  }
  hide "/usr/include/$FRESH_MULTIARCH" ffi.h ffitarget.h
  hide "/usr/lib/$FRESH_MULTIARCH" libffi.so libffi.a libffi_pic.a pkgconfig/libffi.pc

  # The test proves nothing unless the header is really gone here, and dpkg still lists it.
  if echo "#include <ffi.h>" | clang -E -x c - >/dev/null 2>&1; then
    echo "FAIL <ffi.h> is still visible inside the namespace" >&2
    exit 1
  fi
  dpkg-query -W -f="\${Status}\n" libffi-dev | grep -q "install ok installed" ||
    { echo "FAIL libffi-dev is not listed as installed: the reinstall path is not tested" >&2; exit 1; }
  echo "== hidden: <ffi.h>, libffi.so, libffi.pc (dpkg: libffi-dev installed)"

  SCRATCH_PATH="$FRESH_BUILD" bash Scripts/call-fixture-block.sh 100 2>&1 | tee "$FRESH_WORK/output"
  grep -q "^installing: libffi-dev" "$FRESH_WORK/output" ||
    { echo "FAIL the install step did not install libffi-dev" >&2; exit 1; }
  # What it printed after the install, its build folder spelled .build as in the README,
  # must be the README'"'"'s transcript (the <pre> block after "The first prints").
  grep -v -e "^installing: " -e "^debconf: " "$FRESH_WORK/output" |
    sed "s|$FRESH_BUILD/|.build/|g" >"$FRESH_WORK/printed"
  awk "/^The first prints/ { found = 1 } found && /^<\/pre>/ { exit } found && inside { print } \
    found && /^<pre>/ { inside = 1 }" README.md >"$FRESH_WORK/readme"
  [ -s "$FRESH_WORK/readme" ] || { echo "FAIL no transcript after \"The first prints\" in README.md" >&2; exit 1; }
  if ! diff -u "$FRESH_WORK/readme" "$FRESH_WORK/printed"; then
    echo "FAIL the output differs from the README (- README, + printed)" >&2
    exit 1
  fi
'
echo "fresh machine: ok"
