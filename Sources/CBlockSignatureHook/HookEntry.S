// The invoke of hooked blocks whose parameters and result are scalars, on x86-64 System V, and
// the call of a block's own invoke with the registers it saved. The layout of the frame is
// CBA_ENTRY_FRAME_* in CBlockABI.h.

#include "CBlockABIRegisters.h"

#if defined(__x86_64__) && defined(__linux__)
  .text
  .globl cbh_hook_entry
  .hidden cbh_hook_entry
  .type cbh_hook_entry, @function
  .p2align 4
cbh_hook_entry:
  .cfi_startproc
  endbr64
  movq 24(%rdi), %rax                  // the block's descriptor
  cmpq cbh_descriptor_start(%rip), %rax
  jb 1f
  cmpq cbh_descriptor_end(%rip), %rax
  jae 1f
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  subq $368, %rsp
  CBA_SAVE_ARGUMENT_REGISTERS %rsp
  movq %rsp, %rdi                      // the frame
  leaq 16(%rbp), %rsi                  // the first stack argument, above the return address
  movq %rax, %rdx                      // the descriptor
  callq *-16(%rax)                     // the dispatch before it
  movq 112(%rsp), %rax
  movsd 112(%rsp), %xmm0
  leave
  .cfi_def_cfa %rsp, 8
  ret
1:
  // Not a hooked descriptor: the hook is gone; call what the block holds now.
  jmpq *16(%rdi)
  .cfi_endproc
  .size cbh_hook_entry, .-cbh_hook_entry

  .globl cbh_observe_entry
  .hidden cbh_observe_entry
  .type cbh_observe_entry, @function
  .p2align 4
// The invoke of observed blocks (no signature): when the descriptor is a hooked one, it saves
// every register a call may pass arguments in (RAX too: a variadic call's vector count), calls
// the dispatch before the descriptor with the block and the descriptor, which returns the
// block's own invoke, puts the registers back and jumps there: the block's own invoke returns
// to the caller, whatever it returns.
cbh_observe_entry:
  .cfi_startproc
  endbr64
  movq 24(%rdi), %r11                  // the block's descriptor
  cmpq cbh_descriptor_start(%rip), %r11
  jb 1f
  cmpq cbh_descriptor_end(%rip), %r11
  jae 1f
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  subq $192, %rsp
  movq %rdi, 0(%rsp)
  movq %rsi, 8(%rsp)
  movq %rdx, 16(%rsp)
  movq %rcx, 24(%rsp)
  movq %r8, 32(%rsp)
  movq %r9, 40(%rsp)
  movq %rax, 48(%rsp)
  movdqu %xmm0, 64(%rsp)
  movdqu %xmm1, 80(%rsp)
  movdqu %xmm2, 96(%rsp)
  movdqu %xmm3, 112(%rsp)
  movdqu %xmm4, 128(%rsp)
  movdqu %xmm5, 144(%rsp)
  movdqu %xmm6, 160(%rsp)
  movdqu %xmm7, 176(%rsp)
  movq %r11, %rsi                      // the descriptor; the block is in RDI
  callq *-16(%r11)                     // the dispatch: the block's own invoke in RAX
  movq %rax, %r11
  movq 0(%rsp), %rdi
  movq 8(%rsp), %rsi
  movq 16(%rsp), %rdx
  movq 24(%rsp), %rcx
  movq 32(%rsp), %r8
  movq 40(%rsp), %r9
  movq 48(%rsp), %rax
  movdqu 64(%rsp), %xmm0
  movdqu 80(%rsp), %xmm1
  movdqu 96(%rsp), %xmm2
  movdqu 112(%rsp), %xmm3
  movdqu 128(%rsp), %xmm4
  movdqu 144(%rsp), %xmm5
  movdqu 160(%rsp), %xmm6
  movdqu 176(%rsp), %xmm7
  leave
  .cfi_def_cfa %rsp, 8
  jmpq *%r11
1:
  jmpq *16(%rdi)
  .cfi_endproc
  .size cbh_observe_entry, .-cbh_observe_entry

  .globl cbh_call_saved
  .hidden cbh_call_saved
  .type cbh_call_saved, @function
  .p2align 4
// void cbh_call_saved(void *frame, const void *stack, uintptr_t stack_bytes, const void *target,
//                     int result_kind)
cbh_call_saved:
  .cfi_startproc
  endbr64
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  pushq %rbx
  pushq %r12
  .cfi_offset %rbx, -24
  .cfi_offset %r12, -32
  movq %rdi, %rbx                      // the frame
  movl %r8d, %r12d                     // the result's kind
  movq %rcx, %r11                      // the target
  leaq 15(%rdx), %rax                  // the stack arguments' room, 16-aligned
  andq $-16, %rax
  subq %rax, %rsp
  movq %rsp, %rdi
  movq %rdx, %rcx
  rep movsb                            // copied from the caller's stack
  CBA_LOAD_ARGUMENT_REGISTERS %rbx
  callq *%r11
  cmpl $1, %r12d
  jne 2f
  movq %rax, 112(%rbx)
  jmp 3f
2:
  cmpl $2, %r12d
  jne 3f
  movsd %xmm0, 112(%rbx)
3:
  leaq -16(%rbp), %rsp
  popq %r12
  popq %rbx
  popq %rbp
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
  .size cbh_call_saved, .-cbh_call_saved
#endif

  .section .note.GNU-stack, "", @progbits
