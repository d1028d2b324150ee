// The compiled side of the benchmark, built by gcc as Debian builds GNUstep: a class with one
// method, and loops that send it as compiled code does and through NSInvocation.
#import <Foundation/Foundation.h>
#include <ffi.h>

@interface BSBenchTarget : NSObject
- (int)add:(int)a to:(int)b;
@end
@implementation BSBenchTarget
- (int)add:(int)a to:(int)b { return a + b; }
@end

id bench_target(void) { return [BSBenchTarget new]; }

// [target add:i to:1], `count` times; returns the sum so nothing is optimized away.
long bench_compiled(id target, long count) {
  long sum = 0;
  for (long i = 0; i < count; i++) sum += [target add: (int)i to: 1];
  return sum;
}

// The same message through one NSInvocation, its arguments set on each call.
long bench_invocation(id target, long count) {
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  SEL selector = @selector(add:to:);
  NSInvocation *invocation =
      [NSInvocation invocationWithMethodSignature: [target methodSignatureForSelector: selector]];
  [invocation setSelector: selector];
  [invocation setTarget: target];
  long sum = 0;
  int one = 1;
  [invocation setArgument: &one atIndex: 3];
  for (long i = 0; i < count; i++) {
    int a = (int)i, result = 0;
    [invocation setArgument: &a atIndex: 2];
    [invocation invoke];
    [invocation getReturnValue: &result];
    sum += result;
  }
  [pool drain];
  return sum;
}

// The floor of any send through a type encoding: the same IMP, looked up once per call as a
// send does, called with a bare libffi ffi_call whose interface is prepared once.
long bench_ffi(id target, long count) {
  SEL selector = @selector(add:to:);
  ffi_cif cif;
  ffi_type *types[4] = {&ffi_type_pointer, &ffi_type_pointer, &ffi_type_sint32, &ffi_type_sint32};
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 4, &ffi_type_sint32, types) != FFI_OK) return -1;
  long sum = 0;
  int one = 1;
  for (long i = 0; i < count; i++) {
    int a = (int)i;
    ffi_arg result = 0;
    void *values[4] = {&target, &selector, &a, &one};
    IMP imp = objc_msg_lookup(target, selector);
    ffi_call(&cif, (void (*)(void))imp, &result, values);
    sum += (int)result;
  }
  return sum;
}

// A block laid out by hand (gcc compiles no blocks) whose invoke adds, as a clang block of
// `int (^)(id self, int a, int b)` would: what a method made from a block costs with no Swift
// closure behind the block.
struct bench_block_descriptor { unsigned long reserved, size; const char *signature; };
struct bench_block {
  void *isa; int flags; int reserved; void *invoke; const struct bench_block_descriptor *descriptor;
};
extern void *_NSConcreteGlobalBlock[32];
static int bench_block_add(void *block, id object, int a, int b) { return a + b; }
static const struct bench_block_descriptor bench_add_descriptor = {
  0, sizeof(struct bench_block), "i24@?0@8i16i20"
};
static struct bench_block bench_add_block = {
  _NSConcreteGlobalBlock, (1 << 28) | (1 << 30), 0, (void *)bench_block_add, &bench_add_descriptor
};
const void *bench_c_block(void) { return &bench_add_block; }
