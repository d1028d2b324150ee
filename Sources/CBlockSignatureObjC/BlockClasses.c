// BlockSignature — CBlockSignatureObjC: the block classes laid into the blocks runtime's
// storage (see CBlockClasses.h for what and why).
//
// How: GCC's objc_allocateClassPair makes an unregistered class (13 words: metaclass,
// superclass name, name, version, info, instance size, ivars, methods, dtable, subclass list,
// sibling, protocols, gc type) that nothing else points to yet. Its words are copied into the
// runtime's storage and the storage is registered with objc_registerClassPair, so the class the
// runtime knows (its table, subclass links, dispatch table) is the storage itself. The methods
// sit on NSBlock and decide by the block's flags, not by its class: Debian's runtime gives heap
// copies the stack class.

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "CBlockClasses.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct objc_object *id;
typedef struct objc_class *Class;
typedef struct objc_selector *SEL;
typedef struct objc_method *Method;
typedef id (*IMP)(id, SEL, ...);
typedef unsigned char BOOL;

Class objc_lookUpClass(const char *);
Class objc_allocateClassPair(Class, const char *, size_t);
void objc_registerClassPair(Class);
BOOL class_addMethod(Class, SEL, IMP, const char *);
Method class_getInstanceMethod(Class, SEL);
IMP class_getMethodImplementation(Class, SEL);
const char *method_getTypeEncoding(Method);
SEL sel_registerName(const char *);
IMP objc_msg_lookup(id, SEL);
void objc_free(void *);

// GCC's struct objc_class, in words (libobjc's objc-private/module-abi-8.h).
enum { CBO_CLASS_WORDS = 13 };

// libclosure's block flags the methods read.
enum { CBO_BLOCK_NEEDS_FREE = 1 << 24, CBO_BLOCK_IS_GLOBAL = 1 << 28 };

typedef struct CBO_BlockHeader {
  void *isa;
  int flags;
  int reserved;
  void (*invoke)(void);
  const void *descriptor;
} CBO_BlockHeader;

// What the methods call, set once before any class is registered.
static void *(*cbo_block_copy)(const void *);
static void (*cbo_block_release)(const void *);
static IMP cbo_object_autorelease;
static unsigned cbo_refcount_unit = 1;
static unsigned cbo_refcount_mask = 0xffff;
static int cbo_retains_captured_objects;

static int cbo_flags(id self) { return __atomic_load_n(&((CBO_BlockHeader *)self)->flags, __ATOMIC_RELAXED); }
static int cbo_is_heap(id self) { return (cbo_flags(self) & CBO_BLOCK_NEEDS_FREE) != 0; }
static int cbo_is_stack(id self) { return (cbo_flags(self) & (CBO_BLOCK_NEEDS_FREE | CBO_BLOCK_IS_GLOBAL)) == 0; }

// NSBlock's methods, as Apple's block classes answer: a copy is `_Block_copy`; a heap block is
// retained and released through the runtime; a stack or global block is never freed, so
// retaining it returns it and releasing it does nothing.
static id cbo_block_copy_method(id self, SEL cmd) {
  (void)cmd;
  return (id)cbo_block_copy(self);
}
static id cbo_block_copy_with_zone(id self, SEL cmd, void *zone) {
  (void)cmd, (void)zone;
  return (id)cbo_block_copy(self);
}
static id cbo_block_retain(id self, SEL cmd) {
  (void)cmd;
  return cbo_is_stack(self) ? self : (id)cbo_block_copy(self);
}
static void cbo_block_release_method(id self, SEL cmd) {
  (void)cmd;
  if (cbo_is_heap(self)) cbo_block_release(self);
}
static id cbo_block_autorelease(id self, SEL cmd) {
  return cbo_is_heap(self) ? ((id (*)(id, SEL))(void (*)(void))cbo_object_autorelease)(self, cmd) : self;
}
static unsigned long cbo_block_retain_count(id self, SEL cmd) {
  (void)cmd;
  if (!cbo_is_heap(self)) return 1;
  return ((unsigned)cbo_flags(self) & cbo_refcount_mask) / cbo_refcount_unit;
}
static void cbo_block_dealloc(id self, SEL cmd) { (void)self, (void)cmd; }

// What a libclosure runtime calls when a heap copy takes or drops an object it captured
// (`_Block_use_RR2`): by default nothing, so that captured objects die under the block.
typedef struct CBO_BlockCallbacks {
  size_t size;
  void (*retain)(const void *);
  void (*release)(const void *);
  void (*destructInstance)(const void *);
} CBO_BlockCallbacks;

static void cbo_send(const void *object, const char *selector) {
  if (object == NULL) return;
  SEL sel = sel_registerName(selector);
  ((void (*)(id, SEL))(void (*)(void))objc_msg_lookup((id)object, sel))((id)object, sel);
}
static void cbo_retain_captured(const void *object) { cbo_send(object, "retain"); }
static void cbo_release_captured(const void *object) { cbo_send(object, "release"); }
static void cbo_destruct_block(const void *block) { (void)block; }

// __NSBlockVariable__'s: a `__block` variable's storage, owned by the blocks that use it.
static id cbo_variable_retain(id self, SEL cmd) {
  (void)cmd;
  return self;
}
static void cbo_variable_release(id self, SEL cmd) { (void)self, (void)cmd; }
static unsigned long cbo_variable_retain_count(id self, SEL cmd) {
  (void)self, (void)cmd;
  return 1;
}

typedef struct CBO_MethodEntry {
  const char *selector;
  void (*implementation)(void);
  const char *fallbackTypes;  // when NSObject has no such method to take the types from
} CBO_MethodEntry;

static const CBO_MethodEntry cbo_block_methods[] = {
  {"copy", (void (*)(void))cbo_block_copy_method, "@16@0:8"},
  {"copyWithZone:", (void (*)(void))cbo_block_copy_with_zone, "@24@0:8^{_NSZone=}16"},
  {"retain", (void (*)(void))cbo_block_retain, "@16@0:8"},
  {"release", (void (*)(void))cbo_block_release_method, "v16@0:8"},
  {"autorelease", (void (*)(void))cbo_block_autorelease, "@16@0:8"},
  {"retainCount", (void (*)(void))cbo_block_retain_count, "L16@0:8"},
  {"dealloc", (void (*)(void))cbo_block_dealloc, "v16@0:8"},
};

static const CBO_MethodEntry cbo_variable_methods[] = {
  {"retain", (void (*)(void))cbo_variable_retain, "@16@0:8"},
  {"release", (void (*)(void))cbo_variable_release, "v16@0:8"},
  {"autorelease", (void (*)(void))cbo_variable_retain, "@16@0:8"},
  {"retainCount", (void (*)(void))cbo_variable_retain_count, "L16@0:8"},
  {"dealloc", (void (*)(void))cbo_block_dealloc, "v16@0:8"},
};

// The runtime's symbols, the classes laid there, and whether the process must have them.
typedef struct CBO_BlockClassSlot {
  const char *symbol;
  const char *className;
  int required;
  int isVariable;
  void *storage;
  size_t size;
} CBO_BlockClassSlot;

enum { CBO_SLOT_COUNT = 6 };

static void cbo_fail(CBO_BlockClassesReport *report, int status, const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  vsnprintf(report->message, sizeof report->message, format, arguments);
  va_end(arguments);
  report->status = status;
}

static void cbo_add_methods(Class cls, Class object, const CBO_MethodEntry *entries, size_t count) {
  for (size_t i = 0; i < count; i++) {
    SEL selector = sel_registerName(entries[i].selector);
    Method inherited = class_getInstanceMethod(object, selector);
    const char *types = inherited ? method_getTypeEncoding(inherited) : NULL;
    class_addMethod(cls, selector, (IMP)entries[i].implementation, types ? types : entries[i].fallbackTypes);
  }
}

// Finds each symbol as the dynamic linker resolves it for the process, with its size and
// library; all must lie in the stack block class's library and each must hold a class.
static int cbo_find_storage(CBO_BlockClassSlot *slots, CBO_BlockClassesReport *report, Dl_info *runtime) {
  for (int i = 0; i < CBO_SLOT_COUNT; i++) {
    void *address = dlsym(RTLD_DEFAULT, slots[i].symbol);
    if (address == NULL) {
      if (!slots[i].required) continue;
      cbo_fail(report, CBO_BLOCK_CLASSES_NO_BLOCKS_RUNTIME,
               "the process has no %s: no blocks runtime is loaded (link libBlocksRuntime)", slots[i].symbol);
      return 0;
    }
    Dl_info info;
    const ElfW(Sym) *symbol = NULL;
    if (dladdr1(address, &info, (void **)&symbol, RTLD_DL_SYMENT) == 0 || symbol == NULL) {
      cbo_fail(report, CBO_BLOCK_CLASSES_NO_BLOCKS_RUNTIME, "the dynamic linker does not say where %s lies",
               slots[i].symbol);
      return 0;
    }
    if (i == 0) *runtime = info;
    report->runtimeLibrary = runtime->dli_fname;
    if (info.dli_fbase != runtime->dli_fbase) {
      cbo_fail(report, CBO_BLOCK_CLASSES_UNFIT_STORAGE,
               "%s resolves to %s but %s to %s: two blocks runtimes are mixed (link libBlocksRuntime "
               "before libgnustep-base)",
               slots[i].symbol, info.dli_fname, slots[0].symbol, runtime->dli_fname);
      return 0;
    }
    if (symbol->st_size < CBO_CLASS_WORDS * sizeof(void *)) {
      cbo_fail(report, CBO_BLOCK_CLASSES_UNFIT_STORAGE,
               "%s in %s has %zu bytes, fewer than a class takes (%zu): it is not a libclosure runtime's "
               "(GNUstep Base's private one comes first? link libBlocksRuntime before libgnustep-base)",
               slots[i].symbol, info.dli_fname, (size_t)symbol->st_size, CBO_CLASS_WORDS * sizeof(void *));
      return 0;
    }
    slots[i].storage = address;
    slots[i].size = symbol->st_size;
  }
  return 1;
}

// 1 when every class is already laid in its storage; 0 when none of the names is taken;
// -1 (with the report filled) when a name is taken by a class elsewhere.
static int cbo_existing_classes(const CBO_BlockClassSlot *slots, CBO_BlockClassesReport *report) {
  int laid = 0, expected = 0;
  for (int i = 0; i < CBO_SLOT_COUNT; i++) {
    if (slots[i].storage == NULL) continue;
    expected++;
    Class existing = objc_lookUpClass(slots[i].className);
    if (existing == (Class)slots[i].storage) {
      laid++;
    } else if (existing != NULL) {
      cbo_fail(report, CBO_BLOCK_CLASSES_NAME_TAKEN, "a class %s exists already, not at %s", slots[i].className,
               slots[i].symbol);
      return -1;
    }
  }
  if (laid == expected) return 1;
  if (laid > 0) {
    cbo_fail(report, CBO_BLOCK_CLASSES_NAME_TAKEN, "only %d of the %d block classes are in place", laid, expected);
    return -1;
  }
  if (objc_lookUpClass("NSBlock") != NULL) {
    cbo_fail(report, CBO_BLOCK_CLASSES_NAME_TAKEN, "a class NSBlock exists already");
    return -1;
  }
  return 0;
}

// The runtime's refcount step: libclosure's counts in units of 2 (mask 0xfffe), compiler-rt's
// in units of 1 (mask 0xffff). Measured on a heap copy of a block made here.
static void cbo_measure_refcount(void *stackClass) {
  static const struct {
    unsigned long reserved, size;
  } descriptor = {0, sizeof(CBO_BlockHeader)};
  CBO_BlockHeader literal = {stackClass, 0, 0, NULL, &descriptor};
  CBO_BlockHeader *copy = cbo_block_copy(&literal);
  if (copy == NULL) return;
  unsigned once = (unsigned)copy->flags & 0xffff;
  cbo_block_copy(copy);
  unsigned twice = (unsigned)copy->flags & 0xffff;
  cbo_block_release(copy);
  cbo_block_release(copy);
  if (twice > once) {
    cbo_refcount_unit = twice - once;
    cbo_refcount_mask = cbo_refcount_unit == 2 ? 0xfffe : 0xffff;
  }
}

// `name` as the runtime's library defines it: looked up in that library (which a program that
// links the runtime statically cannot dlopen by name), else in the process, and kept only if it
// lies in the library itself.
static void *cbo_runtime_symbol(const Dl_info *runtime, void *handle, const char *name) {
  void *address = handle != NULL ? dlsym(handle, name) : NULL;
  if (address == NULL) address = dlsym(RTLD_DEFAULT, name);
  Dl_info info;
  if (address == NULL || dladdr(address, &info) == 0 || info.dli_fbase != runtime->dli_fbase) return NULL;
  return address;
}

static int cbo_find_functions(const Dl_info *runtime, CBO_BlockClassesReport *report) {
  void *handle = dlopen(runtime->dli_fname, RTLD_NOW | RTLD_NOLOAD);
  cbo_block_copy = (void *(*)(const void *))cbo_runtime_symbol(runtime, handle, "_Block_copy");
  cbo_block_release = (void (*)(const void *))cbo_runtime_symbol(runtime, handle, "_Block_release");
  void (*useCallbacks)(const CBO_BlockCallbacks *) =
    (void (*)(const CBO_BlockCallbacks *))cbo_runtime_symbol(runtime, handle, "_Block_use_RR2");
  if (handle != NULL) dlclose(handle);
  if (cbo_block_copy == NULL || cbo_block_release == NULL) {
    cbo_fail(report, CBO_BLOCK_CLASSES_NO_BLOCKS_RUNTIME,
             "%s, which holds the block classes, has no _Block_copy and _Block_release", runtime->dli_fname);
    return 0;
  }
  if (useCallbacks != NULL) {
    static const CBO_BlockCallbacks callbacks = {sizeof(CBO_BlockCallbacks), cbo_retain_captured,
                                                 cbo_release_captured, cbo_destruct_block};
    useCallbacks(&callbacks);
    cbo_retains_captured_objects = 1;
  }
  return 1;
}

// Lays the class `slot` names into its storage, as a subclass of `superclass`.
static int cbo_lay_class(CBO_BlockClassSlot *slot, Class superclass, Class object, CBO_BlockClassesReport *report) {
  Class made = objc_allocateClassPair(superclass, slot->className, 0);
  if (made == NULL) {
    cbo_fail(report, CBO_BLOCK_CLASSES_NAME_TAKEN, "the runtime refused to make class %s", slot->className);
    return 0;
  }
  Class laid = (Class)slot->storage;
  memcpy(laid, made, CBO_CLASS_WORDS * sizeof(void *));
  objc_free(made);
  if (slot->isVariable) {
    cbo_add_methods(laid, object, cbo_variable_methods, sizeof cbo_variable_methods / sizeof *cbo_variable_methods);
  }
  objc_registerClassPair(laid);
  if (objc_lookUpClass(slot->className) != laid) {
    cbo_fail(report, CBO_BLOCK_CLASSES_NAME_TAKEN, "the runtime did not register class %s", slot->className);
    return 0;
  }
  return 1;
}

static int cbo_install_locked(CBO_BlockClassesReport *report) {
  CBO_BlockClassSlot slots[CBO_SLOT_COUNT] = {
    {"_NSConcreteStackBlock", "__NSStackBlock__", 1, 0, NULL, 0},
    {"_NSConcreteMallocBlock", "__NSMallocBlock__", 1, 0, NULL, 0},
    {"_NSConcreteGlobalBlock", "__NSGlobalBlock__", 1, 0, NULL, 0},
    {"_NSConcreteAutoBlock", "__NSAutoBlock__", 0, 0, NULL, 0},
    {"_NSConcreteFinalizingBlock", "__NSFinalizingBlock__", 0, 0, NULL, 0},
    {"_NSConcreteWeakBlockVariable", "__NSBlockVariable__", 0, 1, NULL, 0},
  };
  Class object = objc_lookUpClass("NSObject");
  if (object == NULL) {
    cbo_fail(report, CBO_BLOCK_CLASSES_NO_FOUNDATION, "no class NSObject: GNUstep Base is not loaded");
    return report->status;
  }
  Dl_info runtime;
  if (!cbo_find_storage(slots, report, &runtime)) return report->status;
  int existing = cbo_existing_classes(slots, report);
  if (existing < 0) return report->status;
  if (existing == 0) {
    if (!cbo_find_functions(&runtime, report)) return report->status;
    cbo_measure_refcount(slots[0].storage);
    cbo_object_autorelease = class_getMethodImplementation(object, sel_registerName("autorelease"));
    Class block = objc_allocateClassPair(object, "NSBlock", 0);
    if (block == NULL) {
      cbo_fail(report, CBO_BLOCK_CLASSES_NAME_TAKEN, "the runtime refused to make class NSBlock");
      return report->status;
    }
    cbo_add_methods(block, object, cbo_block_methods, sizeof cbo_block_methods / sizeof *cbo_block_methods);
    objc_registerClassPair(block);
    for (int i = 0; i < CBO_SLOT_COUNT; i++) {
      if (slots[i].storage == NULL) continue;
      if (!cbo_lay_class(&slots[i], slots[i].isVariable ? object : block, object, report)) return report->status;
    }
  }
  report->status = CBO_BLOCK_CLASSES_INSTALLED;
  report->retainsCapturedObjects = existing == 0 ? cbo_retains_captured_objects : -1;
  snprintf(report->message, sizeof report->message, "the block classes are Objective-C classes in %s",
           runtime.dli_fname);
  return report->status;
}

int cbo_install_block_classes(CBO_BlockClassesReport *report) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  memset(report, 0, sizeof *report);
  pthread_mutex_lock(&lock);
  int status = cbo_install_locked(report);
  pthread_mutex_unlock(&lock);
  return status;
}

#ifdef CBO_BLOCK_CLASSES_AT_LOAD
// For Objective-C programs that link the library Scripts/build-block-classes.sh builds: the
// classes are in place before main. A failure is said on stderr; the program runs on.
__attribute__((constructor)) static void cbo_install_block_classes_at_load(void) {
  CBO_BlockClassesReport report;
  if (cbo_install_block_classes(&report) != CBO_BLOCK_CLASSES_INSTALLED) {
    fprintf(stderr, "BlockSignature: blocks are not Objective-C objects: %s\n", report.message);
  }
}
#endif
