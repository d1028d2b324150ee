// GNUstep's block-taking methods called from clang-compiled Objective-C with blocks: what the
// same calls from Swift must agree with. Prints the signature clang writes for each block type,
// then the results.
#import <Foundation/Foundation.h>
#include <stdio.h>

const char *_Block_signature(void *block);

static int trackedFreed = 0;
@interface BSTracked : NSObject
@end
@implementation BSTracked
- (void)dealloc {
  trackedFreed++;
  [super dealloc];
}
@end

static NSArray *words(void) {
  return [NSArray arrayWithObjects: @"pear", @"fig", @"banana", @"kiwi", @"apple", @"date", @"plum", nil];
}

static void printIndexes(NSIndexSet *set) {
  printf("indexes");
  for (NSUInteger i = [set firstIndex]; i != NSNotFound; i = [set indexGreaterThanIndex: i]) printf(" %lu", (unsigned long)i);
  printf("\n");
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
  GSPredicateBlock fourLetters = ^BOOL(id object, NSUInteger index, BOOL *stop) { return [object length] == 4; };
  printf("GSPredicateBlock %s\n", _Block_signature(fourLetters));
  printIndexes([words() indexesOfObjectsPassingTest: fourLetters]);
  NSDictionary *colours = [NSDictionary dictionaryWithObjectsAndKeys: @"red", @"cherry", @"yellow", @"lemon",
                                        @"green", @"lime", nil];
  GSKeysAndObjectsEnumeratorBlock pair = ^(id key, id value, BOOL *stop) {
    printf("pair %s=%s\n", [key UTF8String], [value UTF8String]);
  };
  printf("GSKeysAndObjectsEnumeratorBlock %s\n", _Block_signature(pair));
  [colours enumerateKeysAndObjectsUsingBlock: pair];
  // GNUstep returns the observer owned by the caller (the center does not retain it): its
  // release, once removed, frees the center's copy of the block and what it captured.
  __block int received = 0;
  BSTracked *tracked = [BSTracked new];
  GSNotificationBlock observe = ^(NSNotification *note) {
    if ([tracked class] == [BSTracked class]) received++;
  };
  printf("GSNotificationBlock %s\n", _Block_signature(observe));
  NSNotificationCenter *center = [NSNotificationCenter defaultCenter];
  id observer = [center addObserverForName: @"BSPing" object: nil queue: nil usingBlock: observe];
  [tracked release];
  [center postNotificationName: @"BSPing" object: nil];
  [center postNotificationName: @"BSPing" object: nil];
  [center removeObserver: observer];
  [center postNotificationName: @"BSPing" object: nil];
  printf("received %d\n", received);
  printf("freed before release %d", trackedFreed);
  [observer release];
  printf(", after %d\n", trackedFreed);
  [pool drain];
  return 0;
}
