// BlockSignature — BlockFixtures
//
// Real blocks compiled with -fblocks. Each fixture records what the compiler computes
// (sizeof and _Alignof of the return and of each parameter) and the C declaration, taken
// by stringizing the very types the block literal is written with, so nothing is typed twice.

#include "BlockFixtures.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "BlockFixtureTypes.h"

// The runtime entry points, declared here so no runtime header is needed.
extern void *_Block_copy(const void *block);
extern void _Block_release(const void *block);
extern void *_NSConcreteGlobalBlock[32];

#pragma clang diagnostic ignored "-Wunused-parameter"

// MARK: - Macro machinery

#define BF_CAT(a, b) BF_CAT_(a, b)
#define BF_CAT_(a, b) a##b
#define BF_NARGS(...) BF_NARGS_(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define BF_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, N, ...) N

// BF_MAP(M, T1, …, Tn) expands to M(T1, 1), M(T2, 2), … joined by BF_SEP.
#define BF_MAP(M, ...) BF_CAT(BF_MAP_, BF_NARGS(__VA_ARGS__))(M, __VA_ARGS__)
#define BF_MAP_1(M, a) M(a, 1)
#define BF_MAP_2(M, a, ...) M(a, 2), BF_MAP_1(M, __VA_ARGS__)
#define BF_MAP_3(M, a, ...) M(a, 3), BF_MAP_2(M, __VA_ARGS__)
#define BF_MAP_4(M, a, ...) M(a, 4), BF_MAP_3(M, __VA_ARGS__)
#define BF_MAP_5(M, a, ...) M(a, 5), BF_MAP_4(M, __VA_ARGS__)
#define BF_MAP_6(M, a, ...) M(a, 6), BF_MAP_5(M, __VA_ARGS__)
#define BF_MAP_7(M, a, ...) M(a, 7), BF_MAP_6(M, __VA_ARGS__)
#define BF_MAP_8(M, a, ...) M(a, 8), BF_MAP_7(M, __VA_ARGS__)
#define BF_MAP_9(M, a, ...) M(a, 9), BF_MAP_8(M, __VA_ARGS__)
#define BF_MAP_10(M, a, ...) M(a, 10), BF_MAP_9(M, __VA_ARGS__)
#define BF_MAP_11(M, a, ...) M(a, 11), BF_MAP_10(M, __VA_ARGS__)
#define BF_MAP_12(M, a, ...) M(a, 12), BF_MAP_11(M, __VA_ARGS__)

#define BF_PARAM(T, i) T p##i
#define BF_SIZE(T, i) sizeof(T)
#define BF_ALIGN(T, i) _Alignof(T)

#define BF_RECORD(NAME, KIND, DECL, MAKE, VISIT, RSIZE, RALIGN, COUNT, SIZES, ALIGNS) \
  {.name = #NAME, .declaration = DECL, .kind = KIND, .make = MAKE, .visit = VISIT,   \
   .returnSize = RSIZE, .returnAlignment = RALIGN, .parameterCount = COUNT,          \
   .parameterSizes = SIZES, .parameterAlignments = ALIGNS}
#define BF_LIST(...) {__VA_ARGS__}

// MARK: - Global fixtures (from BlockFixtures.def)

#define BF_FIXTURE(NAME, RET, ...)                                          \
  static RET bf_zero_##NAME;                                                \
  const void *bf_##NAME(void) {                                             \
    return (const void *)^RET(BF_MAP(BF_PARAM, __VA_ARGS__)) {              \
      return bf_zero_##NAME;                                                \
    };                                                                      \
  }
#define BF_FIXTURE_VOID(NAME, ...) \
  const void *bf_##NAME(void) { return (const void *)^(BF_MAP(BF_PARAM, __VA_ARGS__)){}; }
#define BF_FIXTURE_NOARGS(NAME, RET)                                         \
  static RET bf_zero_##NAME;                                                 \
  const void *bf_##NAME(void) {                                              \
    return (const void *)^RET(void) { return bf_zero_##NAME; };              \
  }
#define BF_FIXTURE_VOID_NOARGS(NAME) \
  const void *bf_##NAME(void) { return (const void *)^(void){}; }
#include "BlockFixtures.def"
#undef BF_FIXTURE
#undef BF_FIXTURE_VOID
#undef BF_FIXTURE_NOARGS
#undef BF_FIXTURE_VOID_NOARGS

// MARK: - Blocks that capture, made on the stack and copied to the heap

// A block that captures an int: no helpers.
const void *bf_heap_captures_int(void) {
  int bias = 42;
  return _Block_copy((const void *)^int(int x) { return x + bias; });
}

// A block that captures another block: copy/dispose helpers.
const void *bf_heap_captures_block(void) {
  int bias = 7;
  BFIntBlock inner = ^int(int x) { return x * bias; };
  return _Block_copy((const void *)^int(int x) { return inner(x) + 1; });
}

// A block that captures a __block variable: copy/dispose helpers and a byref record.
const void *bf_heap_captures_byref(void) {
  __block long total = 0;
  return _Block_copy((const void *)^long(long x) {
    total += x;
    return total;
  });
}

// A block that captures a struct by value and returns a struct.
const void *bf_heap_captures_struct(void) {
  struct BFPoint origin = {1.5, -2.5};
  return _Block_copy((const void *)^struct BFPoint(double dx) {
    struct BFPoint p = {origin.x + dx, origin.y};
    return p;
  });
}

// Nested blocks: a global block that builds, copies and returns an inner capturing block.
static BFIntBlock (^bf_outer)(int) = ^BFIntBlock(int seed) {
  return (BFIntBlock)_Block_copy((const void *)^int(int x) { return x + seed; });
};
const void *bf_nested_outer(void) { return (const void *)bf_outer; }
const void *bf_nested_inner(void) { return (const void *)bf_outer(3); }

// MARK: - Blocks that only live during a call

// A stack block, never copied.
static void bf_visit_stack(BFVisitor visitor, void *context) {
  int bias = 1;
  void (^block)(const char *) = ^(const char *text) { (void)text; (void)bias; };
  visitor((const void *)block, context);
}

// A noescape block: a stack block passed to a noescape parameter carries IS_NOESCAPE.
static void bf_call_noescape(__attribute__((noescape)) void (^block)(int), BFVisitor visitor,
                             void *context) {
  visitor((const void *)block, context);
}
static void bf_visit_noescape(BFVisitor visitor, void *context) {
  int bias = 2;
  bf_call_noescape(^(int x) { (void)(x + bias); }, visitor, context);
}

// MARK: - Global block variable (for `blocksig inspect --variable`)

double (^bf_global_block_variable)(double, double) = ^double(double a, double b) { return a * b; };
const void *bf_global_block_variable_value(void) { return (const void *)bf_global_block_variable; }

// A variable that holds a pointer to something that is not a block (for error paths).
static const long bf_not_a_block_data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
const void *bf_not_a_block_variable = bf_not_a_block_data;

// MARK: - Hand-built blocks for error paths

static void bf_hand_invoke(void *block) { (void)block; }
static struct {
  uintptr_t reserved, size;
  const char *signature, *layout;
} bf_null_signature_descriptor = {0, 32, NULL, NULL};
static struct {
  void *isa;
  int32_t flags, reserved;
  void (*invoke)(void *);
  void *descriptor;
} bf_null_signature_block = {_NSConcreteGlobalBlock, (1 << 28) | (1 << 30), 0, bf_hand_invoke,
                             &bf_null_signature_descriptor};
const void *bf_block_with_null_signature(void) { return &bf_null_signature_block; }

static struct {
  uintptr_t reserved, size;
} bf_old_descriptor = {0, 32};
static struct {
  void *isa;
  int32_t flags, reserved;
  void (*invoke)(void *);
  void *descriptor;
} bf_old_block = {_NSConcreteGlobalBlock, (1 << 28), 0, bf_hand_invoke, &bf_old_descriptor};
const void *bf_block_without_signature(void) { return &bf_old_block; }

const void *bf_copy(const void *block) { return _Block_copy(block); }
void bf_release(const void *block) { _Block_release(block); }

// MARK: - The table

#define BF_NOARGS_SIZES {0}
static const BFFixture bf_table[] = {
#define BF_FIXTURE(NAME, RET, ...)                                                          \
  BF_RECORD(NAME, "global", #RET " (^)(" #__VA_ARGS__ ")", bf_##NAME, NULL, sizeof(RET), \
            _Alignof(RET), BF_NARGS(__VA_ARGS__), BF_LIST(BF_MAP(BF_SIZE, __VA_ARGS__)),  \
            BF_LIST(BF_MAP(BF_ALIGN, __VA_ARGS__))),
#define BF_FIXTURE_VOID(NAME, ...)                                                           \
  BF_RECORD(NAME, "global", "void (^)(" #__VA_ARGS__ ")", bf_##NAME, NULL, 0, 0,             \
            BF_NARGS(__VA_ARGS__), BF_LIST(BF_MAP(BF_SIZE, __VA_ARGS__)),                    \
            BF_LIST(BF_MAP(BF_ALIGN, __VA_ARGS__))),
#define BF_FIXTURE_NOARGS(NAME, RET)                                                         \
  BF_RECORD(NAME, "global", #RET " (^)(void)", bf_##NAME, NULL, sizeof(RET), _Alignof(RET), \
            0, {0}, {0}),
#define BF_FIXTURE_VOID_NOARGS(NAME) \
  BF_RECORD(NAME, "global", "void (^)(void)", bf_##NAME, NULL, 0, 0, 0, {0}, {0}),
#include "BlockFixtures.def"
    BF_RECORD(heap_captures_int, "heap", "int (^)(int)", bf_heap_captures_int, NULL,
              sizeof(int), _Alignof(int), 1, {sizeof(int)}, {_Alignof(int)}),
    BF_RECORD(heap_captures_block, "heap", "int (^)(int)", bf_heap_captures_block, NULL,
              sizeof(int), _Alignof(int), 1, {sizeof(int)}, {_Alignof(int)}),
    BF_RECORD(heap_captures_byref, "heap", "long (^)(long)", bf_heap_captures_byref, NULL,
              sizeof(long), _Alignof(long), 1, {sizeof(long)}, {_Alignof(long)}),
    BF_RECORD(heap_captures_struct, "heap", "struct BFPoint (^)(double)", bf_heap_captures_struct,
              NULL, sizeof(struct BFPoint), _Alignof(struct BFPoint), 1, {sizeof(double)},
              {_Alignof(double)}),
    BF_RECORD(nested_outer, "global", "BFIntBlock (^)(int)", bf_nested_outer, NULL,
              sizeof(BFIntBlock), _Alignof(BFIntBlock), 1, {sizeof(int)}, {_Alignof(int)}),
    BF_RECORD(nested_inner, "heap", "int (^)(int)", bf_nested_inner, NULL, sizeof(int),
              _Alignof(int), 1, {sizeof(int)}, {_Alignof(int)}),
    BF_RECORD(global_block_variable, "global", "double (^)(double, double)",
              bf_global_block_variable_value, NULL, sizeof(double), _Alignof(double), 2,
              BF_LIST(sizeof(double), sizeof(double)), BF_LIST(_Alignof(double), _Alignof(double))),
    BF_RECORD(stack_const_char_pointer, "stack", "void (^)(const char *)", NULL, bf_visit_stack, 0,
              0, 1, {sizeof(const char *)}, {_Alignof(const char *)}),
    BF_RECORD(noescape_int, "noescape", "void (^)(int)", NULL, bf_visit_noescape, 0, 0, 1,
              {sizeof(int)}, {_Alignof(int)}),
};

const BFFixture *bf_fixtures(size_t *count) {
  *count = sizeof(bf_table) / sizeof(bf_table[0]);
  return bf_table;
}

const BFFixture *bf_fixture_named(const char *name) {
  for (size_t i = 0; i < sizeof(bf_table) / sizeof(bf_table[0]); i++) {
    if (strcmp(bf_table[i].name, name) == 0) return &bf_table[i];
  }
  return NULL;
}
