// C blocks for the hook tests, compiled by clang with -fblocks: each block records what it
// received, and each caller calls a block as C does and returns what it got back.

#ifndef HOOKFIXTURES_H
#define HOOKFIXTURES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct HookPair { double x, y; };
struct HookTriple { long a, b, c; };
struct HookMixed { long n; double d; };
union HookUnion { float f; int i; };

/// What the last block called received (each block writes its own fields).
struct HookReceived {
  int a, b;
  struct HookPair pair;
  struct HookTriple triple;
  struct HookMixed mixed;
  union HookUnion onion;
  long double ld;
  double doubles[9];
  int ints[7];
  int disposed;
};
struct HookReceived hook_last(void);
void hook_forget(void);

// int (^)(int, int): a + b + k, heap (captures k) or global (k = 0).
void *hook_make_add(int k);
extern void *const hook_global_add;
/// The same, recording nothing (for calls from several threads at once).
void *hook_make_quiet_add(int k);
int hook_call_add(const void *block, int a, int b);

// The same block type with no signature: a global literal built by hand, flags without
// BLOCK_HAS_SIGNATURE, that returns a * b.
void *hook_unsigned_multiply(void);

struct HookPair hook_call_pair(const void *block, struct HookPair p, double s);
void *hook_make_pair(void);  // {x*s, y*s}
struct HookTriple hook_call_triple(const void *block, struct HookTriple t, long k);
void *hook_make_triple(void);  // {a+k, b+k, c+k}
double hook_call_mixed(const void *block, struct HookMixed m);
void *hook_make_mixed(void);  // n + d
union HookUnion hook_call_union(const void *block, union HookUnion u, int n);
void *hook_make_union(void);  // i + n
long double hook_call_long_double(const void *block, long double a, long double b);
void *hook_make_long_double(void);  // a * b
/// Calls with z = re + im i; out receives the real and imaginary parts.
void hook_call_complex(const void *block, double re, double im, double s, double *out);
void *hook_make_complex(void);  // z * s
/// Calls with the 16-byte integers at a and b; out receives the result's 16 bytes.
void hook_call_int128(const void *block, const void *a, const void *b, void *out);
void *hook_make_int128(void);  // a + b
signed char hook_call_negate(const void *block, signed char c);
void *hook_make_negate(void);  // -c
double hook_call_many(const void *block, const int *ints, const double *doubles);
void *hook_make_many(void);  // the sum of 7 ints and 9 doubles
void hook_call_note(const void *block, int value);
void *hook_make_note(void);  // void: records value in ints[0]

/// A heap block that captures `inner` (an add block), so that it has copy and dispose helpers
/// and its dispose releases `inner`; it returns inner(a, b) * 2.
void *hook_make_capturing(const void *inner);

/// Copies a block (_Block_copy) and releases it (_Block_release).
void *hook_copy(const void *block);
void hook_release(const void *block);
/// A stack block given to `use`, which runs while the literal lives.
void hook_with_stack_block(void (*use)(void *block, void *context), void *context);

/// Eight threads calling an add block with (i, 1), i counting up, until stopped; each result is
/// counted as the original's (i + 1 + k), the hooked one's (that plus `hooked_delta`) or other.
void hook_hammer_start(const void *block, int k, int hooked_delta);
void hook_hammer_stop(long *original, long *hooked, long *other);

#ifdef __cplusplus
}
#endif

#endif  // HOOKFIXTURES_H
