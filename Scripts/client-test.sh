#!/usr/bin/env bash
# Builds Tests/ClientPackage, a package that depends on this one by path as a new user's
# would, runs its executables (LifetimeClient built optimized; MakeClient under both blocks
# runtimes: the toolchain's, and Debian's preloaded; ObjCClient, the README's Objective-C
# example), and checks that the one using only the core product (BlockSignature) needs
# neither libBlocksRuntime, libffi nor an Objective-C runtime.
#
#   Scripts/client-test.sh [extra swift build arguments, e.g. -j 1]
set -euo pipefail
cd "$(dirname "$0")/../Tests/ClientPackage"
scratch=.build  # Tests/ClientPackage/.build, ignored by .gitignore's `.build/`
swift build --scratch-path "$scratch" "$@"
bin=$(swift build --scratch-path "$scratch" --show-bin-path)

echo "== RuntimeClient"
"$bin/RuntimeClient"
echo "== CallClient"
"$bin/CallClient"
echo "== CoreClient"
"$bin/CoreClient"
echo "== ObjCClient, the README's Objective-C example"
objc_output=$("$bin/ObjCClient")
echo "$objc_output"
objc_expected=$'12\n[5, 1]\n3\nstart greeting\ntext hello\n1'
if [ "$objc_output" != "$objc_expected" ]; then
  echo "FAIL ObjCClient's output differs from the README's comments" >&2
  exit 1
fi
echo "== MakeClient, the toolchain's blocks runtime"
"$bin/MakeClient"
debian_runtime=/usr/lib/x86_64-linux-gnu/libBlocksRuntime.so.0
if [ ! -e "$debian_runtime" ]; then
  echo "FAIL $debian_runtime is missing (apt-get install libblocksruntime-dev)" >&2
  exit 1
else
  echo "== MakeClient, Debian's blocks runtime preloaded"
  output=$(LD_PRELOAD="$debian_runtime" "$bin/MakeClient")
  echo "$output"
  if ! grep -q "^runtime: $debian_runtime " <<<"$output"; then
    echo "FAIL MakeClient did not run on Debian's runtime" >&2
    exit 1
  fi
fi

echo "== LifetimeClient, optimized (Swift releases objects right after their last use)"
swift build --scratch-path "$scratch" -c release --product LifetimeClient "$@"
"$(swift build --scratch-path "$scratch" -c release --show-bin-path)/LifetimeClient"

echo "== CoreClient's libraries"
status=0
needed=$(readelf -d "$bin/CoreClient" | sed -n 's/.*Shared library: \[\(.*\)\]$/\1/p')
loaded=$(ldd "$bin/CoreClient")
echo "needed: $(tr '\n' ' ' <<<"$needed")"
for library in libBlocksRuntime libffi libobjc libgnustep-base; do
  if grep -q "^$library" <<<"$needed"; then
    echo "FAIL CoreClient needs $library" >&2
    status=1
  elif grep -q "$library" <<<"$loaded"; then
    # Every Swift program loads libBlocksRuntime through the Swift runtime
    # (libswift_Concurrency → libdispatch): allowed only when a library CoreClient needs
    # brings it.
    via=""
    for dependency in $needed; do
      path=$(awk -v name="$dependency" '$1 == name { print $3 }' <<<"$loaded")
      if [ -n "$path" ] && ldd "$path" | grep -q "$library"; then via="$via $dependency"; fi
    done
    if [ -z "$via" ]; then
      echo "FAIL CoreClient loads $library, and no library it needs brings it:" >&2
      grep "$library" <<<"$loaded" >&2
      status=1
    else
      echo "$library: not needed, loaded only through$via"
    fi
  fi
done
# The same test on RuntimeClient must see libBlocksRuntime, or the test above proves nothing.
if ! readelf -d "$bin/RuntimeClient" | grep -q 'Shared library: \[libBlocksRuntime'; then
  echo "FAIL RuntimeClient does not need libBlocksRuntime: the check above cannot see it" >&2
  status=1
fi
# Only the Objective-C product brings GCC's runtime.
for client in RuntimeClient CallClient MakeClient; do
  if readelf -d "$bin/$client" | grep -q 'Shared library: \[libobjc'; then
    echo "FAIL $client needs libobjc" >&2
    status=1
  fi
done
if ! readelf -d "$bin/ObjCClient" | grep -q 'Shared library: \[libobjc'; then
  echo "FAIL ObjCClient does not need libobjc: the check above cannot see it" >&2
  status=1
fi
if [ "$status" -eq 0 ]; then echo "client package: ok"; fi
exit "$status"
