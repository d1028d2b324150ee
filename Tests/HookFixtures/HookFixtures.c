// Blocks and their C callers for the hook tests.

#include "HookFixtures.h"

#include <Block.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

static struct HookReceived hook_received;
struct HookReceived hook_last(void) { return hook_received; }
void hook_forget(void) { memset(&hook_received, 0, sizeof hook_received); }

void *hook_make_quiet_add(int k) { return (void *)Block_copy(^int(int a, int b) { return a + b + k; }); }

void *hook_make_add(int k) {
  int (^block)(int, int) = ^int(int a, int b) {
    hook_received.a = a;
    hook_received.b = b;
    return a + b + k;
  };
  return (void *)Block_copy(block);
}

static int (^const global_add)(int, int) = ^int(int a, int b) {
  hook_received.a = a;
  hook_received.b = b;
  return a + b;
};
void *const hook_global_add = (void *)global_add;

int hook_call_add(const void *block, int a, int b) { return ((int (^)(int, int))block)(a, b); }

// A global block literal as clang lays one out, without BLOCK_HAS_SIGNATURE.
struct UnsignedDescriptor {
  unsigned long reserved, size;
};
struct UnsignedLiteral {
  void *isa;
  int flags, reserved;
  int (*invoke)(void *, int, int);
  const struct UnsignedDescriptor *descriptor;
};
extern void *_NSConcreteGlobalBlock[32];
static const struct UnsignedDescriptor unsigned_descriptor = {0, sizeof(struct UnsignedLiteral)};
static int unsigned_multiply_invoke(void *block, int a, int b) {
  (void)block;
  hook_received.a = a;
  hook_received.b = b;
  return a * b;
}
static struct UnsignedLiteral unsigned_multiply = {
    _NSConcreteGlobalBlock, 1 << 28, 0, unsigned_multiply_invoke, &unsigned_descriptor};
void *hook_unsigned_multiply(void) { return &unsigned_multiply; }

struct HookPair hook_call_pair(const void *block, struct HookPair p, double s) {
  return ((struct HookPair (^)(struct HookPair, double))block)(p, s);
}
void *hook_make_pair(void) {
  int k = 0;
  return (void *)Block_copy(^struct HookPair(struct HookPair p, double s) {
    hook_received.pair = p;
    return (struct HookPair){p.x * s + k, p.y * s};
  });
}

struct HookTriple hook_call_triple(const void *block, struct HookTriple t, long k) {
  return ((struct HookTriple (^)(struct HookTriple, long))block)(t, k);
}
void *hook_make_triple(void) {
  int zero = 0;
  return (void *)Block_copy(^struct HookTriple(struct HookTriple t, long k) {
    hook_received.triple = t;
    return (struct HookTriple){t.a + k + zero, t.b + k, t.c + k};
  });
}

double hook_call_mixed(const void *block, struct HookMixed m) { return ((double (^)(struct HookMixed))block)(m); }
void *hook_make_mixed(void) {
  int zero = 0;
  return (void *)Block_copy(^double(struct HookMixed m) {
    hook_received.mixed = m;
    return (double)m.n + m.d + zero;
  });
}

union HookUnion hook_call_union(const void *block, union HookUnion u, int n) {
  return ((union HookUnion (^)(union HookUnion, int))block)(u, n);
}
void *hook_make_union(void) {
  int zero = 0;
  return (void *)Block_copy(^union HookUnion(union HookUnion u, int n) {
    hook_received.onion = u;
    return (union HookUnion){.i = u.i + n + zero};
  });
}

long double hook_call_long_double(const void *block, long double a, long double b) {
  return ((long double (^)(long double, long double))block)(a, b);
}
void *hook_make_long_double(void) {
  int zero = 0;
  return (void *)Block_copy(^long double(long double a, long double b) {
    hook_received.ld = a;
    return a * b + zero;
  });
}

void hook_call_complex(const void *block, double re, double im, double s, double *out) {
  _Complex double z = re + im * 1.0i;
  _Complex double result = ((_Complex double (^)(_Complex double, double))block)(z, s);
  out[0] = __real__ result;
  out[1] = __imag__ result;
}
void *hook_make_complex(void) {
  int zero = 0;
  return (void *)Block_copy(^_Complex double(_Complex double z, double s) { return z * s + zero; });
}

void hook_call_int128(const void *block, const void *a, const void *b, void *out) {
  __int128 x, y;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  __int128 result = ((__int128 (^)(__int128, __int128))block)(x, y);
  memcpy(out, &result, sizeof result);
}
void *hook_make_int128(void) {
  int zero = 0;
  return (void *)Block_copy(^__int128(__int128 a, __int128 b) { return a + b + zero; });
}

signed char hook_call_negate(const void *block, signed char c) { return ((signed char (^)(signed char))block)(c); }
void *hook_make_negate(void) {
  int zero = 0;
  return (void *)Block_copy(^signed char(signed char c) { return (signed char)(-c + zero); });
}

typedef double (^ManyBlock)(int, int, int, int, int, int, int, double, double, double, double, double, double,
                            double, double, double);
double hook_call_many(const void *block, const int *i, const double *d) {
  return ((ManyBlock)block)(i[0], i[1], i[2], i[3], i[4], i[5], i[6], d[0], d[1], d[2], d[3], d[4], d[5], d[6],
                            d[7], d[8]);
}
void *hook_make_many(void) {
  int zero = 0;
  return (void *)Block_copy(^double(int i0, int i1, int i2, int i3, int i4, int i5, int i6, double d0, double d1,
                                    double d2, double d3, double d4, double d5, double d6, double d7, double d8) {
    int ints[7] = {i0, i1, i2, i3, i4, i5, i6};
    double doubles[9] = {d0, d1, d2, d3, d4, d5, d6, d7, d8};
    double sum = zero;
    for (int n = 0; n < 7; n++) sum += hook_received.ints[n] = ints[n];
    for (int n = 0; n < 9; n++) sum += hook_received.doubles[n] = doubles[n];
    return sum;
  });
}

void hook_call_note(const void *block, int value) { ((void (^)(int))block)(value); }
void *hook_make_note(void) {
  int zero = 0;
  return (void *)Block_copy(^(int value) { hook_received.ints[0] = value + zero; });
}

void *hook_make_capturing(const void *inner) {
  int (^add)(int, int) = (int (^)(int, int))inner;
  return (void *)Block_copy(^int(int a, int b) { return add(a, b) * 2; });
}

void *hook_copy(const void *block) { return (void *)_Block_copy(block); }
void hook_release(const void *block) { _Block_release(block); }

void hook_with_stack_block(void (*use)(void *block, void *context), void *context) {
  int k = 1;
  int (^block)(int, int) = ^int(int a, int b) { return a + b + k; };
  use((void *)block, context);
}

// The hammer: eight threads, a stop flag, three counters.
enum { hammer_threads = 8 };
static pthread_t hammer[hammer_threads];
static atomic_int hammer_stop;
static atomic_long hammer_original, hammer_hooked, hammer_other;
static const void *hammer_block;
static int hammer_k, hammer_delta;

// One call of the hammer's block. clang's call loads the block's invoke with a plain load, which
// is what every caller does and is atomic on x86-64; ThreadSanitizer cannot know that and would
// report the hook's atomic store against it, so an instrumented build loads it atomically and
// calls it as clang does (the block first), and the sanitizer checks everything else.
static int hammer_call(const void *block, int a, int b) {
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
  struct Layout {
    void *isa;
    int flags, reserved;
    int (*invoke)(const void *, int, int);
  };
  int (*invoke)(const void *, int, int) = __atomic_load_n(&((struct Layout *)block)->invoke, __ATOMIC_ACQUIRE);
  return invoke(block, a, b);
#endif
#endif
  return ((int (^)(int, int))block)(a, b);
}

static void *hammer_run(void *unused) {
  (void)unused;
  const void *block = hammer_block;
  long original = 0, hooked = 0, other = 0;
  for (int i = 0; !atomic_load_explicit(&hammer_stop, memory_order_relaxed); i = (i + 1) & 0xffff) {
    int result = hammer_call(block, i, 1);
    if (result == i + 1 + hammer_k) original++;
    else if (result == i + 1 + hammer_k + hammer_delta) hooked++;
    else other++;
  }
  atomic_fetch_add(&hammer_original, original);
  atomic_fetch_add(&hammer_hooked, hooked);
  atomic_fetch_add(&hammer_other, other);
  return NULL;
}

void hook_hammer_start(const void *block, int k, int hooked_delta) {
  hammer_block = block;
  hammer_k = k;
  hammer_delta = hooked_delta;
  atomic_store(&hammer_stop, 0);
  atomic_store(&hammer_original, 0);
  atomic_store(&hammer_hooked, 0);
  atomic_store(&hammer_other, 0);
  for (int n = 0; n < hammer_threads; n++) pthread_create(&hammer[n], NULL, hammer_run, NULL);
}

void hook_hammer_stop(long *original, long *hooked, long *other) {
  atomic_store(&hammer_stop, 1);
  for (int n = 0; n < hammer_threads; n++) pthread_join(hammer[n], NULL);
  *original = atomic_load(&hammer_original);
  *hooked = atomic_load(&hammer_hooked);
  *other = atomic_load(&hammer_other);
}
