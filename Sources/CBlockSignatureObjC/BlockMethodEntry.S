// The entry of methods made from blocks whose arguments all sit in registers, on x86-64
// System V (Linux): see include/CBlockMethodEntry.h. The method's code has already shifted
// `self` and the block into place and set RAX (the invoke) and R10 (the owner).
//
// cbo_block_method_entry saves the argument registers in a CBO_BlockMethodFrame on its stack,
// calls cbo_block_method_guard (BlockMethodGuard.mm: `@try`) with it, and returns what the
// frame then holds in RAX, RDX, XMM0 and XMM1. cbo_block_method_replay, called inside the
// `@try`, loads the registers back, calls the invoke and stores its result registers; its
// unwind information lets an exception pass through it to the `@catch`.

#if defined(__x86_64__) && defined(__linux__)
  .text
  .globl cbo_block_method_entry
  .hidden cbo_block_method_entry
  .type cbo_block_method_entry, @function
  .p2align 4
cbo_block_method_entry:
  .cfi_startproc
  endbr64
  pushq %rbp
  .cfi_def_cfa_offset 16
  .cfi_offset %rbp, -16
  movq %rsp, %rbp
  .cfi_def_cfa_register %rbp
  subq $160, %rsp
  movq %rdi, 0(%rsp)
  movq %rsi, 8(%rsp)
  movq %rdx, 16(%rsp)
  movq %rcx, 24(%rsp)
  movq %r8, 32(%rsp)
  movq %r9, 40(%rsp)
  movsd %xmm0, 48(%rsp)
  movsd %xmm1, 56(%rsp)
  movsd %xmm2, 64(%rsp)
  movsd %xmm3, 72(%rsp)
  movsd %xmm4, 80(%rsp)
  movsd %xmm5, 88(%rsp)
  movsd %xmm6, 96(%rsp)
  movsd %xmm7, 104(%rsp)
  movq %rax, 144(%rsp)       // the invoke
  movq %r10, 152(%rsp)       // the owner
  movq %rsp, %rdi
  callq cbo_block_method_guard
  movq 112(%rsp), %rax
  movq 120(%rsp), %rdx
  movsd 128(%rsp), %xmm0
  movsd 136(%rsp), %xmm1
  leave
  .cfi_def_cfa %rsp, 8
  ret
  .cfi_endproc
  .size cbo_block_method_entry, .-cbo_block_method_entry

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
  movsd 48(%rbx), %xmm0
  movsd 56(%rbx), %xmm1
  movsd 64(%rbx), %xmm2
  movsd 72(%rbx), %xmm3
  movsd 80(%rbx), %xmm4
  movsd 88(%rbx), %xmm5
  movsd 96(%rbx), %xmm6
  movsd 104(%rbx), %xmm7
  movq 8(%rbx), %rsi
  movq 16(%rbx), %rdx
  movq 24(%rbx), %rcx
  movq 32(%rbx), %r8
  movq 40(%rbx), %r9
  movq 0(%rbx), %rdi
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
