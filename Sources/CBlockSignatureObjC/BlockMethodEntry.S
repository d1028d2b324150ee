// The entry of methods made from blocks whose arguments all sit in registers, on x86-64
// System V (Linux): see include/CBlockMethodEntry.h. The method's code has already shifted
// `self` and the block into place and set RAX (the invoke) and R10 (the owner).
//
// cbo_block_method_entry calls the invoke with the registers untouched, from a frame whose
// exception table catches any Objective-C object (`@catch (id)`, GCC's personality): a raise
// lands in cbo_block_method_raised (BlockMethodGuard.mm), which fills the frame's result slots,
// and the entry returns those. cbo_block_method_replay serves typed sends made in registers:
// it loads a CBO_BlockMethodFrame's argument registers, calls `invoke` and stores its result
// registers; its unwind information lets an exception pass through it to the `@catch` of
// cbo_register_call_catching.

#include "CBlockABIRegisters.h"

#if defined(__x86_64__) && defined(__linux__)
  .text
  .globl cbo_block_method_entry
  .hidden cbo_block_method_entry
  .type cbo_block_method_entry, @function
  .p2align 4
cbo_block_method_entry:
.Lentry_begin:
  .cfi_startproc
  .cfi_personality 155, DW.ref.__gnu_objc_personality_v0
  .cfi_lsda 27, .Lentry_lsda
  endbr64
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  subq $160, %rsp            // a CBO_BlockMethodFrame, for the raise handler only
  movq %rdi, 0(%rsp)         // the hidden return pointer, when there is one
  movq %r10, 152(%rsp)       // the owner
.Lcall_begin:
  callq *%rax                // the invoke, with the registers as the method's code left them
.Lcall_end:
  .cfi_remember_state
  leave
  .cfi_def_cfa %rsp, 8
  ret
.Llanding_pad:               // @catch (id): the exception is in RAX
  .cfi_restore_state
  movq %rsp, %rdi
  movq %rax, %rsi
  callq cbo_block_method_raised
  movq 112(%rsp), %rax
  movq 120(%rsp), %rdx
  movsd 128(%rsp), %xmm0
  movsd 136(%rsp), %xmm1
  leave
  .cfi_def_cfa %rsp, 8
  ret
.Lentry_end:
  .cfi_endproc
  .size cbo_block_method_entry, .-cbo_block_method_entry

  // The entry's exception table, as clang writes one for `@try { call } @catch (id e)` on
  // GCC's runtime: the call goes to the landing pad, with type 0 (any object).
  .section .gcc_except_table, "a", @progbits
  .p2align 2
.Lentry_lsda:
  .byte 255                  // no @LPStart
  .byte 155                  // @TType: indirect pcrel sdata4
  .uleb128 .Lentry_ttbase-.Lentry_ttref
.Lentry_ttref:
  .byte 1                    // call sites in uleb128
  .uleb128 .Lentry_sites_end-.Lentry_sites
.Lentry_sites:
  .uleb128 .Lcall_begin-.Lentry_begin
  .uleb128 .Lcall_end-.Lcall_begin
  .uleb128 .Llanding_pad-.Lentry_begin
  .byte 1                    // action 1
  .uleb128 .Lcall_end-.Lentry_begin
  .uleb128 .Lentry_end-.Lcall_end
  .byte 0                    // no landing pad
  .byte 0
.Lentry_sites_end:
  .byte 1                    // action 1: type filter 1
  .byte 0                    // no further action
  .p2align 2
  .long 0                    // type 1: any object
.Lentry_ttbase:

  .hidden DW.ref.__gnu_objc_personality_v0
  .weak DW.ref.__gnu_objc_personality_v0
  .section .data.DW.ref.__gnu_objc_personality_v0, "awG", @progbits, DW.ref.__gnu_objc_personality_v0, comdat
  .p2align 3
  .type DW.ref.__gnu_objc_personality_v0, @object
  .size DW.ref.__gnu_objc_personality_v0, 8
DW.ref.__gnu_objc_personality_v0:
  .quad __gnu_objc_personality_v0

  .text
  .globl cbo_block_method_replay
  .hidden cbo_block_method_replay
  .type cbo_block_method_replay, @function
  .p2align 4
cbo_block_method_replay:
  .cfi_startproc
  endbr64
  pushq %rbx
  .cfi_def_cfa_offset 16
  .cfi_offset %rbx, -16
  movq %rdi, %rbx
  CBA_LOAD_ARGUMENT_REGISTERS %rbx
  callq *144(%rbx)
  movq %rax, 112(%rbx)
  movq %rdx, 120(%rbx)
  movsd %xmm0, 128(%rbx)
  movsd %xmm1, 136(%rbx)
  popq %rbx
  .cfi_def_cfa_offset 8
  ret
  .cfi_endproc
  .size cbo_block_method_replay, .-cbo_block_method_replay
#endif

  .section .note.GNU-stack, "", @progbits
