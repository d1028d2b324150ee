// The trace agent's hooks into the program: a constructor that starts the Swift side, and
// `_Block_copy` and `dlopen` of its own, found first because the library is preloaded, that
// call the program's and then tell the Swift side. A thread inside the agent is not told again
// (the agent's own work must not trace itself).

#define _GNU_SOURCE
#include "CBlockSignatureTraceAgent.h"

#include <dlfcn.h>
#include <stddef.h>

// The Swift side (BlockSignatureTraceAgent).
extern void bsta_agent_start(void);
extern void bsta_agent_copied(void *block);
extern void bsta_agent_loaded(void);

static int started;
static __thread int inside;

int bsta_started(void) { return __atomic_load_n(&started, __ATOMIC_ACQUIRE); }

__attribute__((constructor)) static void bsta_start(void) {
  inside = 1;
  bsta_agent_start();
  inside = 0;
  __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
}

void *_Block_copy(const void *block) {
  static void *(*real)(const void *);
  if (real == NULL) real = (void *(*)(const void *))dlsym(RTLD_NEXT, "_Block_copy");
  void *copy = real(block);
  if (copy != NULL && !inside && bsta_started()) {
    inside = 1;
    bsta_agent_copied(copy);
    inside = 0;
  }
  return copy;
}

void *dlopen(const char *file, int mode) {
  static void *(*real)(const char *, int);
  if (real == NULL) real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
  void *handle = real(file, mode);
  if (handle != NULL && !inside && bsta_started()) {
    inside = 1;
    bsta_agent_loaded();
    inside = 0;
  }
  return handle;
}
