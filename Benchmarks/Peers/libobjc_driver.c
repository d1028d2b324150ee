// GCC libobjc (libobjc-12-dev) as a peer: walks a signature the way the GNU runtime's
// method_getNumberOfArguments does (objc_skip_argspec), and sizes each type with
// objc_sizeof_type / objc_alignof_type after objc_skip_type_qualifiers, the documented idiom.
// libobjc computes no frame length of its own (it only skips the written offsets).
#include <objc/runtime.h>

#define PEER_NAME "libobjc"
#include "harness.h"

static int peer_answer(const char *signature, struct peer_answer *answer) {
  const char *type = objc_skip_type_qualifiers(signature);
  answer->ret_size = objc_sizeof_type(type);
  answer->ret_align = objc_alignof_type(type);
  answer->frame = -1;
  int n = 0;
  const char *cursor = objc_skip_argspec(signature);
  while (*cursor != 0) {
    if (n == PEER_MAX_ARGS) return 1;
    type = objc_skip_type_qualifiers(cursor);
    answer->size[n] = objc_sizeof_type(type);
    answer->align[n] = objc_alignof_type(type);
    n++;
    cursor = objc_skip_argspec(cursor);
  }
  answer->nargs = n;
  return 0;
}

int main(int argc, char **argv) { return harness_main(argc, argv); }
