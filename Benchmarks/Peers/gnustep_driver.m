// GNUstep Foundation (libgnustep-base-dev) as a peer: +[NSMethodSignature signatureWithObjCTypes:],
// -numberOfArguments, -getArgumentTypeAtIndex: with NSGetSizeAndAlignment for each argument,
// -methodReturnLength / -methodReturnType for the return value, and -frameLength.
#import <Foundation/Foundation.h>

#define PEER_NAME "gnustep"
#include "harness.h"

static int peer_answer(const char *signature, struct peer_answer *answer) {
  int status = 0;
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  NSMethodSignature *method = [NSMethodSignature signatureWithObjCTypes: signature];
  if (method == nil) {
    status = 1;
  } else {
    NSUInteger size, align;
    NSGetSizeAndAlignment([method methodReturnType], &size, &align);
    answer->ret_size = (long)[method methodReturnLength];
    answer->ret_align = (long)align;
    NSUInteger n = [method numberOfArguments];
    if (n > PEER_MAX_ARGS) {
      status = 1;
    } else {
      answer->nargs = (int)n;
      for (NSUInteger i = 0; i < n; i++) {
        NSGetSizeAndAlignment([method getArgumentTypeAtIndex: i], &size, &align);
        answer->size[i] = (long)size;
        answer->align[i] = (long)align;
      }
      answer->frame = (long)[method frameLength];
    }
  }
  [pool drain];
  return status;
}

int main(int argc, char **argv) { return harness_main(argc, argv); }
