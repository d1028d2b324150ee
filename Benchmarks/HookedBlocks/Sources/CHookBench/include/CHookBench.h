// The C side of the hooked-block benchmark: loops that call `double (^)(int, double)` blocks
// and `double (*)(int, double)` functions, timed in C, and the references made here.
#ifndef CHOOKBENCH_H
#define CHOOKBENCH_H

#pragma clang assume_nonnull begin

/// Nanoseconds per call of `count` calls of the block `block` (a `double (^)(int, double)`);
/// `*checksum` gets the sum of the results.
double chb_time_block(const void *block, long count, double *checksum);
/// Nanoseconds per call of `count` calls of `function` (a `double (*)(int, double)`).
double chb_time_function(const void *function, long count, double *checksum);
/// A heap block clang compiled: `^(int a, double b) { return a * b + k; }`, copied once.
const void *chb_clang_heap_block(void);
/// A second one, to be hooked (the first stays as it is).
const void *chb_clang_hooked_block(void);
/// A bare libffi closure with the same signature (made once, kept).
const void *_Nullable chb_bare_closure(void);

#pragma clang assume_nonnull end

#endif
