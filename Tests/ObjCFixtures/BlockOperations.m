// Blocks as GNUstep's NSBlockOperation and NSOperationQueue use them, compiled by clang with
// -fblocks against Debian's GNUstep (GCC's runtime); then the messages any block answers as an
// object. Without the Objective-C block classes the first operation crashes the program.
#import <Foundation/Foundation.h>
#include <stdio.h>
#include <unistd.h>

// Objects of BSTracked freed so far (from any thread).
static int deallocated = 0;
static int freed(void) { return __atomic_load_n(&deallocated, __ATOMIC_SEQ_CST); }

@interface BSTracked : NSObject
@end
@implementation BSTracked
- (void)dealloc {
  __atomic_add_fetch(&deallocated, 1, __ATOMIC_SEQ_CST);
  [super dealloc];
}
@end

static void runOperations(void) {
  NSOperationQueue *queue = [NSOperationQueue new];
  [queue setMaxConcurrentOperationCount: 4];
  NSLock *lock = [NSLock new];
  __block int total = 0, running = 0, mostAtOnce = 0;
  void (^count)(int) = ^(int amount) {
    [lock lock];
    total += amount;
    running++;
    if (running > mostAtOnce) mostAtOnce = running;
    [lock unlock];
    usleep(50000);
    [lock lock];
    running--;
    [lock unlock];
  };
  for (int i = 1; i <= 8; i++) {
    BSTracked *tracked = [BSTracked new];
    NSBlockOperation *operation = [NSBlockOperation blockOperationWithBlock: ^{
      count(i);
      if ([tracked class] != [BSTracked class]) abort();
    }];
    [tracked release];
    if (i == 8) [operation addExecutionBlock: ^{ count(100); }];
    [queue addOperation: operation];
  }
  [queue addOperationWithBlock: ^{ count(1000); }];
  [queue waitUntilAllOperationsAreFinished];
  printf("operations total %d, some at once %s\n", total, mostAtOnce > 1 ? "yes" : "no");
  [queue release];
  [lock release];
}

static void describe(const char *kind, id block) {
  NSString *text = [block description];
  NSRange colon = [text rangeOfString: @":"];
  printf("%s: class %s, description %s, NSObject %d, NSBlock %d, copy %d, bogus %d\n", kind,
         class_getName([block class]), [[text substringToIndex: colon.location] UTF8String],
         [block isKindOfClass: [NSObject class]], [block isKindOfClass: NSClassFromString(@"NSBlock")],
         [block respondsToSelector: @selector(copy)], [block respondsToSelector: @selector(bogus)]);
}

static void answerMessages(void) {
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  void (^global)(void) = ^{ puts("global"); };
  BSTracked *tracked = [BSTracked new];
  int captured = 7;
  void (^stack)(void) = ^{ printf("%d %p\n", captured, tracked); };
  id heap = [stack copy];
  [tracked release];
  describe("global", global);
  describe("stack", stack);
  describe("heap", heap);
  printf("global: copy same %d, retain same %d, count %lu\n", [global copy] == (id)global,
         [global retain] == (id)global, (unsigned long)[global retainCount]);
  [global release];
  printf("stack: retain same %d, count %lu\n", [stack retain] == (id)stack, (unsigned long)[stack retainCount]);
  [stack release];
  printf("heap: count %lu", (unsigned long)[heap retainCount]);
  printf(", retain same %d, count %lu", [heap retain] == heap, (unsigned long)[heap retainCount]);
  [heap release];
  printf(", released count %lu", (unsigned long)[heap retainCount]);
  [[heap retain] autorelease];
  printf(", autoreleased count %lu", (unsigned long)[heap retainCount]);
  [pool drain];
  printf(", drained count %lu\n", (unsigned long)[heap retainCount]);
  printf("captured object freed: before last release %d", freed());
  [heap release];
  printf(", after %d\n", freed());
}

int main(void) {
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  runOperations();
  [pool drain];
  // The queue's threads drop their last references to finished operations on their own time.
  for (int wait = 0; wait < 500 && freed() < 8; wait++) usleep(10000);
  printf("operations and their captured objects freed: %d of 8\n", freed());
  __atomic_store_n(&deallocated, 0, __ATOMIC_SEQ_CST);
  answerMessages();
  return 0;
}
