// BlockSignature — CBlockSignatureShims
//
// Thin wrappers over the dynamic linker calls that Swift's Glibc module hides behind
// _GNU_SOURCE (`dladdr`, `dl_iterate_phdr`), and over `process_vm_readv`. No state, no allocation: they exist only
// because the Swift overlay does not import these declarations.

#ifndef CBLOCKSIGNATURESHIMS_H
#define CBLOCKSIGNATURESHIMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// What `dladdr` reports for an address.
typedef struct CBS_SymbolInfo {
  const char *_Nullable imagePath;
  uintptr_t imageBase;
  const char *_Nullable symbolName;
  uintptr_t symbolAddress;
} CBS_SymbolInfo;

/// `dladdr`: fills `info` and returns non-zero when `address` lies in a loaded image.
int cbs_dladdr(const void *_Nullable address, CBS_SymbolInfo *info);

/// Calls `visit` with the path of every loaded image that has one (`dl_iterate_phdr`);
/// a non-zero return from `visit` stops the walk.
int cbs_each_image(int (*visit)(const char *path, uintptr_t base, void *_Nullable context),
                   void *_Nullable context);

/// Copies `count` bytes at `address` in this process into `buffer` without faulting:
/// returns the number of bytes copied (short at the first unreadable page), or -1 when
/// nothing could be read or the check is unavailable (errno tells; ENOSYS off Linux).
/// Unlike reading /proc/self/mem, this honours page protections (PROT_NONE fails).
long cbs_read_memory(const void *_Nullable address, void *buffer, size_t count);

/// `cbs_read_memory` for process `pid` (-1: this process): copies `count` bytes at `address`
/// in its address space into `buffer`. Returns the number of bytes copied (short at the first
/// unreadable page), or -1 with errno: ESRCH (no such process), EPERM (no right to read it:
/// another user, or Yama's ptrace_scope), EFAULT (nothing readable at `address`), ENOSYS (off
/// Linux).
long cbs_read_process_memory(int pid, uintptr_t address, void *buffer, size_t count);

/// The index of the first `byte` in the `count` bytes at `bytes`, or `count` when there is
/// none: libc's `memchr`, which reads many bytes per step (the binary scanner skips through
/// megabytes of code with it).
size_t cbs_find_byte(const void *bytes, size_t count, unsigned char byte);

/// The demangled form of the Swift symbol `name` (`$s…`), from the Swift runtime's
/// `swift_demangle` found with `dlsym`, or NULL when it is not a Swift name or no Swift
/// runtime is loaded. Free the result with `cbs_free`.
char *_Nullable cbs_demangle_swift(const char *name);

/// The demangled form of the Itanium C++ symbol `name` (`_Z…`), from the C++ runtime's
/// `__cxa_demangle` found with `dlsym`, or NULL when it does not demangle or no C++ runtime
/// is loaded. Free the result with `cbs_free`.
char *_Nullable cbs_demangle_cxx(const char *name);

/// `free`, for the strings the demanglers return.
void cbs_free(void *_Nullable pointer);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif  // CBLOCKSIGNATURESHIMS_H
