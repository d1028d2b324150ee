// Stores into a block's header, through read-only pages when a global literal sits in one.

#include "CBlockSignatureHook.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

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
