// BlockSignature — BlockFixtures
//
// Real blocks made by clang (-fblocks) for the tests. No block type appears in this header:
// every block is handed out as `const void *`, and everything a test compares against
// (sizes, alignments, the C declaration) is computed by the compiler in Fixtures/*.c.

#ifndef BLOCKFIXTURES_H
#define BLOCKFIXTURES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// The most parameters a fixture block takes.
#define BF_MAX_PARAMETERS 12

/// A callback that receives a block that only lives during the call (stack or noescape).
typedef void (*BFVisitor)(const void *block, void *_Nullable context);

/// One fixture block and what the compiler says about its types.
typedef struct BFFixture {
  /// A unique name; `bf_<name>` is also an exported `const void *(*)(void)` for global and heap kinds.
  const char *name;
  /// The block's C type as written in the fixture, e.g. "int (^)(int, long)".
  const char *declaration;
  /// How the block is made: "global", "heap" (a `_Block_copy` of a stack block), "stack" or
  /// "noescape". The last two are only reachable through `visit`.
  const char *kind;
  /// Returns the block (global or heap copy; the caller releases heap copies with
  /// `_Block_release`), or is NULL for stack and noescape fixtures.
  const void *_Nullable (*_Nullable make)(void);
  /// Calls the visitor with a block that lives only during the call, or is NULL.
  void (*_Nullable visit)(BFVisitor visitor, void *_Nullable context);
  /// `sizeof`/`_Alignof` of the return type (0 for void).
  size_t returnSize, returnAlignment;
  /// The number of parameters, not counting the block itself.
  size_t parameterCount;
  /// `sizeof`/`_Alignof` of each parameter's declared type (an array parameter's array type).
  size_t parameterSizes[BF_MAX_PARAMETERS];
  size_t parameterAlignments[BF_MAX_PARAMETERS];
} BFFixture;

/// Every fixture; `count` receives their number.
const BFFixture *bf_fixtures(size_t *count);

/// The fixture named `name`, or NULL.
const BFFixture *_Nullable bf_fixture_named(const char *name);

/// The block held by the global block variable `bf_global_block_variable` (also exported
/// under that name, for `blocksig inspect --variable`).
const void *bf_global_block_variable_value(void);

/// A block whose descriptor claims a signature but whose signature pointer is NULL, built by
/// hand (clang never emits one); for error-path tests.
const void *bf_block_with_null_signature(void);

/// A block built by hand with no signature flag (as old compilers made them).
const void *bf_block_without_signature(void);

/// `_Block_copy` and `_Block_release` of the runtime the fixtures link, for Swift callers.
const void *_Nullable bf_copy(const void *block);
void bf_release(const void *block);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif  // BLOCKFIXTURES_H
