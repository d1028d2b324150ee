// GNUstep's block-taking methods called from clang-compiled Objective-C with blocks: what the
// same calls from Swift must agree with. Prints the signature clang writes for each block type,
// then the results.
#import <Foundation/Foundation.h>
#include <stdio.h>

const char *_Block_signature(void *block);

static NSArray *words(void) {
  return [NSArray arrayWithObjects: @"pear", @"fig", @"banana", @"kiwi", @"apple", @"date", @"plum", nil];
}

int main(void) {
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  NSComparator byLength = ^NSComparisonResult(id a, id b) {
    if ([a length] != [b length]) return [a length] < [b length] ? NSOrderedAscending : NSOrderedDescending;
    return [a compare: b];
  };
  GSEnumeratorBlock visit = ^(id object, NSUInteger index, BOOL *stop) {
    printf("visit %lu %s\n", (unsigned long)index, [object UTF8String]);
    if (index == 2) *stop = YES;
  };
  printf("NSComparator %s\n", _Block_signature(byLength));
  printf("GSEnumeratorBlock %s\n", _Block_signature(visit));
  NSArray *sorted = [words() sortedArrayUsingComparator: byLength];
  printf("sorted %s\n", [[sorted componentsJoinedByString: @","] UTF8String]);
  [words() enumerateObjectsUsingBlock: visit];
  [pool drain];
  return 0;
}
