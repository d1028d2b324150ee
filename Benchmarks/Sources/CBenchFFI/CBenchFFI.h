// libffi for the benchmarks' hand-built call interface: the types a `double (^)(int, double)`
// block needs, reached through accessors (Swift 6 rejects libffi's mutable globals).
#ifndef CBENCHFFI_H
#define CBENCHFFI_H
#include <ffi.h>
#pragma clang assume_nonnull begin
static inline ffi_type *cbench_type_pointer(void) { return &ffi_type_pointer; }
static inline ffi_type *cbench_type_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *cbench_type_double(void) { return &ffi_type_double; }
static inline ffi_abi cbench_default_abi(void) { return FFI_DEFAULT_ABI; }
#pragma clang assume_nonnull end
#endif
