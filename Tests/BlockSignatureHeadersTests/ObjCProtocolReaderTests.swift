import BlockSignature
import BlockSignatureHeaders
import Foundation
import TestSupport
import Testing

/// `HeaderReader.objcProtocol`: Objective-C protocols read from headers by clang. The oracle is
/// gcc, which built Debian's GNUstep: classes implementing each protocol, compiled by gcc
/// (`Tests/ObjCFixtures`), print the encodings GCC's runtime records for their methods, and the
/// protocol's required methods as GCC's runtime lists them.
@Suite struct ObjCProtocolReaderTests {
  static let nsxmlParserHeader = "/usr/include/GNUstep/Foundation/NSXMLParser.h"

  /// A reader with GNUstep's flags and the toolchain's clang.
  static func gnustepReader() throws -> HeaderReader {
    let arguments = try #require(HeaderReader.gnustepArguments(), "gnustep-config is not on PATH")
    return HeaderReader(clang: Toolchain.clang, arguments: arguments, timeLimit: 60)
  }

  /// What gcc's build of a fixture says: the methods of its class (sign and selector to
  /// types), and the protocol's required methods as GCC's runtime lists them.
  struct GCCView {
    var methods: [String: String] = [:]
    var required: Set<String> = []

    init(fixture: String) throws {
      for (sign, selector, types) in GNUstepPrograms.methods(try GNUstepPrograms.output(ofFixture: fixture)) {
        if sign.hasPrefix("required") {
          required.insert("\(sign.dropFirst("required".count)) \(selector)")
        } else if sign == "-" || sign == "+" {
          methods["\(sign) \(selector)"] = types
        }
      }
    }
  }

  /// `- selector` or `+ selector`.
  static func key(_ method: ObjCProtocolDescription.Method) -> String {
    "\(method.isInstanceMethod ? "-" : "+") \(method.selector)"
  }

  /// Each method's signature against the one gcc recorded for the class implementing it: ABI
  /// compatible, or an issue; returns the methods whose text differs, with both texts.
  static func compare(_ description: ObjCProtocolDescription, with gcc: GCCView) throws -> [String] {
    let checker = CompatibilityChecker(level: .abi, model: try #require(DataModel.host))
    var differences: [String] = []
    for method in description.methods {
      let key = key(method)
      let gccTypes = try #require(gcc.methods[key], "gcc's class has no method \(key)")
      let report = checker.check(try SignatureEncoding(parsing: gccTypes), against: method.signature.encoding)
      #expect(report.isCompatible, "\(key): gcc \(gccTypes), clang \(method.signature): \(report.diagnostics)")
      if gccTypes != method.signature.description {
        differences.append("\(key): gcc \(gccTypes), clang \(method.signature)")
      }
    }
    return differences
  }

  @Test func xmlParserDelegateAgreesWithGCC() throws {
    let delegate = try Self.gnustepReader().objcProtocol(header: Self.nsxmlParserHeader, named: "NSXMLParserDelegate")
    let gcc = try GCCView(fixture: "XMLParserDelegateMethods")
    #expect(delegate.name == "NSXMLParserDelegate")
    #expect(delegate.adoptedProtocols == ["NSObject"])
    // The fixture implements every method the header declares, and no other.
    #expect(Set(delegate.methods.map(Self.key)) == Set(gcc.methods.keys))
    #expect(delegate.methods.count == gcc.methods.count)
    // GCC's runtime lists the required ones; GNUstep's delegate methods are all optional.
    #expect(Set(delegate.methods.filter(\.isRequired).map(Self.key)) == gcc.required)
    #expect(delegate.methods.allSatisfy { $0.origin == "NSXMLParserDelegate" && $0.isInstanceMethod })
    // Every method has its parser first, as the header spells it.
    #expect(delegate.methods.allSatisfy { $0.parameterTypes?.first == "NSXMLParser *" })
    let differences = try Self.compare(delegate, with: gcc)
    #expect(differences.isEmpty, "\(differences)")
  }

  @Test func shapesAgreeWithGCC() throws {
    let header = GNUstepPrograms.fixtures.appendingPathComponent("Shapes.h").path
    let shapes = try Self.gnustepReader().objcProtocol(header: header, named: "Shapes", includingAdopted: true)
    let gcc = try GCCView(fixture: "ShapesMethods")
    #expect(Set(shapes.methods.map(Self.key)) == Set(gcc.methods.keys))
    // GCC's runtime lists the protocol's own required methods, not the adopted protocol's.
    #expect(Set(shapes.methods.filter { $0.isRequired && $0.origin == "Shapes" }.map(Self.key)) == gcc.required)
    let differences = try Self.compare(shapes, with: gcc)
    // For `in const ShapeMark *` gcc writes `n^r{?}` (const on the pointee, the struct without
    // its fields) where clang writes `rn^{?=di}`: the same at the ABI level, checked above.
    // Every other method reads the same in both.
    for difference in differences {
      #expect(difference.hasPrefix("- fillMark:from:"), "\(difference)")
    }
    let fill = try #require(shapes.method(selector: "fillMark:from:"))
    #expect(fill.parameterTypes == ["ShapeMark *", "const ShapeMark *"])
    let log = try #require(shapes.method(selector: "logShape:"))
    #expect(log.isVariadic && log.isRequired)
    #expect(log.declaration == "- (void)logShape:(const char *), ...")
    let named = try #require(shapes.method(selector: "shapeName"))
    #expect(named.origin == "ShapeNaming" && named.isRequired)
    let classMethod = try #require(shapes.method(selector: "shapeClassNamed:"))
    #expect(!classMethod.isInstanceMethod && classMethod.returnType == "Class")
  }

  @Test func adoptedMethodsOnlyWhenAsked() throws {
    let header = GNUstepPrograms.fixtures.appendingPathComponent("Shapes.h").path
    let reader = try Self.gnustepReader()
    let own = try reader.objcProtocol(header: header, named: "Shapes")
    let all = try reader.objcProtocol(header: header, named: "Shapes", includingAdopted: true)
    #expect(own.adoptedProtocols == ["ShapeNaming"])
    #expect(own.methods.allSatisfy { $0.origin == "Shapes" })
    #expect(all.methods.prefix(own.methods.count).elementsEqual(own.methods))
    #expect(all.methods.dropFirst(own.methods.count).map(\.selector) == ["shapeName"])
  }

  /// A protocol with no Foundation in sight, read with no flags, against the method strings
  /// clang writes for the same protocol on the GNUstep 2.0 runtime.
  @Test func plainProtocolMatchesClangsMethodStrings() throws {
    let source = """
      typedef struct { long long a, b, c; } Triple;
      @protocol Plain
      - (Triple)triple:(Triple)t scale:(float)s;
      - (int)count;
      @optional
      + (unsigned char)flag:(short)s with:(void *)p;
      - (id)object:(id)o selector:(SEL)s;
      @end

      """
    let folder = try Toolchain.temporaryDirectory("blocksig-objc-plain")
    defer { try? FileManager.default.removeItem(at: folder) }
    let header = folder.appendingPathComponent("plain.h")
    try source.write(to: header, atomically: true, encoding: .utf8)
    let plain = try HeaderReader(clang: Toolchain.clang, timeLimit: 60).objcProtocol(
      header: header.path, named: "Plain")
    let clangs = try ObjCMethodTypes.gnustep(source: source + "void use(void) { (void)@protocol(Plain); }\n")
    #expect(plain.methods.map(\.selector) == ["triple:scale:", "count", "flag:with:", "object:selector:"])
    #expect(plain.methods.map(\.isRequired) == [true, true, false, false])
    #expect(plain.methods.map(\.isInstanceMethod) == [true, true, false, true])
    for method in plain.methods {
      #expect(clangs[method.selector] == method.signature.description, "\(method.selector)")
    }
  }

  @Test func textFormReadsBack() throws {
    let header = GNUstepPrograms.fixtures.appendingPathComponent("Shapes.h").path
    let shapes = try Self.gnustepReader().objcProtocol(header: header, named: "Shapes", includingAdopted: true)
    let parsed = try ObjCProtocolDescription(parsing: shapes.text)
    #expect(parsed.name == shapes.name && parsed.adoptedProtocols == shapes.adoptedProtocols)
    // What the text keeps: all but the C spellings, which it holds only as comments.
    var stripped = shapes
    for index in stripped.methods.indices {
      stripped.methods[index].returnType = nil
      stripped.methods[index].parameterTypes = nil
    }
    #expect(parsed == stripped)
    #expect(parsed.text == stripped.text)
    let lines = shapes.text.split(separator: "\n")
    #expect(lines.first == "@protocol Shapes <ShapeNaming>")
    #expect(lines.last == "@end")
    #expect(lines.contains { $0.hasPrefix("+ shapeClassNamed:") && $0.contains("# + (Class)shapeClassNamed:(char *)") })
  }

  @Test(
    arguments: zip(
      [
        "- a  required  v16@0:8\n@end\n",
        "@protocol P\n- a  maybe  v16@0:8\n@end\n",
        "@protocol P\n- a:  required  v16@0:8\n@end\n",
        "@protocol P\n- a  required  v16@?0\n@end\n",
        "@protocol P\n- a  required  v16@0:8\n- a  optional  v16@0:8\n@end\n",
        "@protocol P\n- a  required  v16@0:8  sometimes\n@end\n",
        "@protocol P\n- a  required  v16@0:8\n",
        "@protocol P <Q\n@end\n",
        "@protocol P\n@end\n- a  required  v16@0:8\n",
        "@protocol P\n- 1a  required  v16@0:8\n@end\n",
      ],
      [1, 2, 2, 2, 3, 2, 0, 1, 3, 2]
    ))
  func textFormRefusals(_ text: String, line: Int) throws {
    #expect {
      try ObjCProtocolDescription(parsing: text)
    } throws: { error in
      (error as? ObjCProtocolDescription.ParsingError)?.line == line
    }
  }

  @Test func textFormIsLaidOutForThisMachineUnlessToldOtherwise() throws {
    let text = "@protocol Counter\n- add:  required  v20@0:8i16\n@end\n"
    #expect(try ObjCProtocolDescription(parsing: text).methods[0].signature.model == DataModel.host)
    #expect(try ObjCProtocolDescription(parsing: text, model: .i386Linux).methods[0].signature.model == .i386Linux)
    let error = try #require(throws: ObjCProtocolDescription.ParsingError.self) {
      try ObjCProtocolDescription(parsing: text, model: nil)
    }
    #expect(error.line == 0)
  }

  @Test func textFormKeepsCommentsAndClassMethods() throws {
    let text = """
      # a protocol written by hand
      @protocol Counter <NSObject>
      - add:  required  v20@0:8i16  # - (void)add:(int)
      + shared  optional  @16@0:8
      - log:  required  v24@0:8r*16  variadic  from Logging
      @end
      """
    let counter = try ObjCProtocolDescription(parsing: text)
    #expect(counter.adoptedProtocols == ["NSObject"])
    #expect(counter.methods.map(\.selector) == ["add:", "shared", "log:"])
    #expect(counter.methods.map(\.isInstanceMethod) == [true, false, true])
    #expect(counter.methods.map(\.isRequired) == [true, false, true])
    #expect(counter.methods[2].isVariadic && counter.methods[2].origin == "Logging")
    #expect(counter.methods[0].signature.arguments[2].offset == 16)
    #expect(counter.methods.allSatisfy { $0.returnType == nil && $0.declaration == nil })
  }

  // MARK: Refusals

  /// `files` written to a fresh folder; the caller removes it.
  static func folder(_ files: [String: String]) throws -> URL {
    let folder = try Toolchain.temporaryDirectory("blocksig-objc-refusals")
    for (name, text) in files {
      try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    return folder
  }

  static func kind(_ body: () throws(HeaderReaderError) -> ObjCProtocolDescription) -> HeaderReaderError.Kind? {
    do {
      _ = try body()
      return nil
    } catch {
      return error.kind
    }
  }

  @Test func refusals() throws {
    let folder = try Self.folder([
      "good.h": "@protocol Good\n- (int)count;\n@end\n@protocol Later;\n",
      "broken.h": "@protocol Broken\n- (int)count\n@end\n",
      "vector.h": "typedef int v4 __attribute__((vector_size(16)));\n@protocol Vec\n- (v4)vector;\n@end\n",
    ])
    defer { try? FileManager.default.removeItem(at: folder) }
    let reader = HeaderReader(clang: Toolchain.clang, timeLimit: 60)
    let good = folder.appendingPathComponent("good.h").path
    #expect(
      Self.kind { () throws(HeaderReaderError) in try reader.objcProtocol(header: good, named: "Missing") } == .notFound
    )
    #expect(
      Self.kind { () throws(HeaderReaderError) in try reader.objcProtocol(header: good, named: "Later") } == .notFound)
    #expect(
      Self.kind { () throws(HeaderReaderError) in try reader.objcProtocol(header: good, named: "no-name") }
        == .invalidName)
    let broken = folder.appendingPathComponent("broken.h").path
    #expect(
      Self.kind { () throws(HeaderReaderError) in try reader.objcProtocol(header: broken, named: "Broken") }
        == .compileFailed)
    let vector = folder.appendingPathComponent("vector.h").path
    #expect(
      Self.kind { () throws(HeaderReaderError) in try reader.objcProtocol(header: vector, named: "Vec") }
        == .unsupported)
    let missing = folder.appendingPathComponent("missing.h").path
    #expect(
      Self.kind { () throws(HeaderReaderError) in try reader.objcProtocol(header: missing, named: "Good") }
        == .unreadableHeader)
    let noClang = HeaderReader(clang: folder.appendingPathComponent("no-clang").path)
    #expect(
      Self.kind { () throws(HeaderReaderError) in try noClang.objcProtocol(header: good, named: "Good") }
        == .compilerNotFound)
    let counted = try reader.objcProtocol(header: good, named: "Good")
    #expect(counted.methods.map(\.signature.description) == ["i16@0:8"])
  }
}
