// Stores into a block's header, through read-only pages when a global literal sits in one.

#include "CBlockSignatureHook.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int cbh_thread_number(void) {
  static int next;
  static __thread int number;
  if (number == 0) number = __atomic_add_fetch(&next, 1, __ATOMIC_RELAXED);
  return number;
}

int cbh_protection(uintptr_t address) {
  FILE *maps = fopen("/proc/self/maps", "re");
  if (maps == NULL) return -1;
  char line[512];
  int protection = -1;
  while (fgets(line, sizeof line, maps) != NULL) {
    uintptr_t start = 0, end = 0;
    char permissions[5] = {0};
    if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &start, &end, permissions) != 3) continue;
    if (address < start || address >= end) continue;
    protection = (permissions[0] == 'r' ? PROT_READ : 0) | (permissions[1] == 'w' ? PROT_WRITE : 0) |
                 (permissions[2] == 'x' ? PROT_EXEC : 0);
    break;
  }
  fclose(maps);
  return protection;
}

int cbh_store_pointer(void **slot, const void *value) {
  uintptr_t address = (uintptr_t)slot;
  int protection = cbh_protection(address);
  if (protection < 0) return EFAULT;
  if (protection & PROT_WRITE) {
    __atomic_store_n(slot, (void *)value, __ATOMIC_RELEASE);
    return 0;
  }
  uintptr_t pageSize = (uintptr_t)sysconf(_SC_PAGESIZE);
  void *page = (void *)(address & ~(pageSize - 1));
  // A pointer-sized, aligned slot never straddles two pages.
  if (mprotect(page, pageSize, protection | PROT_WRITE) != 0) return errno;
  __atomic_store_n(slot, (void *)value, __ATOMIC_RELEASE);
  if (mprotect(page, pageSize, protection) != 0) {
    // The store is made; a page left writable is worse than a failed hook, so say so.
    return errno;
  }
  return 0;
}

uintptr_t cbh_descriptor_start;
uintptr_t cbh_descriptor_end;
static uintptr_t cbh_descriptor_next;

// 256 MiB of address space, backed only where written: 4 million descriptors of 64 bytes.
enum { cbh_descriptor_region = 256 << 20 };

void *cbh_descriptor_allocate(uintptr_t size) {
  if (cbh_descriptor_start == 0) {
    void *region = mmap(NULL, cbh_descriptor_region, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (region == MAP_FAILED) return NULL;
    cbh_descriptor_next = (uintptr_t)region;
    __atomic_store_n(&cbh_descriptor_end, (uintptr_t)region + cbh_descriptor_region, __ATOMIC_RELEASE);
    __atomic_store_n(&cbh_descriptor_start, (uintptr_t)region, __ATOMIC_RELEASE);
  }
  size = (size + 15) & ~(uintptr_t)15;
  if (cbh_descriptor_next + size > cbh_descriptor_end) return NULL;
  void *result = (void *)cbh_descriptor_next;
  cbh_descriptor_next += size;
  return result;
}
