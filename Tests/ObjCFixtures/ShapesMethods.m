/* A class implementing every method of the Shapes protocol (Shapes.h) and of the protocol it
   adopts, compiled by gcc: the encodings gcc records are the oracle for the reader's. */
#import "Shapes.h"
#include "PrintMethods.h"

@interface ShapesMethods : NSObject <Shapes>
@end

@implementation ShapesMethods
- (const char *)shapeName { return "shape"; }
- (NSRange)rangeOfShape:(id)shape { return NSMakeRange(0, 0); }
- (double)areaWithScale:(double)scale count:(int)count { return scale * count; }
+ (Class)shapeClassNamed:(char *)name { return Nil; }
- (BOOL)respondsToShapeSelector:(SEL)selector { return NO; }
- (NSRect)boundsOfShape:(id)shape inset:(NSSize)inset { return NSMakeRect(0, 0, 0, 0); }
- (oneway void)forgetShape:(bycopy id)shape {}
- (void)fillMark:(out ShapeMark *)mark from:(in const ShapeMark *)other { *mark = *other; }
- (unsigned long long)countOf:(unsigned short)kind wide:(long double)value flag:(BOOL)flag { return kind; }
+ (ShapeMark)defaultMark { ShapeMark mark = {0, 0}; return mark; }
- (void)logShape:(const char *)format, ... {}
@end

int main(void) {
  print_protocol(@protocol(Shapes));
  return print_methods("ShapesMethods");
}
