// See the header.
#include "CMadeBlockBench.h"

#include <Block.h>
#include <ffi.h>
#include <stddef.h>
#include <time.h>

static double cmb_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

double cmb_time_block(const void *block, long count, double *checksum) {
  double (^volatile call)(int, double) = (double (^)(int, double))block;
  double sum = 0, start = cmb_now();
  for (long i = 0; i < count; i++) sum += call((int)i, 0.5);
  double end = cmb_now();
  *checksum += sum;
  return (end - start) / count;
}

double cmb_time_function(const void *function, long count, double *checksum) {
  double (*volatile call)(int, double) = (double (*)(int, double))function;
  double sum = 0, start = cmb_now();
  for (long i = 0; i < count; i++) sum += call((int)i, 0.5);
  double end = cmb_now();
  *checksum += sum;
  return (end - start) / count;
}

const void *cmb_clang_block(void) {
  static double (^block)(int, double) = ^(int a, double b) { return a * b; };
  return (const void *)block;
}

const void *cmb_clang_heap_block(void) {
  static const void *copy = NULL;
  if (!copy) {
    double factor = 1.0;
    copy = _Block_copy(^(int a, double b) { return a * b * factor; });
  }
  return copy;
}

static double cmb_direct(int a, double b) { return a * b; }

const void *cmb_direct_function(void) { return (const void *)cmb_direct; }

static void cmb_handler(ffi_cif *cif, void *result, void **arguments, void *data) {
  (void)cif;
  (void)data;
  *(double *)result = *(int *)arguments[0] * *(double *)arguments[1];
}

const void *cmb_bare_closure(void) {
  static ffi_cif cif;
  static ffi_type *types[2];
  static void *code;
  if (code) return code;
  types[0] = &ffi_type_sint;
  types[1] = &ffi_type_double;
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 2, &ffi_type_double, types) != FFI_OK) return NULL;
  ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
  if (!closure || ffi_prep_closure_loc(closure, &cif, cmb_handler, NULL, code) != FFI_OK) return NULL;
  return code;
}
