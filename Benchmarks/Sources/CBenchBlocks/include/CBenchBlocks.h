// C callers for the benchmarks of made blocks: a clang block and loops that call a block, or a
// function pointer, the way clang-compiled C does.
#ifndef CBENCHBLOCKS_H
#define CBENCHBLOCKS_H
#pragma clang assume_nonnull begin

/// A global clang block `double (^)(int, double)` returning `a * b`.
const void *cbench_clang_block(void);

/// Calls `block` (a `double (^)(int, double)`) `count` times with (i, 0.5); returns the sum.
double cbench_call_block(const void *block, int count);

/// Calls `function` (a `double (*)(int, double)`) `count` times with (i, 0.5); returns the sum.
double cbench_call_function(const void *function, int count);

#pragma clang assume_nonnull end
#endif
