// The argument registers of x86-64 System V, saved to and loaded from a frame in the layout
// of CBA_ENTRY_FRAME_* (CBlockABI.h): RDI, RSI, RDX, RCX, R8 and R9 at 0 to 40, the low eight
// bytes of XMM0 to XMM7 at 48 to 104. Assembler macros, for the entries that save a call's
// registers (a made block's, a hooked block's, a method made from a block) and the calls that
// replay them; empty for C and Swift.

#ifndef CBLOCKABI_REGISTERS_H
#define CBLOCKABI_REGISTERS_H

#if defined(__ASSEMBLER__) && defined(__x86_64__)
// Stores the argument registers in the frame at `base` (RSP, or a register that is not an
// argument register).
.macro CBA_SAVE_ARGUMENT_REGISTERS base
  movq %rdi, 0(\base)
  movq %rsi, 8(\base)
  movq %rdx, 16(\base)
  movq %rcx, 24(\base)
  movq %r8, 32(\base)
  movq %r9, 40(\base)
  movsd %xmm0, 48(\base)
  movsd %xmm1, 56(\base)
  movsd %xmm2, 64(\base)
  movsd %xmm3, 72(\base)
  movsd %xmm4, 80(\base)
  movsd %xmm5, 88(\base)
  movsd %xmm6, 96(\base)
  movsd %xmm7, 104(\base)
.endm

// Loads the argument registers from the frame at `base` (not an argument register).
.macro CBA_LOAD_ARGUMENT_REGISTERS base
  movq 0(\base), %rdi
  movq 8(\base), %rsi
  movq 16(\base), %rdx
  movq 24(\base), %rcx
  movq 32(\base), %r8
  movq 40(\base), %r9
  movsd 48(\base), %xmm0
  movsd 56(\base), %xmm1
  movsd 64(\base), %xmm2
  movsd 72(\base), %xmm3
  movsd 80(\base), %xmm4
  movsd 88(\base), %xmm5
  movsd 96(\base), %xmm6
  movsd 104(\base), %xmm7
.endm
#endif

#endif  // CBLOCKABI_REGISTERS_H
