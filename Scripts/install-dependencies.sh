#!/usr/bin/env bash
# Installs the Debian packages a job needs when the files it uses are missing:
#
#   Scripts/install-dependencies.sh build   what `swift build` needs
#   Scripts/install-dependencies.sh test    that, and what `swift test` needs
#
# Each package is checked by what the build or the tests really use, not by dpkg's status:
# a package dpkg calls installed whose files are gone (removed by hand, hidden, a half-copied
# image) is reinstalled.
#
#   libffi-dev            build  libffi's header and library, for BlockSignatureFFI: a C
#                                program that includes <ffi.h> and calls ffi_prep_cif must
#                                compile and link with the toolchain's clang
#   gobjc                 build  gcc's Objective-C compiler, with GCC's Objective-C runtime for
#                                the default gcc (libobjc-N-dev): BlockSignatureObjC links
#                                -lobjc, which a C program must link with the toolchain's
#                                clang; the Objective-C tests build their oracle with gcc
#   libgnustep-base-dev   test   GNUstep Base and gnustep-config: the Objective-C tests drive
#                                it and read NSXMLParserDelegate from its header
#   libblocksruntime-dev  test   Debian's blocks runtime (libBlocksRuntime.so.0): the tests load
#                                it beside the toolchain's to check that blocksig reports two
#   libxml2-dev           test   libxml2 and <libxml/parser.h>: the dynamic delegate tests fill
#                                its SAX handler and check the layout against the header
#   python3               test   expat (xml.sax), the independent parser those tests compare with
#   python3-jsonschema    test   the reference JSON Schema validator, for the Schemas/ tests
set -euo pipefail
job=${1:-}
case "$job" in
  build | test) ;;
  *)
    echo "usage: $0 build|test" >&2
    exit 64
    ;;
esac

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
clang=$(command -v clang || true)

# Compiles and links a C program from standard input with `clang ARGUMENTS`; silent.
links() {
  [ -n "$clang" ] && "$clang" -x c - -o "$scratch/probe" "$@" >/dev/null 2>&1
}

has_libffi() {
  links -lffi <<'C'
#include <ffi.h>
int main(void) { ffi_cif cif; return ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 0, &ffi_type_void, 0) != FFI_OK; }
C
}
has_libobjc() {
  links -lobjc <<'C'
void *objc_lookUpClass(const char *name);
int main(void) { return objc_lookUpClass("Object") == 0 && 0; }
C
}
has_objective_c_compiler() {
  command -v gcc >/dev/null && echo 'int main(void) { return 0; }' |
    gcc -x objective-c - -o "$scratch/objc-probe" >/dev/null 2>&1
}
has_gnustep_base() {
  command -v gnustep-config >/dev/null && [ -n "$(gnustep-config --base-libs 2>/dev/null)" ] &&
    links -lgnustep-base -lobjc <<'C'
int main(void) { return 0; }
C
}
has_debian_blocks_runtime() {
  local multiarch
  multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
  [ -e "/usr/lib/$multiarch/libBlocksRuntime.so.0" ]
}
has_libxml2() {
  links -I/usr/include/libxml2 -lxml2 <<'C'
#include <libxml/parser.h>
int main(void) { return xmlSAXUserParseMemory == 0; }
C
}
has_python3() { command -v python3 >/dev/null; }
has_jsonschema() { python3 -c "import jsonschema" 2>/dev/null; }

missing=()
has_libffi || missing+=(libffi-dev)
has_libobjc || missing+=(gobjc)
if [ "$job" = test ]; then
  has_objective_c_compiler || [[ " ${missing[*]} " == *" gobjc "* ]] || missing+=(gobjc)
  has_gnustep_base || missing+=(libgnustep-base-dev)
  has_debian_blocks_runtime || missing+=(libblocksruntime-dev)
  has_libxml2 || missing+=(libxml2-dev)
  has_python3 || missing+=(python3)
  # jsonschema may come from pip as well as from Debian: Python answers.
  has_python3 && has_jsonschema || missing+=(python3-jsonschema)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
# --reinstall: a package dpkg lists as installed but whose files are missing is unpacked again.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --reinstall "${missing[@]}" >/dev/null
if ! has_libffi; then
  echo "error: libffi-dev is installed but <ffi.h> and -lffi still do not build a program" >&2
  exit 1
fi
if ! has_libobjc; then
  echo "error: gobjc is installed but -lobjc (GCC's Objective-C runtime) still does not link" >&2
  exit 1
fi
