// The C side of the made-block benchmark: loops that call `double (^)(int, double)` blocks and
// `double (*)(int, double)` functions, timed in C, and the two references made here.
#ifndef CMADEBLOCKBENCH_H
#define CMADEBLOCKBENCH_H

#pragma clang assume_nonnull begin

/// Nanoseconds per call of `count` calls of the block `block` (a `double (^)(int, double)`);
/// `*checksum` gets the sum of the results.
double cmb_time_block(const void *block, long count, double *checksum);
/// Nanoseconds per call of `count` calls of `function` (a `double (*)(int, double)`).
double cmb_time_function(const void *function, long count, double *checksum);
/// A block clang compiled: `^(int a, double b) { return a * b; }`.
const void *cmb_clang_block(void);
/// A heap copy of a clang block that captures a value (`_Block_copy`), made once.
const void *cmb_clang_heap_block(void);
/// A plain C function with the same signature.
const void *cmb_direct_function(void);
/// A bare libffi closure with the same signature (made once, kept): the floor of a made block.
const void *_Nullable cmb_bare_closure(void);

#pragma clang assume_nonnull end

#endif
