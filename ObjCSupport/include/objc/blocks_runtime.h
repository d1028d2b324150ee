// Stand-in for libobjc2's <objc/blocks_runtime.h>, which GNUstep's headers include when clang
// compiles Objective-C with -fblocks and which Debian does not ship: the blocks runtime's own
// header declares the same functions (_Block_copy, _Block_release).
#include <Block.h>
