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

/// Loads a pointer-sized field (acquire ordering).
static inline const void *_Nullable cbh_load_pointer(const void *const _Nullable *slot) {
  return __atomic_load_n((const void *const *)slot, __ATOMIC_ACQUIRE);
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

/// The protection (`PROT_*` bits) of the mapping that holds `address`, from /proc/self/maps;
/// -1 when no mapping holds it or the map cannot be read.
int cbh_protection(uintptr_t address);

/// Stores `value` into the pointer-sized `slot` atomically (release ordering). When the page is
/// not writable it is made writable for the store (its protection plus `PROT_WRITE`) and given
/// its protection back right after. Returns 0, or an `errno` value (nothing stored). Callers
/// serialize their stores: two at once on one page could restore each other's protection.
int cbh_store_pointer(void *_Nullable *slot, const void *_Nullable value);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif  // CBLOCKSIGNATUREHOOK_H
