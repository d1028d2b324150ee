// See the header.
#include "CHookBench.h"

#include <Block.h>
#include <ffi.h>
#include <stddef.h>
#include <time.h>

static double chb_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

double chb_time_block(const void *block, long count, double *checksum) {
  double (^volatile call)(int, double) = (double (^)(int, double))block;
  double sum = 0, start = chb_now();
  for (long i = 0; i < count; i++) sum += call((int)i, 0.5);
  double end = chb_now();
  *checksum += sum;
  return (end - start) / count;
}

double chb_time_function(const void *function, long count, double *checksum) {
  double (*volatile call)(int, double) = (double (*)(int, double))function;
  double sum = 0, start = chb_now();
  for (long i = 0; i < count; i++) sum += call((int)i, 0.5);
  double end = chb_now();
  *checksum += sum;
  return (end - start) / count;
}

static const void *chb_make(double k) { return Block_copy(^(int a, double b) { return a * b + k; }); }

const void *chb_clang_heap_block(void) {
  static const void *block;
  if (!block) block = chb_make(0);
  return block;
}

const void *chb_clang_hooked_block(void) {
  static const void *block;
  if (!block) block = chb_make(0);
  return block;
}

static void chb_handler(ffi_cif *cif, void *result, void **arguments, void *data) {
  (void)cif;
  (void)data;
  *(double *)result = *(int *)arguments[0] * *(double *)arguments[1];
}

const void *chb_bare_closure(void) {
  static ffi_cif cif;
  static ffi_type *types[2];
  static void *code;
  if (code) return code;
  types[0] = &ffi_type_sint;
  types[1] = &ffi_type_double;
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 2, &ffi_type_double, types) != FFI_OK) return NULL;
  ffi_closure *closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
  if (!closure || ffi_prep_closure_loc(closure, &cif, chb_handler, NULL, code) != FFI_OK) return NULL;
  return code;
}
