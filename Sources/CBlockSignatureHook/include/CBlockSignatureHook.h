// What hooking a live block needs below Swift: atomic stores into a block's header, atomic
// changes of its flags word (which the blocks runtime changes atomically too: it holds the
// reference count), and stores into pages that are read-only after relocation.

#ifndef CBLOCKSIGNATUREHOOK_H
#define CBLOCKSIGNATUREHOOK_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// Loads a pointer-sized word (acquire ordering): a block's invoke or descriptor, the site
/// word before a hooked descriptor.
static inline const void *_Nullable cbh_load_acquire(const void *_Nonnull address) {
  return __atomic_load_n((const void *const *)address, __ATOMIC_ACQUIRE);
}

/// Stores a pointer-sized word (release ordering): what was written before is seen by a thread
/// that loads the word with `cbh_load_acquire`.
static inline void cbh_store_release(void *_Nonnull address, const void *_Nullable value) {
  __atomic_store_n((const void **)address, value, __ATOMIC_RELEASE);
}

/// Sets `bits` in a block's flags word atomically; returns the flags before.
static inline int32_t cbh_flags_set(int32_t *flags, int32_t bits) {
  return __atomic_fetch_or(flags, bits, __ATOMIC_ACQ_REL);
}

/// Clears `bits` in a block's flags word atomically; returns the flags before.
static inline int32_t cbh_flags_clear(int32_t *flags, int32_t bits) {
  return __atomic_fetch_and(flags, ~bits, __ATOMIC_ACQ_REL);
}

/// Loads a block's flags word (acquire ordering).
static inline int32_t cbh_flags_load(const int32_t *flags) { return __atomic_load_n(flags, __ATOMIC_ACQUIRE); }

/// A small number for the calling thread, 1 for the first thread that asks, 2 for the next, and
/// so on: what a trace prints to tell threads apart.
int cbh_thread_number(void);

/// The protection (`PROT_*` bits) of the mapping that holds `address`, from /proc/self/maps;
/// -1 when no mapping holds it or the map cannot be read.
int cbh_protection(uintptr_t address);

/// Stores `value` into the pointer-sized `slot` atomically (release ordering). When the page is
/// not writable it is made writable for the store (its protection plus `PROT_WRITE`) and given
/// its protection back right after. Returns 0, or an `errno` value (nothing stored). Callers
/// serialize their stores: two at once on one page could restore each other's protection.
int cbh_store_pointer(void *_Nullable *_Nonnull slot, const void *_Nullable value);

/// Where hooked blocks' descriptors live: one region reserved at first use, never unmapped,
/// so that a hooked block's invoke tells its own descriptor from the block's by its address.
/// `cbh_descriptor_start` and `cbh_descriptor_end` bound the region (both 0 before first use).
extern uintptr_t cbh_descriptor_start __attribute__((visibility("hidden")));
extern uintptr_t cbh_descriptor_end __attribute__((visibility("hidden")));

/// Whether `descriptor` is in the region: a hooked block's.
static inline bool cbh_is_hooked_descriptor(const void *descriptor) {
  uintptr_t address = (uintptr_t)descriptor;
  return address >= __atomic_load_n(&cbh_descriptor_start, __ATOMIC_RELAXED) &&
         address < __atomic_load_n(&cbh_descriptor_end, __ATOMIC_RELAXED);
}

/// `size` bytes (a multiple of 16) of the region, zeroed, 16-aligned; never freed. NULL when the
/// region is full or cannot be reserved. Callers serialize their allocations.
void *_Nullable cbh_descriptor_allocate(uintptr_t size);

/// The words a hooked block's descriptor has before it (what `cbh_hook_entry` reads): the
/// dispatch function at -16, the hook site at -8.
enum { CBH_DESCRIPTOR_PREFIX = 16 };


/// The shared invoke of hooked blocks whose parameters and result are scalars, on x86-64
/// System V: when the block's descriptor is in the region it saves the argument registers and
/// calls the dispatch before the descriptor with the frame, the stack arguments' address and
/// the descriptor;
/// otherwise (the hook was removed after the caller read the invoke) it jumps to the block's
/// invoke as it is now. NULL where it does not exist.
static inline const void *_Nullable cbh_hook_entry_address(void) {
#if defined(__x86_64__) && defined(__linux__)
  extern void cbh_hook_entry(void);
  return (const void *)cbh_hook_entry;
#else
  return NULL;
#endif
}

/// The shared invoke of observed blocks, whose signature is unknown (x86-64 System V): it calls
/// the dispatch before a hooked descriptor with the block and the descriptor, then jumps to the
/// invoke the dispatch returns with every argument register as it was. NULL where it does not
/// exist.
static inline const void *_Nullable cbh_observe_entry_address(void) {
#if defined(__x86_64__) && defined(__linux__)
  extern void cbh_observe_entry(void);
  return (const void *)cbh_observe_entry;
#else
  return NULL;
#endif
}

/// Calls `target` with the argument registers saved in `frame` (as `cbh_hook_entry` laid them
/// out) and a copy of the `stack_bytes` bytes of stack arguments at `stack`, and stores its
/// result in the frame: RAX when `result_kind` is 1, XMM0 when it is 2, nothing when 0.
/// x86-64 System V only.
void cbh_call_saved(void *frame, const void *_Nullable stack, uintptr_t stack_bytes, const void *target,
                    int result_kind);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif  // CBLOCKSIGNATUREHOOK_H
