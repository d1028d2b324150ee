// BlockSignature — CBlockABI
//
// Compile-time checks of the mirrored ABI. Swift reads these structs through the
// accessors in CBlockABI.h; every offset it relies on is asserted here so that a
// change of target or of a declaration fails the build instead of misreading memory.

#include "CBlockABI.h"

#define CBA_PTR sizeof(void *)

_Static_assert(offsetof(struct CBA_Block_layout, isa) == 0, "isa at 0");
_Static_assert(offsetof(struct CBA_Block_layout, flags) == CBA_PTR, "flags after isa");
_Static_assert(offsetof(struct CBA_Block_layout, reserved) == CBA_PTR + 4, "reserved after flags");
_Static_assert(offsetof(struct CBA_Block_layout, invoke) == CBA_PTR + 8, "invoke after reserved");
_Static_assert(offsetof(struct CBA_Block_layout, descriptor) == 2 * CBA_PTR + 8, "descriptor after invoke");
_Static_assert(sizeof(struct CBA_Block_layout) == 3 * CBA_PTR + 8, "block header size");
#if defined(__LP64__)
_Static_assert(offsetof(struct CBA_Block_layout, descriptor) == 24, "LP64: descriptor at 24");
_Static_assert(sizeof(struct CBA_Block_layout) == 32, "LP64: header is 32 bytes");
#endif

_Static_assert(offsetof(struct CBA_Block_descriptor_1, reserved) == 0, "reserved at 0");
_Static_assert(offsetof(struct CBA_Block_descriptor_1, size) == CBA_PTR, "size after reserved");
_Static_assert(sizeof(struct CBA_Block_descriptor_1) == 2 * CBA_PTR, "part 1 is two words");
_Static_assert(offsetof(struct CBA_Block_descriptor_2, dispose) == CBA_PTR, "dispose after copy");
_Static_assert(sizeof(struct CBA_Block_descriptor_2) == 2 * CBA_PTR, "part 2 is two words");
_Static_assert(offsetof(struct CBA_Block_descriptor_3, layout) == CBA_PTR, "layout after signature");
_Static_assert(sizeof(struct CBA_Block_descriptor_3) == 2 * CBA_PTR, "part 3 is two words");

_Static_assert(offsetof(struct CBA_Block_descriptor_small, signature) == 4, "small: signature at 4");
_Static_assert(offsetof(struct CBA_Block_descriptor_small, layout) == 8, "small: layout at 8");
_Static_assert(offsetof(struct CBA_Block_descriptor_small, copy) == 12, "small: copy at 12");
_Static_assert(offsetof(struct CBA_Block_descriptor_small, dispose) == 16, "small: dispose at 16");
_Static_assert(sizeof(struct CBA_Block_descriptor_small) == 20, "small descriptor is 20 bytes");

_Static_assert(offsetof(struct CBA_Block_byref, forwarding) == CBA_PTR, "forwarding after isa");
_Static_assert(offsetof(struct CBA_Block_byref, flags) == 2 * CBA_PTR, "byref flags");
_Static_assert(offsetof(struct CBA_Block_byref, size) == 2 * CBA_PTR + 4, "byref size");
_Static_assert(sizeof(struct CBA_Block_byref) == 2 * CBA_PTR + 8, "byref header size");
_Static_assert(sizeof(struct CBA_Block_byref_2) == 2 * CBA_PTR, "byref part 2 is two words");

_Static_assert(CBA_BLOCK_HAS_SIGNATURE == 0x40000000, "bit 30");
_Static_assert((uint32_t)CBA_BLOCK_HAS_EXTENDED_LAYOUT == 0x80000000u, "bit 31");
_Static_assert(CBA_BLOCK_USE_STRET == 0x20000000, "bit 29");
_Static_assert(CBA_BLOCK_IS_GLOBAL == 0x10000000, "bit 28");
_Static_assert(CBA_BLOCK_HAS_COPY_DISPOSE == 0x02000000, "bit 25");
_Static_assert(CBA_BLOCK_IS_NOESCAPE == 0x00800000, "bit 23");

_Static_assert(offsetof(struct CBA_Block_made_descriptor, part2) == 2 * CBA_PTR, "made: helpers after part 1");
_Static_assert(offsetof(struct CBA_Block_made_descriptor, part3) == 4 * CBA_PTR, "made: signature after helpers");

#if defined(__x86_64__) && defined(__linux__)
// MadeBlockEntry.S reads the dispatch function at these offsets.
_Static_assert(offsetof(struct CBA_Block_made_descriptor, entry_dispatch) == 48, "dispatch after the three parts");
_Static_assert(CBA_ENTRY_FRAME_POINTERS + 8 * CBA_ENTRY_FRAME_ARGUMENTS == CBA_ENTRY_FRAME_SIZE, "the frame's size");
_Static_assert(CBA_ENTRY_FRAME_SIZE % 16 == 0, "the stack stays aligned to 16 at the call");
#endif
