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

/// A plain C function `double (int, double)`: the call every other way is measured against.
const void *cbench_direct_function(void);

/// A bare libffi closure of `double (int, double)` whose handler multiplies in C (as
/// `../shared/perf/ffi_floor.c` makes it): the floor of any block made at run time. Made on
/// first use and kept; NULL when libffi refuses.
const void *_Nullable cbench_bare_closure(void);

#pragma clang assume_nonnull end
#endif
