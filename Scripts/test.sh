#!/usr/bin/env bash
# Runs the whole test suite from a fresh machine: installs the Debian packages the tests
# use when they are missing, then builds and runs `swift test`.
#
#   libblocksruntime-dev  Debian's blocks runtime: the tests load it next to the toolchain's
#                         to check that blocksig reports two runtimes in one process.
#   libffi-dev            libffi's headers and pkg-config file, for BlockSignatureFFI.
#   libgnustep-base-dev   GNUstep Base's headers, library and gnustep-config, with GCC's
#                         Objective-C runtime (libobjc-12-dev): BlockSignatureObjC links the
#                         runtime; the Objective-C tests drive GNUstep and read its headers.
#   gobjc                 gcc for Objective-C (and GCC's objc/runtime.h): the Objective-C
#                         tests' oracle is code compiled as Debian compiles GNUstep.
#   libxml2-dev           libxml2 and its header: the dynamic delegate tests fill its SAX
#                         handler and check the layout against the header.
#   python3               expat (xml.sax), the independent parser those tests compare with.
#   python3-jsonschema    the reference JSON Schema validator, for the Schemas/ tests.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libblocksruntime-dev libffi-dev libxml2-dev python3 libgnustep-base-dev gobjc)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# jsonschema may come from pip as well as from Debian: ask Python, not dpkg.
python3 -c "import jsonschema" 2>/dev/null || missing+=(python3-jsonschema)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

swift build
swift test
