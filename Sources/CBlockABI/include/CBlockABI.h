// BlockSignature — CBlockABI
//
// A mirror of the clang block ABI (the "Blocks" closure ABI of C and Objective-C),
// written from the ABI itself so that it does not depend on any installed
// `Block_private.h`: Debian's copy (libblocksruntime-dev 0.4.1) predates block
// signatures, and Apple's is not available on Linux.
//
// Struct and field names follow libclosure's `Block_private.h` with a `CBA_` prefix so
// a reviewer can compare them line by line. Every accessor is `static inline`, touches
// only the parts whose flag is set, allocates nothing and prints nothing: the Swift
// layer decides what a missing part means.

#ifndef CBLOCKABI_H
#define CBLOCKABI_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "CBlockABIRegisters.h"  // assembler macros only: empty here

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

// MARK: - Block flags (Block_layout.flags)

/// Bits of `CBA_Block_layout.flags`. The owner comment says who sets each bit.
enum {
  CBA_BLOCK_DEALLOCATING = (0x0001),          // runtime
  CBA_BLOCK_REFCOUNT_MASK = (0xfffe),         // runtime (Apple/Swift runtime: units of 2)
  CBA_BLOCK_REFCOUNT_MASK_COMPILER_RT = (0xffff), // runtime (Debian compiler-rt: units of 1)
  CBA_BLOCK_INLINE_LAYOUT_STRING = (1 << 21), // compiler
  CBA_BLOCK_SMALL_DESCRIPTOR = (1 << 22),     // compiler
  CBA_BLOCK_IS_NOESCAPE = (1 << 23),          // compiler
  CBA_BLOCK_NEEDS_FREE = (1 << 24),           // runtime
  CBA_BLOCK_HAS_COPY_DISPOSE = (1 << 25),     // compiler
  CBA_BLOCK_HAS_CTOR = (1 << 26),             // compiler: helpers have C++ code
  CBA_BLOCK_IS_GC = (1 << 27),                // runtime (obsolete)
  CBA_BLOCK_IS_GLOBAL = (1 << 28),            // compiler
  CBA_BLOCK_USE_STRET = (1 << 29),            // compiler: undefined if !BLOCK_HAS_SIGNATURE
  CBA_BLOCK_HAS_SIGNATURE = (1 << 30),        // compiler
  CBA_BLOCK_HAS_EXTENDED_LAYOUT = (1u << 31)  // compiler
};

// MARK: - Descriptor parts

/// Descriptor part 1: always present.
struct CBA_Block_descriptor_1 {
  uintptr_t reserved;
  uintptr_t size;
};

/// Descriptor part 2: requires BLOCK_HAS_COPY_DISPOSE.
struct CBA_Block_descriptor_2 {
  void (*_Nullable copy)(void *dst, const void *src);
  void (*_Nullable dispose)(const void *);
};

/// Descriptor part 3: requires BLOCK_HAS_SIGNATURE. Follows part 2 when both exist.
struct CBA_Block_descriptor_3 {
  const char *_Nullable signature;
  const char *_Nullable layout;  // contents depend on BLOCK_HAS_EXTENDED_LAYOUT
};

/// The small (self-relative) descriptor: requires BLOCK_SMALL_DESCRIPTOR.
/// Every 32-bit field is an offset from its own address; 0 means NULL.
struct CBA_Block_descriptor_small {
  uint32_t size : 31;
  uint32_t has_in_descriptor_flags : 1;
  int32_t signature;
  int32_t layout;
  /* copy & dispose are optional, only access them if Block_layout->flags & BLOCK_HAS_COPY_DISPOSE */
  int32_t copy;
  int32_t dispose;
};

// MARK: - Block literal

/// The block literal. Captured variables follow `descriptor`.
struct CBA_Block_layout {
  void *_Nullable isa;
  volatile int32_t flags;  // contains ref count
  int32_t reserved;
  void (*_Nullable invoke)(void *, ...);
  struct CBA_Block_descriptor_1 *_Nullable descriptor;
  // imported variables
};

// MARK: - Byref (__block) records

/// Bits of `CBA_Block_byref.flags`.
enum {
  CBA_BLOCK_BYREF_LAYOUT_MASK = (0xf << 28),       // compiler
  CBA_BLOCK_BYREF_LAYOUT_EXTENDED = (1 << 28),     // compiler
  CBA_BLOCK_BYREF_LAYOUT_NON_OBJECT = (2 << 28),   // compiler
  CBA_BLOCK_BYREF_LAYOUT_STRONG = (3 << 28),       // compiler
  CBA_BLOCK_BYREF_LAYOUT_WEAK = (4 << 28),         // compiler
  CBA_BLOCK_BYREF_LAYOUT_UNRETAINED = (5 << 28),   // compiler
  CBA_BLOCK_BYREF_IS_GC = (1 << 27),               // runtime
  CBA_BLOCK_BYREF_HAS_COPY_DISPOSE = (1 << 25),    // compiler
  CBA_BLOCK_BYREF_NEEDS_FREE = (1 << 24),          // runtime
};

/// A `__block` variable's record.
struct CBA_Block_byref {
  void *_Nullable isa;
  struct CBA_Block_byref *_Nullable forwarding;
  volatile int32_t flags;  // contains ref count
  uint32_t size;
};

/// Byref part 2: requires BLOCK_BYREF_HAS_COPY_DISPOSE.
struct CBA_Block_byref_2 {
  void (*_Nullable byref_keep)(struct CBA_Block_byref *dst, struct CBA_Block_byref *src);
  void (*_Nullable byref_destroy)(struct CBA_Block_byref *);
};

/// Byref part 3: requires BLOCK_BYREF_LAYOUT_EXTENDED.
struct CBA_Block_byref_3 {
  const char *_Nullable layout;
};

// MARK: - Extended layout

/// Opcodes of the extended layout byte string (high nibble of each byte). The low
/// nibble stores count − 1 (count − 1 of words or bytes, or of captures).
enum {
  CBA_BLOCK_LAYOUT_ESCAPE = 0,              // N=0 halt, rest is non-pointer. N!=0 reserved.
  CBA_BLOCK_LAYOUT_NON_OBJECT_BYTES = 1,    // N bytes non-objects
  CBA_BLOCK_LAYOUT_NON_OBJECT_WORDS = 2,    // N words non-objects
  CBA_BLOCK_LAYOUT_STRONG = 3,              // N words strong pointers
  CBA_BLOCK_LAYOUT_BYREF = 4,               // N words byref pointers
  CBA_BLOCK_LAYOUT_WEAK = 5,                // N words weak pointers
  CBA_BLOCK_LAYOUT_UNRETAINED = 6,          // N words unretained pointers
};

/// A layout pointer value below this is the inline form 0xXYZ
/// (X strong, Y byref, Z weak captures).
#define CBA_BLOCK_LAYOUT_INLINE_LIMIT ((uintptr_t)0x1000)

// MARK: - Accessors

/// The block's flags word (refcount bits included).
static inline int32_t cba_block_flags(const struct CBA_Block_layout *block) {
  return block->flags;
}

/// The descriptor pointer, or NULL.
static inline const struct CBA_Block_descriptor_1 *_Nullable cba_block_descriptor(
    const struct CBA_Block_layout *block) {
  return block->descriptor;
}

/// Whether the descriptor is the small, self-relative form.
static inline int cba_block_has_small_descriptor(const struct CBA_Block_layout *block) {
  return (block->flags & CBA_BLOCK_SMALL_DESCRIPTOR) != 0;
}

/// Resolves a self-relative 32-bit field of a small descriptor; 0 is NULL.
static inline const void *_Nullable cba_small_field(const int32_t *field) {
  if (*field == 0) return NULL;
  return (const void *)((const char *)field + *field);
}

/// The block's size in bytes as recorded in its descriptor, or 0 when there is none.
static inline uintptr_t cba_block_descriptor_size(const struct CBA_Block_layout *block) {
  if (block->descriptor == NULL) return 0;
  if (cba_block_has_small_descriptor(block)) {
    return ((const struct CBA_Block_descriptor_small *)(const void *)block->descriptor)->size;
  }
  return block->descriptor->size;
}

/// The descriptor's `reserved` word (0 for upstream clang on Linux).
static inline uintptr_t cba_block_descriptor_reserved(const struct CBA_Block_layout *block) {
  if (block->descriptor == NULL || cba_block_has_small_descriptor(block)) return 0;
  return block->descriptor->reserved;
}

/// Descriptor part 2, or NULL when BLOCK_HAS_COPY_DISPOSE is clear (classic form only).
static inline const struct CBA_Block_descriptor_2 *_Nullable cba_block_descriptor_2(
    const struct CBA_Block_layout *block) {
  if (block->descriptor == NULL || cba_block_has_small_descriptor(block)) return NULL;
  if (!(block->flags & CBA_BLOCK_HAS_COPY_DISPOSE)) return NULL;
  return (const struct CBA_Block_descriptor_2 *)(const void *)(block->descriptor + 1);
}

/// Descriptor part 3, or NULL when BLOCK_HAS_SIGNATURE is clear (classic form only).
static inline const struct CBA_Block_descriptor_3 *_Nullable cba_block_descriptor_3(
    const struct CBA_Block_layout *block) {
  if (block->descriptor == NULL || cba_block_has_small_descriptor(block)) return NULL;
  if (!(block->flags & CBA_BLOCK_HAS_SIGNATURE)) return NULL;
  const char *desc = (const char *)(const void *)(block->descriptor + 1);
  if (block->flags & CBA_BLOCK_HAS_COPY_DISPOSE) desc += sizeof(struct CBA_Block_descriptor_2);
  return (const struct CBA_Block_descriptor_3 *)(const void *)desc;
}

/// The copy helper, or NULL when BLOCK_HAS_COPY_DISPOSE is clear.
static inline const void *_Nullable cba_block_copy_helper(const struct CBA_Block_layout *block) {
  if (!(block->flags & CBA_BLOCK_HAS_COPY_DISPOSE) || block->descriptor == NULL) return NULL;
  if (cba_block_has_small_descriptor(block)) {
    return cba_small_field(
        &((const struct CBA_Block_descriptor_small *)(const void *)block->descriptor)->copy);
  }
  const struct CBA_Block_descriptor_2 *d2 = cba_block_descriptor_2(block);
  return d2 ? (const void *)d2->copy : NULL;
}

/// The dispose helper, or NULL when BLOCK_HAS_COPY_DISPOSE is clear.
static inline const void *_Nullable cba_block_dispose_helper(const struct CBA_Block_layout *block) {
  if (!(block->flags & CBA_BLOCK_HAS_COPY_DISPOSE) || block->descriptor == NULL) return NULL;
  if (cba_block_has_small_descriptor(block)) {
    return cba_small_field(
        &((const struct CBA_Block_descriptor_small *)(const void *)block->descriptor)->dispose);
  }
  const struct CBA_Block_descriptor_2 *d2 = cba_block_descriptor_2(block);
  return d2 ? (const void *)d2->dispose : NULL;
}

/// The signature string, or NULL when BLOCK_HAS_SIGNATURE is clear or the pointer is NULL.
static inline const char *_Nullable cba_block_signature(const struct CBA_Block_layout *block) {
  if (!(block->flags & CBA_BLOCK_HAS_SIGNATURE) || block->descriptor == NULL) return NULL;
  if (cba_block_has_small_descriptor(block)) {
    return (const char *)cba_small_field(
        &((const struct CBA_Block_descriptor_small *)(const void *)block->descriptor)->signature);
  }
  const struct CBA_Block_descriptor_3 *d3 = cba_block_descriptor_3(block);
  return d3 ? d3->signature : NULL;
}

/// The raw layout word of descriptor part 3 (a pointer, or an inline value below
/// CBA_BLOCK_LAYOUT_INLINE_LIMIT when BLOCK_HAS_EXTENDED_LAYOUT is set); 0 when absent.
static inline uintptr_t cba_block_layout_word(const struct CBA_Block_layout *block) {
  if (!(block->flags & CBA_BLOCK_HAS_SIGNATURE) || block->descriptor == NULL) return 0;
  if (cba_block_has_small_descriptor(block)) {
    const struct CBA_Block_descriptor_small *s =
        (const struct CBA_Block_descriptor_small *)(const void *)block->descriptor;
    if (block->flags & CBA_BLOCK_INLINE_LAYOUT_STRING) return (uintptr_t)(uint32_t)s->layout;
    return (uintptr_t)cba_small_field(&s->layout);
  }
  const struct CBA_Block_descriptor_3 *d3 = cba_block_descriptor_3(block);
  return d3 ? (uintptr_t)d3->layout : 0;
}

/// Whether an extended layout word is the inline form (0xXYZ) rather than a pointer.
static inline int cba_layout_word_is_inline(uintptr_t word) {
  return word != 0 && word < CBA_BLOCK_LAYOUT_INLINE_LIMIT;
}

/// The invoke function pointer, or NULL.
static inline const void *_Nullable cba_block_invoke(const struct CBA_Block_layout *block) {
  return (const void *)block->invoke;
}

/// The `isa` pointer, or NULL.
static inline const void *_Nullable cba_block_isa(const struct CBA_Block_layout *block) {
  return block->isa;
}

/// Byref part 2, or NULL when BLOCK_BYREF_HAS_COPY_DISPOSE is clear.
static inline const struct CBA_Block_byref_2 *_Nullable cba_byref_2(
    const struct CBA_Block_byref *byref) {
  if (!(byref->flags & CBA_BLOCK_BYREF_HAS_COPY_DISPOSE)) return NULL;
  return (const struct CBA_Block_byref_2 *)(const void *)(byref + 1);
}

/// Byref part 3, or NULL when the layout kind is not BLOCK_BYREF_LAYOUT_EXTENDED.
static inline const struct CBA_Block_byref_3 *_Nullable cba_byref_3(
    const struct CBA_Block_byref *byref) {
  if ((byref->flags & CBA_BLOCK_BYREF_LAYOUT_MASK) != CBA_BLOCK_BYREF_LAYOUT_EXTENDED) return NULL;
  const char *p = (const char *)(const void *)(byref + 1);
  if (byref->flags & CBA_BLOCK_BYREF_HAS_COPY_DISPOSE) p += sizeof(struct CBA_Block_byref_2);
  return (const struct CBA_Block_byref_3 *)(const void *)p;
}

// MARK: - The runtime's entry points

/// `_Block_copy` of the blocks runtime the process links (libBlocksRuntime): a heap copy of a
/// stack block, or the same block with one more reference. Declared here because Swift on Linux
/// imports no `Block.h`.
void *_Nullable _Block_copy(const void *_Nullable block);

/// `_Block_release`: drops one reference to a heap block; the last one runs its dispose helper.
void _Block_release(const void *_Nullable block);

/// `_NSConcreteStackBlock`, the class of a block literal on the stack (the runtime's symbol).
extern void *_Nullable _NSConcreteStackBlock[32];

/// The stack class's address: what a block made at run time starts with before `_Block_copy`
/// moves it to the heap, as clang's own literals do.
static inline const void *cba_stack_block_isa(void) { return (const void *)_NSConcreteStackBlock; }

// MARK: - Blocks made at run time

/// The descriptor of a block made at run time: all three parts, as clang writes a descriptor
/// for a block with captures that need helpers and a signature.
struct CBA_Block_made_descriptor {
  struct CBA_Block_descriptor_1 part1;
  struct CBA_Block_descriptor_2 part2;
  struct CBA_Block_descriptor_3 part3;
  /// Past what the runtime reads: the function `cba_made_block_entry` calls with the saved
  /// argument registers and the stack arguments (NULL for a block whose invoke is libffi's).
  void (*_Nullable entry_dispatch)(void *_Nonnull frame, void *_Nonnull stack_arguments);
};

/// The frame an entry that saves a call's argument registers hands its dispatch function
/// (x86-64 System V: `cba_made_block_entry` here, a hooked block's entry in
/// CBlockSignatureHook): the six general-purpose argument registers (RDI first, the block), the
/// low eight bytes of XMM0 to XMM7, 16 bytes the dispatch leaves the result in, which go back in
/// RAX and XMM0, and room for the dispatch's list of argument addresses (at most
/// CBA_ENTRY_FRAME_ARGUMENTS of them). CBlockABIRegisters.h saves and loads the registers.
enum {
  CBA_ENTRY_FRAME_GENERAL = 0,
  CBA_ENTRY_FRAME_FLOATING = 48,
  CBA_ENTRY_FRAME_RESULT = 112,
  CBA_ENTRY_FRAME_POINTERS = 128,
  CBA_ENTRY_FRAME_ARGUMENTS = 30,
  CBA_ENTRY_FRAME_SIZE = 368,
};

/// A made block's invoke for signatures of scalars only, on x86-64 System V: saves the argument
/// registers and calls its descriptor's `entry_dispatch` (MadeBlockEntry.S). NULL where it does
/// not exist.
static inline const void *_Nullable cba_made_block_entry_address(void) {
#if defined(__x86_64__) && defined(__linux__)
  extern void cba_made_block_entry(void);
  return (const void *)cba_made_block_entry;
#else
  return NULL;
#endif
}

/// Fills the header of a block made at run time: the fields clang writes for a stack literal;
/// the captures follow it. (Swift does not import the variadic `invoke` pointer type, so it is
/// set here.)
static inline void cba_made_block_initialize(
    struct CBA_Block_layout *block, const void *isa, int32_t flags, const void *invoke,
    struct CBA_Block_made_descriptor *descriptor) {
  block->isa = (void *)isa;
  block->flags = flags;
  block->reserved = 0;
  block->invoke = (void (*)(void *, ...))invoke;
  block->descriptor = &descriptor->part1;
}

/// Takes a one-byte flag that is 0 when free: true when this call set it (acquire ordering).
static inline bool cba_flag_try_take(uint8_t *flag) {
  return __atomic_exchange_n(flag, 1, __ATOMIC_ACQUIRE) == 0;
}

/// Frees a flag taken with `cba_flag_try_take` (release ordering).
static inline void cba_flag_give_back(uint8_t *flag) { __atomic_store_n(flag, 0, __ATOMIC_RELEASE); }

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif  // CBLOCKABI_H
