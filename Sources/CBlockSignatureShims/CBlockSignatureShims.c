// BlockSignature — CBlockSignatureShims: see the header for why these exist.

#define _GNU_SOURCE 1
#include "CBlockSignatureShims.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <link.h>
#include <sys/uio.h>
#include <unistd.h>
#endif

size_t cbs_find_byte(const void *bytes, size_t count, unsigned char byte) {
  const void *found = count ? memchr(bytes, byte, count) : NULL;
  return found ? (size_t)((const unsigned char *)found - (const unsigned char *)bytes) : count;
}

char *cbs_demangle_swift(const char *name) {
  typedef char *(*Demangle)(const char *, size_t, char *, size_t *, uint32_t);
  Demangle demangle = (Demangle)dlsym(RTLD_DEFAULT, "swift_demangle");
  return demangle ? demangle(name, strlen(name), NULL, NULL, 0) : NULL;
}

char *cbs_demangle_cxx(const char *name) {
  typedef char *(*Demangle)(const char *, char *, size_t *, int *);
  Demangle demangle = (Demangle)dlsym(RTLD_DEFAULT, "__cxa_demangle");
  int status = -1;
  char *result = demangle ? demangle(name, NULL, NULL, &status) : NULL;
  if (status != 0 && result) {
    free(result);
    result = NULL;
  }
  return result;
}

void cbs_free(void *pointer) { free(pointer); }

long cbs_read_memory(const void *address, void *buffer, size_t count) {
  return cbs_read_process_memory(-1, (uintptr_t)address, buffer, count);
}

long cbs_read_process_memory(int pid, uintptr_t address, void *buffer, size_t count) {
#if defined(__linux__)
  struct iovec local = {buffer, count};
  struct iovec remote = {(void *)address, count};
  ssize_t n = process_vm_readv(pid < 0 ? getpid() : (pid_t)pid, &local, 1, &remote, 1, 0);
  return (long)n;
#else
  (void)pid;
  (void)address;
  (void)buffer;
  (void)count;
  errno = ENOSYS;
  return -1;
#endif
}

int cbs_dladdr(const void *address, CBS_SymbolInfo *info) {
  Dl_info raw = {0};
  if (address == NULL || dladdr(address, &raw) == 0) return 0;
  info->imagePath = raw.dli_fname;
  info->imageBase = (uintptr_t)raw.dli_fbase;
  info->symbolName = raw.dli_sname;
  info->symbolAddress = (uintptr_t)raw.dli_saddr;
  return 1;
}

#if defined(__linux__)
struct cbs_walk {
  int (*visit)(const char *, uintptr_t, void *);
  void *context;
};

static int cbs_phdr_callback(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct cbs_walk *walk = (struct cbs_walk *)data;
  if (info->dlpi_name == NULL || info->dlpi_name[0] == 0) return 0;
  return walk->visit(info->dlpi_name, (uintptr_t)info->dlpi_addr, walk->context);
}

int cbs_each_image(int (*visit)(const char *, uintptr_t, void *), void *context) {
  struct cbs_walk walk = {visit, context};
  return dl_iterate_phdr(cbs_phdr_callback, &walk);
}
#else
int cbs_each_image(int (*visit)(const char *, uintptr_t, void *), void *context) {
  (void)visit;
  (void)context;
  return 0;
}
#endif

#if defined(__linux__)
/// What one search of the loaded objects looks for, and what it found.
typedef struct {
  uintptr_t address;
  unsigned char *buffer;
  size_t count;
  int isString;
  long copied;
  int terminated;
} CBS_ImageCopy;

/// The readable bytes from `address` to the end of its readable `PT_LOAD` segment of `info`'s
/// object, or 0 when no such segment holds it.
static size_t cbs_image_span(struct dl_phdr_info *info, uintptr_t address) {
  for (size_t index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *segment = &info->dlpi_phdr[index];
    if (segment->p_type != PT_LOAD || !(segment->p_flags & PF_R)) continue;
    uintptr_t start = (uintptr_t)info->dlpi_addr + (uintptr_t)segment->p_vaddr;
    uintptr_t end = start + (uintptr_t)segment->p_memsz;
    if (address >= start && address < end) return end - address;
  }
  return 0;
}

/// An 8-byte word at any address.
typedef uint64_t cbs_unaligned_word __attribute__((aligned(1)));

/// Copies `count` bytes, a word at a time and then byte by byte, unseen by the sanitizers, as
/// the kernel's copy of `process_vm_readv` is: they lie in a mapped segment, but may run past
/// the variable AddressSanitizer knows them as (a descriptor read to the end its flags
/// announce), which its `memcpy` would report. Volatile, so that no `memcpy` is made of the
/// loops.
__attribute__((no_sanitize("address", "thread"))) static void cbs_copy_bytes(
    unsigned char *to, const unsigned char *from, size_t count) {
  const volatile cbs_unaligned_word *words = (const volatile cbs_unaligned_word *)from;
  size_t index = 0;
  for (; index + 8 <= count; index += 8) {
    uint64_t word = words[index / 8];
    __builtin_memcpy(to + index, &word, 8);
  }
  const volatile unsigned char *source = from;
  for (; index < count; index++) to[index] = source[index];
}

/// The length of the string at `from` within `limit` bytes, and whether a NUL ends it there;
/// unseen by the sanitizers as `cbs_copy_bytes`.
__attribute__((no_sanitize("address", "thread"))) static size_t cbs_string_length(
    const unsigned char *from, size_t limit, int *terminated) {
  const volatile unsigned char *source = from;
  for (size_t index = 0; index < limit; index++) {
    if (source[index] == 0) {
      *terminated = 1;
      return index;
    }
  }
  *terminated = 0;
  return limit;
}

/// `dl_iterate_phdr`'s callback: copies from the object whose segment holds the address, while
/// the dynamic linker's list is locked; 1 stops the walk.
static int cbs_copy_from_image(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  CBS_ImageCopy *copy = data;
  size_t span = cbs_image_span(info, copy->address);
  if (span == 0) return 0;
  const unsigned char *source = (const unsigned char *)copy->address;
  if (!copy->isString) {
    if (span >= copy->count) {
      cbs_copy_bytes(copy->buffer, source, copy->count);
      copy->copied = (long)copy->count;
    }
    return 1;
  }
  size_t limit = span < copy->count ? span : copy->count;
  size_t length = cbs_string_length(source, limit, &copy->terminated);
  if (copy->buffer) cbs_copy_bytes(copy->buffer, source, length);
  copy->copied = (long)length;
  return 1;
}
#endif

int cbs_copy_from_loaded_image(uintptr_t address, void *buffer, size_t count) {
#if defined(__linux__)
  CBS_ImageCopy copy = {address, buffer, count, 0, -1, 0};
  dl_iterate_phdr(cbs_copy_from_image, &copy);
  return copy.copied == (long)count;
#else
  (void)address;
  (void)buffer;
  (void)count;
  return 0;
#endif
}

long cbs_copy_string_from_loaded_image(uintptr_t address, void *buffer, size_t limit, int *terminated) {
#if defined(__linux__)
  CBS_ImageCopy copy = {address, buffer, limit, 1, -1, 0};
  dl_iterate_phdr(cbs_copy_from_image, &copy);
  *terminated = copy.terminated;
  return copy.copied;
#else
  (void)address;
  (void)buffer;
  (void)limit;
  *terminated = 0;
  return -1;
#endif
}
