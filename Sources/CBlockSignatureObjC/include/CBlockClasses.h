// BlockSignature — CBlockSignatureObjC: blocks as Objective-C objects on GCC's runtime.
//
// A blocks runtime of the libclosure family (the Swift toolchain's libBlocksRuntime, Debian's
// libblocksruntime) keeps each block class (`_NSConcreteStackBlock`, `_NSConcreteMallocBlock`,
// `_NSConcreteGlobalBlock`, …) as 32 words of zeroed storage, so that an Objective-C runtime can
// lay a class there. GCC's runtime (libobjc.so.4, GNUstep's on Debian) never does, and a message
// sent to a block (`[block copy]`, as GNUstep's NSBlockOperation sends) crashes.
// `cbo_install_block_classes` lays real classes into that storage: `NSBlock`, a subclass of
// `NSObject`, and below it `__NSStackBlock__`, `__NSMallocBlock__`, `__NSGlobalBlock__`,
// `__NSAutoBlock__`, `__NSFinalizingBlock__`; `__NSBlockVariable__` (a subclass of `NSObject`)
// for `_NSConcreteWeakBlockVariable`.
//
// Compiled with -DCBO_BLOCK_CLASSES_AT_LOAD (Scripts/build-block-classes.sh), the file installs
// them when the library is loaded, for Objective-C programs that link it.

#ifndef CBLOCKCLASSES_H
#define CBLOCKCLASSES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// What `cbo_install_block_classes` did.
typedef enum CBO_BlockClassesStatus {
  /// The classes are in place: laid now, or by an earlier call.
  CBO_BLOCK_CLASSES_INSTALLED = 0,
  /// No class `NSObject`: GNUstep Base is not loaded.
  CBO_BLOCK_CLASSES_NO_FOUNDATION = 1,
  /// The process has no blocks runtime (no `_NSConcreteStackBlock`, `_NSConcreteMallocBlock`
  /// or `_NSConcreteGlobalBlock`), or its library has no `_Block_copy` / `_Block_release`.
  CBO_BLOCK_CLASSES_NO_BLOCKS_RUNTIME = 2,
  /// A block class the process uses has less storage than a class takes, or lies in another
  /// library than the stack block class (two blocks runtimes mixed).
  CBO_BLOCK_CLASSES_UNFIT_STORAGE = 3,
  /// A class of one of the names exists elsewhere.
  CBO_BLOCK_CLASSES_NAME_TAKEN = 4,
} CBO_BlockClassesStatus;

/// The outcome of `cbo_install_block_classes`.
typedef struct CBO_BlockClassesReport {
  /// A `CBO_BlockClassesStatus`.
  int status;
  /// The library that holds the block classes (the blocks runtime), when one was found.
  const char *_Nullable runtimeLibrary;
  /// 1 when heap copies now retain the objects they capture and release them when freed
  /// (the runtime has `_Block_use_RR2`, as the toolchain's has), 0 when they cannot (Debian's
  /// runtime hides the hook), -1 when an earlier call installed the classes.
  int retainsCapturedObjects;
  /// What happened, in a sentence that names the symbol, library and sizes concerned.
  char message[512];
} CBO_BlockClassesReport;

/// Lays the Objective-C block classes into the storage of the blocks runtime the process
/// uses (the definitions of `_NSConcrete*Block` that the dynamic linker resolves first), once:
/// later calls find them in place and report `CBO_BLOCK_CLASSES_INSTALLED`. `NSObject` must be
/// loaded. Thread-safe. Returns `report->status`.
int cbo_install_block_classes(CBO_BlockClassesReport *report);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif  // CBLOCKCLASSES_H
