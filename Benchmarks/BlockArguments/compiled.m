// The compiled side of the benchmark: the strings, and the sort with a clang block.
#import <Foundation/Foundation.h>

// `count` strings of 4 to 11 lowercase letters, the same on every run.
id bench_words(long count) {
  NSMutableArray *words = [NSMutableArray arrayWithCapacity: count];
  unsigned long state = 0x2545F4914F6CDD1DUL;
  for (long i = 0; i < count; i++) {
    char text[16];
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    int length = 4 + (int)(state % 8);
    for (int j = 0; j < length; j++) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      text[j] = 'a' + (char)(state % 26);
    }
    text[length] = 0;
    [words addObject: [NSString stringWithUTF8String: text]];
  }
  return [words retain];
}

// Sorts `words` `sorts` times with a block that sends compare:; returns how many comparisons
// the last sort made.
long bench_sort_compiled(NSArray *words, long sorts) {
  __block long comparisons = 0;
  NSComparator compare = ^NSComparisonResult(id a, id b) {
    comparisons++;
    return [a compare: b];
  };
  for (long i = 0; i < sorts; i++) {
    comparisons = 0;
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    [words sortedArrayUsingComparator: compare];
    [pool drain];
  }
  return comparisons;
}

// The array sorted with `compare` (a Swift block), or with a clang block when it is NULL, its
// strings joined: both sides must sort alike.
id bench_sorted_text(NSArray *words, NSComparator compare) {
  NSComparator own = ^NSComparisonResult(id a, id b) { return [a compare: b]; };
  return [[[words sortedArrayUsingComparator: compare ? compare : own] componentsJoinedByString: @","] retain];
}
