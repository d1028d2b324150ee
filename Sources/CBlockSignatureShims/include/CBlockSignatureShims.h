// BlockSignature — CBlockSignatureShims
//
// Thin wrappers over the dynamic linker calls that Swift's Glibc module hides behind
// _GNU_SOURCE (`dladdr`, `dl_iterate_phdr`), and over `process_vm_readv`; and the fork, wait
// and signal handling of a child that contains a crash, whose macros (`WIFSIGNALED`) and
// handler the Swift overlay cannot express. No allocation; no state but the descriptor a
// signal handler writes to.

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

/// Copies `count` bytes at `address` in this process into `buffer` when they all lie in one
/// readable loadable segment (`PT_LOAD` with `PF_R`) of an object the dynamic linker has
/// loaded: a block's descriptor and signature almost always do. No system call: the copy is
/// made inside `dl_iterate_phdr`, whose lock keeps `dlclose` from unmapping the object
/// meanwhile. Returns 1 when copied, 0 when the bytes are not all in such a segment (the
/// caller reads them with `cbs_read_process_memory`).
int cbs_copy_from_loaded_image(uintptr_t address, void *buffer, size_t count);

/// The NUL-terminated string at `address`, copied the same way: at most `limit` bytes, up to
/// the NUL or the end of the segment. Returns the bytes copied (NUL excluded), with
/// `*terminated` set when a NUL ended them, or -1 when `address` is in no such segment. A
/// NULL `buffer` measures the string without copying it.
long cbs_copy_string_from_loaded_image(
    uintptr_t address, void *_Nullable buffer, size_t limit, int *terminated);

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

/// What a child process made to contain a crash reports of the signal that ends it (written
/// by the handler `cbs_report_faults` installs, read by the parent after the child is gone).
typedef struct CBS_FaultRecord {
  /// The signal (SIGSEGV, SIGBUS, …).
  int32_t signal;
  /// `si_code`: how it was raised (a fault, `kill`, …).
  int32_t code;
  /// `si_addr`: the address the fault was about (the instruction, for SIGILL and SIGFPE).
  uint64_t address;
  /// The instruction pointer when the signal arrived; 0 where it cannot be read.
  uint64_t pc;
} CBS_FaultRecord;

/// In a child process made to contain a crash: installs, on an alternate stack, a handler for
/// the signals that end a process with a fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
/// SIGTRAP, SIGSYS) that writes one `CBS_FaultRecord` to `fd` and then lets the signal end the
/// process as it would have. The descriptor is kept where the handler can reach it: the one
/// piece of state a signal handler has. Returns 0, or -1 with errno.
int cbs_report_faults(int fd);

/// `fork()`: the child's process ID in the parent, 0 in the child, -1 with errno.
int cbs_fork(void);

/// Waits for child `pid` (retrying on EINTR): returns 0 and sets `exitStatus` (the status it
/// exited with, or -1) and `signal` (the signal that ended it, or 0); -1 with errno.
int cbs_wait_child(int pid, int *exitStatus, int *signal);

/// Starts `path` with `arguments` (NULL-terminated, `arguments[0]` the program's name) in
/// `directory`, its standard input /dev/null and its standard output and error written to
/// the files `outputPath` and `errorPath` (truncated), in this process's process group, so that
/// an interrupt from the terminal reaches it as it reaches this process (posix_spawn with
/// `posix_spawn_file_actions_addchdir_np`, which Swift's overlay does not import). Returns the
/// child's process ID, or -1 with errno.
int cbs_spawn(const char *path, char *const _Nullable arguments[_Nonnull], const char *directory,
              const char *outputPath, const char *errorPath);

/// Waits at most `milliseconds` for child `pid`: returns 1 and sets `exitStatus` and `signal`
/// as `cbs_wait_child` does when it ended, 0 when it is still running, -1 with errno.
int cbs_wait_child_for(int pid, long milliseconds, int *exitStatus, int *signal);

/// Whether the calling thread is the process's main thread (its thread ID is the process ID).
int cbs_is_main_thread(void);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif  // CBLOCKSIGNATURESHIMS_H
