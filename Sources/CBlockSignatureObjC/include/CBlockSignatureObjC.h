// BlockSignature — CBlockSignatureObjC
//
// GCC's Objective-C runtime (libobjc4, as Debian's GNUstep uses it) for BlockSignatureObjC.
// Its header, objc/runtime.h, lies outside clang's default include path, so the calls the
// Swift layer makes are declared here with the prefix `cbo_`, as plain C types: objects,
// classes, selectors, methods and protocols are opaque pointers. One more function exists for
// a reason of its own: `cbo_call_catching` makes a libffi call inside `@try`, so that an
// Objective-C exception never unwinds through Swift frames. No state, no allocation.

#ifndef CBLOCKSIGNATUREOBJC_H
#define CBLOCKSIGNATUREOBJC_H

#include <stddef.h>
#include <stdint.h>

#include "CBlockClasses.h"
#include "CBlockMethodEntry.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// A method's selector and type encoding, as the runtime describes a protocol's methods.
typedef struct CBO_MethodDescription {
  const void *_Nullable selector;
  const char *_Nullable types;
} CBO_MethodDescription;

/// Calls libffi's `ffi_call(cif, function, result, arguments)` inside `@try`. Returns NULL when
/// the call returned, or the Objective-C exception it raised (the call's result is then
/// unwritten). Exceptions of other languages pass through.
const void *_Nullable cbo_call_catching(void *cif, const void *function, void *_Nullable result,
                                        void *_Nullable *_Nullable arguments);

/// Sends `selector` with one pointer-sized argument (ignored by a method that takes none),
/// returning a pointer-sized result, inside `@try`: `*raised` receives an exception it raised,
/// and the result is then NULL.
const void *_Nullable cbo_send_catching(const void *_Nullable receiver, const void *selector,
                                        const void *_Nullable argument,
                                        const void *_Nullable *_Nonnull raised);

/// Makes sure the calling thread has an autorelease pool once GNUstep Base is loaded: the
/// first time a thread comes here with none in place, a pool is made that stays at the bottom
/// of the thread's stack of pools for the thread's life. Later calls on the thread return at
/// once. Returns 1 when it made the pool.
int cbo_autorelease_pool_ensure(void);

// Selectors.
const void *cbo_sel_register_name(const char *name);
const char *cbo_sel_get_name(const void *selector);
int cbo_sel_is_equal(const void *first, const void *second);

// Classes.
const void *_Nullable cbo_class_named(const char *name);
const char *cbo_class_get_name(const void *cls);
const void *_Nullable cbo_class_get_superclass(const void *cls);
int cbo_class_is_metaclass(const void *cls);
const void *_Nullable cbo_object_get_class(const void *_Nullable object);
size_t cbo_class_get_instance_size(const void *cls);
/// Fills `classes` with up to `capacity` classes (none when NULL); returns how many exist.
int cbo_class_list(const void *_Nullable *_Nullable classes, int capacity);
const void *_Nullable cbo_class_instance_method(const void *cls, const void *selector);
const void *_Nullable cbo_class_class_method(const void *cls, const void *selector);
/// The methods the class itself defines (its superclasses' left out); free with `free`.
const void *_Nullable *_Nullable cbo_class_copy_methods(const void *cls, unsigned *count);
/// The protocols the class itself adopts; free with `free`.
const void *_Nullable *_Nullable cbo_class_copy_protocols(const void *cls, unsigned *count);
int cbo_class_add_method(const void *cls, const void *selector, const void *implementation,
                         const char *types);
const void *_Nullable cbo_class_replace_method(const void *cls, const void *selector,
                                               const void *implementation, const char *types);
const void *_Nullable cbo_class_allocate_pair(const void *_Nullable superclass, const char *name);
void cbo_class_register_pair(const void *cls);
/// Frees a class made by `cbo_class_allocate_pair` and never registered.
void cbo_class_dispose_pair(const void *cls);
int cbo_class_add_ivar(const void *cls, const char *name, size_t size, unsigned char alignmentLog2,
                       const char *types);
/// The byte offset of instance variable `name`, or -1 when the class has none.
ptrdiff_t cbo_class_ivar_offset(const void *cls, const char *name);
int cbo_class_add_protocol(const void *cls, const void *protocol);
int cbo_class_conforms_to_protocol(const void *cls, const void *protocol);
int cbo_class_responds_to_selector(const void *cls, const void *selector);

/// An instance variable: its name, type encoding and byte offset.
typedef struct CBO_InstanceVariable {
  const char *_Nullable name;
  const char *_Nullable types;
  ptrdiff_t offset;
} CBO_InstanceVariable;

/// The instance variables the class itself declares, in order, written into `variables` (up
/// to `capacity`, none when it is NULL); returns how many there are.
unsigned cbo_class_instance_variables(const void *cls, CBO_InstanceVariable *_Nullable variables,
                                      unsigned capacity);

// Libraries.

/// The path of the loaded object `handle` (from `dlopen`) stands for, or NULL.
const char *_Nullable cbo_library_path(void *handle);
/// The path of the loaded object that holds `address`, or NULL.
const char *_Nullable cbo_image_path(const void *address);

// Methods.
const void *cbo_method_get_name(const void *method);
const char *_Nullable cbo_method_get_type_encoding(const void *method);
const void *cbo_method_get_implementation(const void *method);
const void *cbo_method_set_implementation(const void *method, const void *implementation);

// Messages: the IMP that answers `selector` for `receiver` (a do-nothing one for nil).
const void *cbo_msg_lookup(const void *_Nullable receiver, const void *selector);

// Protocols.
const void *_Nullable cbo_protocol_named(const char *name);
const char *cbo_protocol_get_name(const void *protocol);
/// The methods the runtime records for the protocol; free with `free`.
CBO_MethodDescription *_Nullable cbo_protocol_copy_methods(const void *protocol, int required,
                                                           int instance, unsigned *count);
/// Every protocol the runtime knows; free with `free`.
const void *_Nullable *_Nullable cbo_protocol_copy_list(unsigned *count);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif  // CBLOCKSIGNATUREOBJC_H
