import BlockSignature
import Foundation
import TestSupport
import Testing

/// Block ↔ method ↔ function conversions, checked against the method encodings clang writes.
@Suite struct ConversionTests {
  // MARK: Class names, nested block signatures and qualifiers (Apple's extended encodings)

  @Test func extendedEncodingsAreKept() throws {
    let strings = try ObjCMethodTypes.appleStrings(
      source: """
        @class Foo;
        @protocol P @end
        @protocol BSMethods
        - (void)m:(Foo *)x :(int (^)(int))b :(id<P>)p :(const char *)s;
        @end
        void *bs_block(void) { return ^(Foo *x, int (^b)(int), id<P> p, const char *s) {}; }
        void *bs_protocol(void) { return (void *)@protocol(BSMethods); }
        """)
    let block = try #require(strings.first { $0.contains("@?0") })
    #expect(block == "v40@?0@\"Foo\"8@?<i@?i>16@\"<P>\"24r*32")
    let method = try #require(strings.first { $0.contains("@0:8@\"Foo\"") })
    let converted = try SignatureEncoding(parsing: block).converted(to: .method)
    #expect(converted.description == method)
    #expect(try SignatureEncoding(parsing: method).converted(to: .block).description == block)
  }

  // MARK: Examples from the ABI notes and edge cases

  @Test(
    arguments: zip(
      ["v16@?0@8", "i20@?0i8r*12", "v24@?08", "v@?@", "Vv16@?0r^{S=i}8", "v12@?0i+4", "d8@?0"],
      ["v24@0:8@16", "i28@0:8i16r*20", "v32@0:816", "v@:@", "Vv24@0:8r^{S=i}16", "v20@0:8i+12", "d16@0:8"]))
  func blockToMethod(_ block: String, _ method: String) throws {
    let converted = try SignatureEncoding(parsing: block).methodEncoding()
    #expect(converted.description == method)
    #expect(try converted.blockEncoding().description == block)
  }

  @Test(
    arguments: zip(
      ["i20@?0i8r*12", "v24@0:8@16", "v@?i", "d8@?0"],
      ["i12i0r*4", "v8@0", "vi", "d0"]))
  func toFunction(_ signature: String, _ function: String) throws {
    #expect(try SignatureEncoding(parsing: signature).functionEncoding().description == function)
  }

  @Test func functionWhoseFirstParameterIsABlock() throws {
    // `void f(void (^)(void), int)`: reads as a block signature unless told otherwise.
    let function = try SignatureEncoding(parsing: "v12@?0i8")
    #expect(try function.converted(from: .types, to: .block).description == "v20@?0@?8i16")
    #expect(try function.converted(from: .types, to: .method).description == "v28@0:8@?16i24")
  }

  /// Without offsets in, none out: a list of types becomes a block or method signature without
  /// offsets.
  @Test func conversionWithoutOffsetsWritesNone() throws {
    let types = try SignatureEncoding(parsing: "vi")
    #expect(try types.converted(from: .types, to: .block).description == "v@?i")
    #expect(try types.converted(from: .types, to: .method).description == "v@:i")
  }

  @Test func classObjectAsSelfConverts() throws {
    // A class method's receiver may be written as a class (`#`) rather than an object.
    let method = try SignatureEncoding(parsing: "v20#0:8i16")
    #expect(try method.converted(from: .method, to: .block).description == "v12@?0i8")
  }

  @Test func ilp32UsesFourBytePointers() throws {
    let block = try SignatureEncoding(parsing: "i12@?0i4r*8")
    #expect(try block.methodEncoding(for: .i386Linux).description == "i16@0:4i8r*12")
  }

  @Test func conversionErrorsNameTheReason() throws {
    let method = try SignatureEncoding(parsing: "v24@0:8@16")
    let error = try #require(throws: SignatureError.self) { try method.converted(from: .block, to: .method) }
    #expect(error.kind == .notConvertible)
    #expect(
      error.description == "cannot convert v24@0:8@16 from block form: argument 0 is @, not a block (@?)")
    let short = try SignatureEncoding(parsing: "v8@0")
    let shortError = try #require(throws: SignatureError.self) {
      try short.converted(from: .method, to: .block)
    }
    #expect(
      shortError.message == "from method form: it has 1 argument; a method has at least 2 (self and _cmd)")
    let overflow = try SignatureEncoding(parsing: "v\(Int.max)@?0")
    let overflowError = try #require(throws: SignatureError.self) { try overflow.methodEncoding() }
    #expect(overflowError.kind == .layoutOverflow)
  }
}
