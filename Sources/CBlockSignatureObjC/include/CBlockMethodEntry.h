// BlockSignature — CBlockSignatureObjC: the shared entry of methods made from blocks whose
// arguments all sit in registers (x86-64 System V, Linux).
//
// Each such method's IMP is a few bytes of code written at run time: it moves `self` into the
// register `_cmd` had (RDI to RSI, or RSI to RDX after a hidden return pointer), puts the block
// where `self` was, the block's invoke in RAX and the method's owner in R10, and jumps to
// `cbo_block_method_entry`. The entry calls the invoke with the registers untouched, from a
// frame whose exception table catches any Objective-C object, so that an exception raised by
// the block is handed to the raise handler instead of unwinding into the caller. No argument is
// copied, converted or classified on a call.

#ifndef CBLOCKMETHODENTRY_H
#define CBLOCKMETHODENTRY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma clang assume_nonnull begin

/// The registers of one call; the layout is the assembly's (BlockMethodEntry.S). The entry
/// fills `general[0]` (a hidden return pointer, when there is one) and `owner` only, for the
/// raise handler; `cbo_register_call_catching` reads every argument register from it.
typedef struct CBO_BlockMethodFrame {
  /// RDI, RSI, RDX, RCX, R8, R9.
  uint64_t general[6];
  /// The low eight bytes of XMM0–XMM7.
  uint64_t floating[8];
  /// RAX and RDX after the call.
  uint64_t resultGeneral[2];
  /// The low eight bytes of XMM0 and XMM1 after the call.
  uint64_t resultFloating[2];
  /// The block's invoke function.
  const void *invoke;
  /// The owner the method's code names (the Swift object that made it).
  const void *owner;
} CBO_BlockMethodFrame;

/// Called when the block raised: it must fill the frame's results (the method's return value
/// in its registers, or the buffer behind a hidden return pointer and RAX).
typedef void (*CBO_BlockMethodRaiseHandler)(CBO_BlockMethodFrame *frame, const void *exception);

/// Sets the function called when a block raises; set it before making the first method.
void cbo_block_method_set_raise_handler(CBO_BlockMethodRaiseHandler handler);

/// The address the methods' code jumps to, or NULL where the entry does not exist (not
/// x86-64 Linux; `cbo_register_call_catching` does not exist there either).
const void *_Nullable cbo_block_method_entry_address(void);

/// Calls `frame->invoke` with the frame's argument registers, inside `@try`, and stores its
/// result registers in the frame: a typed send whose arguments all sit in registers, without
/// libffi. Returns NULL when the call returned, or the Objective-C exception it raised (the
/// results are then unwritten). Only where `cbo_block_method_entry_address` is not NULL.
const void *_Nullable cbo_register_call_catching(CBO_BlockMethodFrame *frame);

#pragma clang assume_nonnull end

#ifdef __cplusplus
}
#endif

#endif  // CBLOCKMETHODENTRY_H
