#ifndef BLOCKFIXTURES_H
#define BLOCKFIXTURES_H
#include <stddef.h>
const void *bf_placeholder_int_int(void);
#endif
