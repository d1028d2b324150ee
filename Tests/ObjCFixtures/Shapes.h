/* A protocol for the reader tests: struct returns and arguments, double, BOOL, SEL, Class,
   char *, qualifiers clang and gcc write into method types (oneway, out, in, bycopy), a class
   method, required and optional methods, one inherited from an adopted protocol. */
#import <Foundation/NSObject.h>
#import <Foundation/NSRange.h>
#import <Foundation/NSGeometry.h>

typedef struct { double x; int tag; } ShapeMark;

@protocol ShapeNaming
- (const char *)shapeName;
@end

@protocol Shapes <ShapeNaming>
- (NSRange)rangeOfShape:(id)shape;
- (double)areaWithScale:(double)scale count:(int)count;
+ (Class)shapeClassNamed:(char *)name;
@optional
- (BOOL)respondsToShapeSelector:(SEL)selector;
- (NSRect)boundsOfShape:(id)shape inset:(NSSize)inset;
- (oneway void)forgetShape:(bycopy id)shape;
- (void)fillMark:(out ShapeMark *)mark from:(in const ShapeMark *)other;
- (unsigned long long)countOf:(unsigned short)kind wide:(long double)value flag:(BOOL)flag;
+ (ShapeMark)defaultMark;
@required
- (void)logShape:(const char *)format, ...;
@end
