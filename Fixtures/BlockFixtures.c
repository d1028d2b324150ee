#include "BlockFixtures.h"
const void *bf_placeholder_int_int(void) { return (const void *)^(int a) { return a; }; }
