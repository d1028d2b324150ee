#include "CBenchBlocks.h"

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
