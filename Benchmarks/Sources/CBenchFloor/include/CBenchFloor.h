// The floor of reading a signature: what no reader of the encoding can do less than.
#ifndef CBENCHFLOOR_H
#define CBENCHFLOOR_H

#include <stddef.h>

/// One pass over `count` bytes that classifies each byte with a 256-entry table, adds the size
/// of each scalar type code and the value of each run of digits, and returns the sum. No
/// nesting, no validation, no layout rules: a signature's frame and every argument's place
/// need at least this (the benchmark's `floor` mode; `../shared/perf/floor.c` is the same pass
/// as a program of its own).
long cbench_floor(const unsigned char *bytes, size_t count);

#endif
