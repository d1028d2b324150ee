// BlockSignature — CFFI
//
// Debian's libffi (`libffi-dev`, pkg-config `libffi`) for the BlockSignatureFFI target. Swift 6
// rejects libffi's `ffi_type_*` globals as shared mutable state and does not import the macros
// among them (`ffi_type_sint`, `ffi_type_uchar`, …): these accessors return their addresses.
// libffi never writes to the built-in scalar types after it is loaded.

#ifndef CFFI_SHIM_H
#define CFFI_SHIM_H

#include <ffi.h>

#pragma clang assume_nonnull begin

static inline ffi_type *cffi_type_void(void) { return &ffi_type_void; }
static inline ffi_type *cffi_type_uint8(void) { return &ffi_type_uint8; }
static inline ffi_type *cffi_type_sint8(void) { return &ffi_type_sint8; }
static inline ffi_type *cffi_type_uint16(void) { return &ffi_type_uint16; }
static inline ffi_type *cffi_type_sint16(void) { return &ffi_type_sint16; }
static inline ffi_type *cffi_type_uint32(void) { return &ffi_type_uint32; }
static inline ffi_type *cffi_type_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *cffi_type_uint64(void) { return &ffi_type_uint64; }
static inline ffi_type *cffi_type_sint64(void) { return &ffi_type_sint64; }
static inline ffi_type *cffi_type_float(void) { return &ffi_type_float; }
static inline ffi_type *cffi_type_double(void) { return &ffi_type_double; }
static inline ffi_type *cffi_type_longdouble(void) { return &ffi_type_longdouble; }
static inline ffi_type *cffi_type_pointer(void) { return &ffi_type_pointer; }

#ifdef FFI_TARGET_HAS_COMPLEX_TYPE
static inline ffi_type *_Nullable cffi_type_complex_float(void) { return &ffi_type_complex_float; }
static inline ffi_type *_Nullable cffi_type_complex_double(void) { return &ffi_type_complex_double; }
static inline ffi_type *_Nullable cffi_type_complex_longdouble(void) { return &ffi_type_complex_longdouble; }
#else
static inline ffi_type *_Nullable cffi_type_complex_float(void) { return 0; }
static inline ffi_type *_Nullable cffi_type_complex_double(void) { return 0; }
static inline ffi_type *_Nullable cffi_type_complex_longdouble(void) { return 0; }
#endif

/// The platform's default calling convention (`FFI_DEFAULT_ABI`, an enum constant Swift sees
/// under a platform-specific name).
static inline ffi_abi cffi_default_abi(void) { return FFI_DEFAULT_ABI; }

/// `FFI_TYPE_STRUCT`, a macro.
static inline unsigned short cffi_type_struct_tag(void) { return FFI_TYPE_STRUCT; }

/// The size of `ffi_arg`: libffi writes a whole one for every integer return narrower than it.
static inline size_t cffi_arg_size(void) { return sizeof(ffi_arg); }

/// Publishes a closure's code address (or NULL) in a callback table that C may be reading on
/// another thread: one release store of the whole pointer.
static inline void cffi_publish_pointer(void *_Nullable *slot, const void *_Nullable value) {
  __atomic_store_n(slot, (void *)value, __ATOMIC_RELEASE);
}

/// Reads a function pointer from a callback table that may be written on another thread.
static inline const void *_Nullable cffi_read_pointer(void *_Nullable const *slot) {
  return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

#pragma clang assume_nonnull end

#endif  // CFFI_SHIM_H
