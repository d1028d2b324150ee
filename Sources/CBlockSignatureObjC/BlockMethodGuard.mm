// BlockSignature — CBlockSignatureObjC: what a block-made method does when its block raises, and
// the `@try` around a typed send made in registers (include/CBlockMethodEntry.h). Objective-C++
// for the reason CBlockSignatureObjC.mm gives: in a plain .m file the call inside `@try` is
// assumed not to throw and the handler is dropped.

#include "CBlockMethodEntry.h"

#include <atomic>

typedef struct objc_object *id;

static std::atomic<CBO_BlockMethodRaiseHandler> cbo_raise_handler{nullptr};

#if defined(__x86_64__) && defined(__linux__)
extern "C" {
void cbo_block_method_entry(void);
void cbo_block_method_replay(CBO_BlockMethodFrame *frame);
void cbo_block_method_raised(CBO_BlockMethodFrame *frame, const void *exception)
    __attribute__((visibility("hidden")));
}

// Called from the entry's landing pad with the exception it caught.
void cbo_block_method_raised(CBO_BlockMethodFrame *frame, const void *exception) {
  cbo_raise_handler.load(std::memory_order_acquire)(frame, exception);
}

const void *cbo_register_call_catching(CBO_BlockMethodFrame *frame) {
  @try {
    cbo_block_method_replay(frame);
  } @catch (id exception) {
    return exception;
  }
  return nullptr;
}
#else
const void *cbo_register_call_catching(CBO_BlockMethodFrame *frame) { return nullptr; }
#endif

void cbo_block_method_set_raise_handler(CBO_BlockMethodRaiseHandler handler) {
  cbo_raise_handler.store(handler, std::memory_order_release);
}

const void *cbo_block_method_entry_address(void) {
#if defined(__x86_64__) && defined(__linux__)
  return (const void *)&cbo_block_method_entry;
#else
  return nullptr;
#endif
}
