// The invoke of a block made at run time whose parameters and result are scalars, on x86-64
// System V (Linux): it saves the argument registers in a frame (the layout CBA_ENTRY_FRAME_*
// names in CBlockABI.h, with room for the dispatch's argument pointers), calls the dispatch function the block's descriptor holds with the frame
// and the address of the stack arguments, and returns the result the dispatch left in the frame
// in RAX and XMM0. What libffi's closure does for any signature, without classifying the
// arguments on each call: the dispatch knows each one's place from the signature.

#include "CBlockABIRegisters.h"

#if defined(__x86_64__) && defined(__linux__)
  .text
  .globl cba_made_block_entry
  .hidden cba_made_block_entry
  .type cba_made_block_entry, @function
  .p2align 4
cba_made_block_entry:
  .cfi_startproc
  endbr64
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  subq $368, %rsp
  CBA_SAVE_ARGUMENT_REGISTERS %rsp
  movq 24(%rdi), %rax        // the block's descriptor
  movq %rsp, %rdi            // the frame
  leaq 16(%rbp), %rsi        // the first stack argument, above the return address
  callq *48(%rax)            // its entry_dispatch
  movq 112(%rsp), %rax
  movsd 112(%rsp), %xmm0
  leave
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
  .size cba_made_block_entry, .-cba_made_block_entry
#endif

  .section .note.GNU-stack, "", @progbits
