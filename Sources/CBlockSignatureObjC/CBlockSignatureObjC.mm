// BlockSignature — CBlockSignatureObjC: see the header for why these exist.
//
// Objective-C++ only because clang compiles C++ with -fexceptions: in a plain .m file the call
// inside @try is assumed not to throw and the handler is dropped. The personality is GCC's
// (__gnu_objc_personality_v0, in libobjc).

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "CBlockSignatureObjC.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>

#include <atomic>

typedef struct objc_object *id;
typedef struct objc_class *Class;
typedef struct objc_selector *SEL;
typedef struct objc_method *Method;
typedef struct objc_ivar *Ivar;
typedef id (*IMP)(id, SEL, ...);
typedef unsigned char BOOL;
@class Protocol;

struct objc_method_description {
  SEL name;
  char *types;
};

extern "C" {
// libffi's, with its interface as an opaque pointer (BlockSignatureFFI prepares it).
void ffi_call(void *cif, void (*function)(void), void *result, void **arguments);
const char *sel_getName(SEL);
SEL sel_registerName(const char *);
BOOL sel_isEqual(SEL, SEL);
Class objc_lookUpClass(const char *);
const char *class_getName(Class);
Class class_getSuperclass(Class);
BOOL class_isMetaClass(Class);
size_t class_getInstanceSize(Class);
int objc_getClassList(Class *, int);
Method class_getInstanceMethod(Class, SEL);
Method class_getClassMethod(Class, SEL);
Method *class_copyMethodList(Class, unsigned int *);
Protocol **class_copyProtocolList(Class, unsigned int *);
BOOL class_addMethod(Class, SEL, IMP, const char *);
IMP class_replaceMethod(Class, SEL, IMP, const char *);
Class objc_allocateClassPair(Class, const char *, size_t);
void objc_registerClassPair(Class);
void objc_disposeClassPair(Class);
BOOL class_addIvar(Class, const char *, size_t, unsigned char, const char *);
Ivar class_getInstanceVariable(Class, const char *);
Ivar *class_copyIvarList(Class, unsigned int *);
const char *ivar_getName(Ivar);
const char *ivar_getTypeEncoding(Ivar);
ptrdiff_t ivar_getOffset(Ivar);
BOOL class_addProtocol(Class, Protocol *);
BOOL class_conformsToProtocol(Class, Protocol *);
BOOL class_respondsToSelector(Class, SEL);
SEL method_getName(Method);
const char *method_getTypeEncoding(Method);
IMP method_getImplementation(Method);
IMP method_setImplementation(Method, IMP);
IMP objc_msg_lookup(id, SEL);
Protocol *objc_getProtocol(const char *);
const char *protocol_getName(Protocol *);
struct objc_method_description *protocol_copyMethodDescriptionList(Protocol *, BOOL, BOOL, unsigned int *);
Protocol **objc_copyProtocolList(unsigned int *);
}

const void *cbo_call_catching(void *cif, const void *function, void *result, void **arguments) {
  @try {
    ffi_call(cif, (void (*)(void))function, result, arguments);
  } @catch (id exception) {
    return exception;
  }
  return NULL;
}

const void *cbo_send_catching(const void *receiver, const void *selector, const void *argument,
                              const void **raised) {
  *raised = NULL;
  @try {
    IMP imp = objc_msg_lookup((id)receiver, (SEL)selector);
    return ((id (*)(id, SEL, const void *))imp)((id)receiver, (SEL)selector, argument);
  } @catch (id exception) {
    *raised = exception;
  }
  return NULL;
}

// The pool class once GNUstep Base is found; whether this thread has been seen with it.
static std::atomic<const void *> cbo_pool_class{nullptr};
static thread_local bool cbo_pool_checked = false;

int cbo_autorelease_pool_ensure(void) {
  if (cbo_pool_checked) return 0;
  Class poolClass = (Class)cbo_pool_class.load(std::memory_order_acquire);
  if (poolClass == nullptr) {
    poolClass = objc_lookUpClass("NSAutoreleasePool");
    if (poolClass == nullptr) return 0;  // not loaded yet: look again next time
    cbo_pool_class.store((const void *)poolClass, std::memory_order_release);
  }
  cbo_pool_checked = true;
  SEL current = sel_registerName("currentPool");
  id pool = ((id (*)(id, SEL))objc_msg_lookup((id)poolClass, current))((id)poolClass, current);
  if (pool != nullptr) return 0;
  SEL make = sel_registerName("new");
  ((id (*)(id, SEL))objc_msg_lookup((id)poolClass, make))((id)poolClass, make);
  return 1;
}

const void *cbo_sel_register_name(const char *name) { return sel_registerName(name); }
const char *cbo_sel_get_name(const void *selector) { return sel_getName((SEL)selector); }
int cbo_sel_is_equal(const void *first, const void *second) { return sel_isEqual((SEL)first, (SEL)second); }

const void *cbo_class_named(const char *name) { return objc_lookUpClass(name); }
const char *cbo_class_get_name(const void *cls) { return class_getName((Class)cls); }
const void *cbo_class_get_superclass(const void *cls) { return class_getSuperclass((Class)cls); }
int cbo_class_is_metaclass(const void *cls) { return class_isMetaClass((Class)cls); }
// GCC's object_getClass is an inline function of its header: an object's first word is its class.
const void *cbo_object_get_class(const void *object) { return object ? *(const void *const *)object : NULL; }
size_t cbo_class_get_instance_size(const void *cls) { return class_getInstanceSize((Class)cls); }
int cbo_class_list(const void **classes, int capacity) { return objc_getClassList((Class *)classes, capacity); }
const void *cbo_class_instance_method(const void *cls, const void *selector) {
  return class_getInstanceMethod((Class)cls, (SEL)selector);
}
const void *cbo_class_class_method(const void *cls, const void *selector) {
  return class_getClassMethod((Class)cls, (SEL)selector);
}
const void **cbo_class_copy_methods(const void *cls, unsigned *count) {
  return (const void **)class_copyMethodList((Class)cls, count);
}
const void **cbo_class_copy_protocols(const void *cls, unsigned *count) {
  return (const void **)class_copyProtocolList((Class)cls, count);
}
int cbo_class_add_method(const void *cls, const void *selector, const void *implementation, const char *types) {
  return class_addMethod((Class)cls, (SEL)selector, (IMP)implementation, types);
}
const void *cbo_class_replace_method(const void *cls, const void *selector, const void *implementation,
                                     const char *types) {
  return (const void *)class_replaceMethod((Class)cls, (SEL)selector, (IMP)implementation, types);
}
const void *cbo_class_allocate_pair(const void *superclass, const char *name) {
  return objc_allocateClassPair((Class)superclass, name, 0);
}
void cbo_class_register_pair(const void *cls) { objc_registerClassPair((Class)cls); }
void cbo_class_dispose_pair(const void *cls) { objc_disposeClassPair((Class)cls); }
int cbo_class_add_ivar(const void *cls, const char *name, size_t size, unsigned char alignmentLog2,
                       const char *types) {
  return class_addIvar((Class)cls, name, size, alignmentLog2, types);
}
ptrdiff_t cbo_class_ivar_offset(const void *cls, const char *name) {
  Ivar ivar = class_getInstanceVariable((Class)cls, name);
  return ivar ? ivar_getOffset(ivar) : -1;
}
int cbo_class_add_protocol(const void *cls, const void *protocol) {
  return class_addProtocol((Class)cls, (Protocol *)protocol);
}
int cbo_class_conforms_to_protocol(const void *cls, const void *protocol) {
  return class_conformsToProtocol((Class)cls, (Protocol *)protocol);
}
int cbo_class_responds_to_selector(const void *cls, const void *selector) {
  return class_respondsToSelector((Class)cls, (SEL)selector);
}

unsigned cbo_class_instance_variables(const void *cls, CBO_InstanceVariable *variables, unsigned capacity) {
  unsigned count = 0;
  Ivar *list = class_copyIvarList((Class)cls, &count);
  for (unsigned i = 0; variables && i < count && i < capacity; i++) {
    variables[i].name = ivar_getName(list[i]);
    variables[i].types = ivar_getTypeEncoding(list[i]);
    variables[i].offset = ivar_getOffset(list[i]);
  }
  free(list);
  return count;
}

const char *cbo_library_path(void *handle) {
  struct link_map *map = NULL;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL) return NULL;
  return map->l_name;
}

const char *cbo_image_path(const void *address) {
  Dl_info info;
  if (dladdr(address, &info) == 0) return NULL;
  return info.dli_fname;
}

const void *cbo_method_get_name(const void *method) { return method_getName((Method)method); }
const char *cbo_method_get_type_encoding(const void *method) { return method_getTypeEncoding((Method)method); }
const void *cbo_method_get_implementation(const void *method) {
  return (const void *)method_getImplementation((Method)method);
}
const void *cbo_method_set_implementation(const void *method, const void *implementation) {
  return (const void *)method_setImplementation((Method)method, (IMP)implementation);
}

const void *cbo_msg_lookup(const void *receiver, const void *selector) {
  return (const void *)objc_msg_lookup((id)receiver, (SEL)selector);
}

const void *cbo_protocol_named(const char *name) { return objc_getProtocol(name); }
const char *cbo_protocol_get_name(const void *protocol) { return protocol_getName((Protocol *)protocol); }
CBO_MethodDescription *cbo_protocol_copy_methods(const void *protocol, int required, int instance,
                                                 unsigned *count) {
  return (CBO_MethodDescription *)protocol_copyMethodDescriptionList((Protocol *)protocol, required, instance,
                                                                     count);
}
const void **cbo_protocol_copy_list(unsigned *count) { return (const void **)objc_copyProtocolList(count); }
