import Foundation
import TestSupport

/// Objective-C compiled by gcc against GNUstep: a class with a method of each type family
/// (what this layer's sends must reach), and functions that send messages as compiled code
/// does (what this layer's sends must agree with, and what calls the methods made from blocks).
enum OracleFixture {
  static let source = #"""
    #import <Foundation/Foundation.h>

    typedef struct { double x, y, z; } BSVector;

    @protocol BSEveryType
    - (int)add:(int)a to:(int)b;
    - (double)scale:(double)x by:(float)factor;
    - (NSRange)rangeFrom:(unsigned long)location length:(unsigned long)length;
    - (BOOL)isEven:(long)value;
    - (SEL)selectorNamed:(const char *)name;
    - (Class)classOf:(id)object;
    - (const char *)nameOf:(Class)aClass;
    - (long double)half:(long double)value;
    - (BSVector)vectorWith:(double)x :(double)y :(double)z;
    - (id)pick:(id)first or:(id)second first:(BOOL)takeFirst;
    - (unsigned char)low:(unsigned short)value;
    @end

    @interface BSOracleTarget : NSObject <BSEveryType>
    @end

    @implementation BSOracleTarget
    - (int)add:(int)a to:(int)b { return a + b; }
    - (double)scale:(double)x by:(float)factor { return x * factor; }
    - (NSRange)rangeFrom:(unsigned long)location length:(unsigned long)length { return NSMakeRange(location, length); }
    - (BOOL)isEven:(long)value { return value % 2 == 0; }
    - (SEL)selectorNamed:(const char *)name { return sel_registerName(name); }
    - (Class)classOf:(id)object { return [object class]; }
    - (const char *)nameOf:(Class)aClass { return class_getName(aClass); }
    - (long double)half:(long double)value { return value / 2; }
    - (BSVector)vectorWith:(double)x :(double)y :(double)z { BSVector v = { x, y, z }; return v; }
    - (id)pick:(id)first or:(id)second first:(BOOL)takeFirst { return takeFirst ? first : second; }
    - (unsigned char)low:(unsigned short)value { return (unsigned char)value; }
    @end

    // Compiled senders: each message as gcc sends it, to any receiver.
    int oracle_add(id o, int a, int b) { return [o add: a to: b]; }
    double oracle_scale(id o, double x, float f) { return [o scale: x by: f]; }
    BOOL oracle_is_even(id o, long v) { return [o isEven: v]; }
    SEL oracle_selector(id o, const char *n) { return [o selectorNamed: n]; }
    Class oracle_class_of(id o, id x) { return [o classOf: x]; }
    const char *oracle_name_of(id o, Class c) { return [o nameOf: c]; }
    id oracle_pick(id o, id a, id b, BOOL f) { return [o pick: a or: b first: f]; }
    unsigned char oracle_low(id o, unsigned short v) { return [o low: v]; }

    // GNUstep's own classes, sent to from compiled code.
    void oracle_range_of_string(NSString *s, NSString *t, NSRange *out) { *out = [s rangeOfString: t]; }
    double oracle_double_value(NSString *s) { return [s doubleValue]; }
    BOOL oracle_has_prefix(NSString *s, NSString *p) { return [s hasPrefix: p]; }
    BOOL oracle_responds(id o, SEL s) { return [o respondsToSelector: s]; }
    BOOL oracle_is_kind(id o, Class c) { return [o isKindOfClass: c]; }
    const char *oracle_utf8(NSString *s) { return [s UTF8String]; }
    id oracle_append(NSString *s, NSString *t) { return [s stringByAppendingString: t]; }
    id oracle_perform(id o, SEL s, id argument) { return [o performSelector: s withObject: argument]; }
    id oracle_sorted(NSArray *a, SEL s) { return [a sortedArrayUsingSelector: s]; }
    id oracle_target(void) { return [[BSOracleTarget alloc] init]; }
    void oracle_range(id o, unsigned long l, unsigned long n, NSRange *out) { *out = [o rangeFrom: l length: n]; }
    void oracle_half_out(id o, long double v, long double *out) { *out = [o half: v]; }
    void oracle_vector_out(id o, double x, double y, double z, BSVector *out) { *out = [o vectorWith: x : y : z]; }

    // A block laid out by hand (gcc compiles no blocks): global, with a signature, and an
    // invoke function that raises.
    struct BSBlockDescriptor { unsigned long reserved, size; const char *signature; };
    struct BSBlockLiteral {
      void *isa; int flags; int reserved; void (*invoke)(void *, id); const struct BSBlockDescriptor *descriptor;
    };
    extern void *_NSConcreteGlobalBlock[32];
    static void bs_raising_invoke(void *block, id object) {
      [NSException raise: @"BSBlockException" format: @"raised inside a block for %s", class_getName([object class])];
    }
    static const struct BSBlockDescriptor bs_raising_descriptor = { 0, sizeof(struct BSBlockLiteral), "v16@?0@8" };
    static struct BSBlockLiteral bs_raising_block = {
      _NSConcreteGlobalBlock, (1 << 28) | (1 << 30), 0, bs_raising_invoke, &bs_raising_descriptor
    };
    const void *oracle_raising_block(void) { return &bs_raising_block; }

    // NSXMLParser's delegate methods as gcc compiles them from GNUstep's header (their types
    // are what the runtime then holds), and a real delegate that answers one of them.
    @interface BSCompiledXMLDelegate : NSObject <NSXMLParserDelegate>
    @end
    @implementation BSCompiledXMLDelegate
    - (void)parserDidStartDocument:(NSXMLParser *)p {}
    - (void)parserDidEndDocument:(NSXMLParser *)p {}
    - (void)parser:(NSXMLParser *)p didStartElement:(NSString *)e namespaceURI:(NSString *)u
        qualifiedName:(NSString *)q attributes:(NSDictionary *)a {}
    - (void)parser:(NSXMLParser *)p didEndElement:(NSString *)e namespaceURI:(NSString *)u qualifiedName:(NSString *)q {}
    - (void)parser:(NSXMLParser *)p foundCharacters:(NSString *)s {}
    - (void)parser:(NSXMLParser *)p foundComment:(NSString *)s {}
    - (void)parser:(NSXMLParser *)p foundCDATA:(NSData *)d {}
    - (void)parser:(NSXMLParser *)p didStartMappingPrefix:(NSString *)x toURI:(NSString *)u {}
    - (void)parser:(NSXMLParser *)p didEndMappingPrefix:(NSString *)x {}
    - (void)parser:(NSXMLParser *)p foundIgnorableWhitespace:(NSString *)s {}
    - (void)parser:(NSXMLParser *)p parseErrorOccurred:(NSError *)e {}
    @end

    static char bs_real_comments[256];
    @interface BSRealXMLDelegate : NSObject
    @end
    @implementation BSRealXMLDelegate
    - (void)parser:(NSXMLParser *)p foundComment:(NSString *)s {
      strncat(bs_real_comments, [s UTF8String], sizeof bs_real_comments - strlen(bs_real_comments) - 1);
    }
    @end
    id oracle_real_xml_delegate(void) { bs_real_comments[0] = 0; return [BSRealXMLDelegate new]; }
    const char *oracle_real_xml_comments(void) { return bs_real_comments; }
    void oracle_send_raise(id o) { [o performSelector: @selector(bs_raise)]; }
    // The name of the exception a message without arguments raises, or NULL when it returns.
    const char *oracle_raised_by(id o, SEL s) {
      @try { [o performSelector: s]; } @catch (NSException *e) { return [[e name] UTF8String]; }
      return NULL;
    }
    """#

  /// The loaded library (compiled once per test process).
  static let handle: Result<UInt, any Error> = Result { UInt(bitPattern: try GNUstepLibrary.load(source: source)) }

  /// The function `name` of the fixture, as `type`.
  static func function<Function>(_ name: String, as type: Function.Type) throws -> Function {
    let library = UnsafeMutableRawPointer(bitPattern: try handle.get())!
    return unsafeBitCast(try GNUstepLibrary.symbol(name, in: library), to: Function.self)
  }
}
