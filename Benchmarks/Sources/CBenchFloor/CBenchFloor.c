#include "CBenchFloor.h"

// Byte classes: 0 other, 1 digit; a scalar type code's class is 2 + its size in bytes.
static const unsigned char cbench_class[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1,
    ['9'] = 1, ['c'] = 3, ['C'] = 3, ['B'] = 3, ['s'] = 4, ['S'] = 4, ['i'] = 6, ['I'] = 6, ['f'] = 6,
    ['l'] = 10, ['L'] = 10, ['q'] = 10, ['Q'] = 10, ['d'] = 10, ['*'] = 10, ['@'] = 10, ['#'] = 10,
    [':'] = 10, ['^'] = 10, ['?'] = 10, ['D'] = 18, ['v'] = 2,
};

long cbench_floor(const unsigned char *bytes, size_t count) {
  long total = 0, number = 0;
  for (size_t i = 0; i < count; i++) {
    unsigned char kind = cbench_class[bytes[i]];
    if (kind == 1) {
      number = number * 10 + (bytes[i] - '0');
    } else {
      total += number + (kind > 1 ? kind - 2 : 0);
      number = 0;
    }
  }
  return total + number;
}
