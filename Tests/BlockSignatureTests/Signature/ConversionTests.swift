import BlockSignature
import BlockSignatureBinary
import BlockSignatureRuntime
import Foundation
import TestSupport
import Testing

/// Block ↔ method ↔ function conversions, checked against the method encodings clang writes.
@Suite struct ConversionTests {
  // MARK: Against clang, for every fixture

  /// A fixture's C declaration, `RET (^)(T1, T2)`, split into its return and parameter types.
  static func split(declaration: String) -> (returnType: String, parameters: [String])? {
    guard let marker = declaration.range(of: " (^)("), declaration.hasSuffix(")") else { return nil }
    let returnType = String(declaration[..<marker.lowerBound])
    let list = declaration[marker.upperBound..<declaration.index(before: declaration.endIndex)]
    var parameters: [String] = []
    var depth = 0
    var current = ""
    for character in list {
      switch character {
      case "(", "<", "[": depth += 1
      case ")", ">", "]": depth -= 1
      default: break
      }
      if character == ",", depth == 0 {
        parameters.append(current.trimmingCharacters(in: .whitespaces))
        current = ""
      } else {
        current.append(character)
      }
    }
    let last = current.trimmingCharacters(in: .whitespaces)
    if !(last.isEmpty || (parameters.isEmpty && last == "void")) { parameters.append(last) }
    return (returnType, parameters)
  }

  /// One Objective-C protocol method per fixture, `- (RET)m<index>:(T1)p1 :(T2)p2 …;`, compiled
  /// with clang for the GNUstep runtime: selector → clang's method type string.
  static let clangMethodTypes: Result<[String: String], any Error> = Result {
    var source = """
      #include <stddef.h>
      #include <stdint.h>
      #include "BlockFixtureTypes.h"
      @protocol BSConversionMethods

      """
    for fixture in Fixture.all {
      guard let (returnType, parameters) = split(declaration: fixture.declaration) else { continue }
      source += "- (\(returnType))m\(fixture.index)"
      for (index, parameter) in parameters.enumerated() { source += " :(\(parameter))p\(index + 1)" }
      source += ";\n"
    }
    source +=
      "@end\nvoid *bs_protocol_reference(void) { return (__bridge void *)@protocol(BSConversionMethods); }\n"
    return try ObjCMethodTypes.gnustep(
      source: source, includeDirectories: [Toolchain.packageRoot.appendingPathComponent("Fixtures").path])
  }

  static func selector(of fixture: Fixture) -> String? {
    split(declaration: fixture.declaration).map {
      "m\(fixture.index)" + String(repeating: ":", count: $0.parameters.count)
    }
  }

  @Test(arguments: Fixture.all)
  func blockToMethodMatchesClang(_ fixture: Fixture) throws {
    let methods = try Self.clangMethodTypes.get()
    let selector = try #require(Self.selector(of: fixture), "cannot read declaration \(fixture.declaration)")
    let expected = try #require(
      methods[selector], "clang emitted no method \(selector) for \(fixture.declaration)")
    let info = try fixture.withBlock { try BlockInfo(inspecting: $0) }
    let block = try MethodSignature(block: info)
    #expect(block.isBlock)
    let method = try block.converted(to: .method)
    // The GNUstep runtime writes bitfields in GNU form (`b0I3`); the C fixtures use NeXT form
    // (`b3`). That is the runtime's choice, not the conversion's: compare widths only.
    let clangMethod = try SignatureEncoding(parsing: expected).withNeXTBitfields()
    #expect(method.encoding == clangMethod, "\(fixture.declaration): block \(block), clang \(expected)")
    #expect(method.kind == .method)
    #expect(method.numberOfArguments == block.numberOfArguments + 1)
    // And back: clang's method string converts to the block's own signature.
    let back = try clangMethod.converted(to: .block)
    #expect(back == block.encoding, "\(fixture.declaration): method \(expected)")
    // The function form starts at 0 and converts back to the block unchanged.
    let function = try block.encoding.converted(to: .types)
    if block.numberOfArguments > 1 { #expect(function.arguments.first?.offset?.value == 0) }
    #expect(try function.converted(from: .types, to: .block) == block.encoding)
  }

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
      shortError.reason == "from method form: it has 1 argument; a method has at least 2 (self and _cmd)")
    let overflow = try SignatureEncoding(parsing: "v\(Int.max)@?0")
    let overflowError = try #require(throws: SignatureError.self) { try overflow.methodEncoding() }
    #expect(overflowError.kind == .layoutOverflow)
  }
}

extension SignatureEncoding {
  /// The signature with every GNU-form bitfield `b<offset><type><width>` written in NeXT form.
  func withNeXTBitfields() -> SignatureEncoding {
    var copy = self
    copy.returnType = returnType.withNeXTBitfields()
    for index in copy.arguments.indices {
      copy.arguments[index].type = arguments[index].type.withNeXTBitfields()
    }
    return copy
  }
}

extension TypeEncoding {
  func withNeXTBitfields() -> TypeEncoding {
    switch self {
    case .bitfield(let bitfield): .bitfield(.init(width: bitfield.width))
    case .pointer(let inner): .pointer(inner.withNeXTBitfields())
    case .array(let count, let element): .array(count: count, element: element.withNeXTBitfields())
    case .structure(let name, let fields):
      .structure(name: name, fields: fields?.map { .init(name: $0.name, type: $0.type.withNeXTBitfields()) })
    case .union(let name, let fields):
      .union(name: name, fields: fields?.map { .init(name: $0.name, type: $0.type.withNeXTBitfields()) })
    case .complex(let inner): .complex(inner.withNeXTBitfields())
    case .atomic(let inner): .atomic(inner.withNeXTBitfields())
    case .qualified(let qualifier, let inner): .qualified(qualifier, inner.withNeXTBitfields())
    case .block(let signature): .block(signature: signature?.map { $0.withNeXTBitfields() })
    default: self
    }
  }
}
