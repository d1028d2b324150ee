#include "CBenchBlocks.h"

#include <ffi.h>
#include <stddef.h>

typedef double (^cbench_scale_t)(int, double);

const void *cbench_clang_block(void) {
  return (const void *)^double(int a, double b) { return a * b; };
}

double cbench_call_block(const void *block, int count) {
  cbench_scale_t scale = (cbench_scale_t)block;
  double sum = 0;
  for (int i = 0; i < count; i++) sum += scale(i, 0.5);
  return sum;
}

double cbench_call_function(const void *function, int count) {
  double (*scale)(int, double) = (double (*)(int, double))function;
  double sum = 0;
  for (int i = 0; i < count; i++) sum += scale(i, 0.5);
  return sum;
}

static double cbench_direct(int a, double b) { return a * b; }

const void *cbench_direct_function(void) { return (const void *)cbench_direct; }

static void cbench_closure_handler(ffi_cif *cif, void *result, void **arguments, void *data) {
  (void)cif;
  (void)data;
  *(double *)result = *(int *)arguments[0] * *(double *)arguments[1];
}

const void *cbench_bare_closure(void) {
  static ffi_cif cif;
  static ffi_type *types[2];
  static void *code;
  if (code) return code;
  types[0] = &ffi_type_sint;
  types[1] = &ffi_type_double;
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 2, &ffi_type_double, types) != FFI_OK) return NULL;
  void *writable = ffi_closure_alloc(sizeof(ffi_closure), &code);
  if (!writable || ffi_prep_closure_loc(writable, &cif, cbench_closure_handler, NULL, code) != FFI_OK) {
    code = NULL;
    return NULL;
  }
  return code;
}
