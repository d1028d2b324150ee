import BlockSignature
import BlockSignatureObjC
import Foundation
import TestSupport
import Testing

/// `blocksig objc classes` on a library gcc compiles from a fixture, and on GNUstep Base: the
/// classes, variables and method types it prints are the runtime's.
@Suite struct ObjCClassesCLITests {
  static let source = #"""
    #import <Foundation/Foundation.h>
    typedef struct { double x, y; } BSPoint;
    @protocol BSShape
    - (double)area;
    @end
    @interface BSCircle : NSObject <BSShape> {
      BSPoint center;
      double radius;
      char tag;
    }
    + (id)circleWithRadius:(double)r;
    - (BSPoint)center;
    - (NSRange)rangeOf:(NSString *)s in:(const char *)text count:(unsigned short)count;
    @end
    @implementation BSCircle
    + (id)circleWithRadius:(double)r { BSCircle *c = [self new]; c->radius = r; return c; }
    - (double)area { return 3.0 * radius * radius; }
    - (BSPoint)center { return center; }
    - (NSRange)rangeOf:(NSString *)s in:(const char *)text count:(unsigned short)count { return NSMakeRange(0, count); }
    @end
    @interface BSSquare : NSObject
    @end
    @implementation BSSquare
    @end
    """#

  struct Report: Decodable {
    struct Variable: Decodable, Equatable {
      var name: String
      var type: String
      var offset: Int
    }
    struct Method: Decodable {
      var selector: String
      var kind: String
      var types: String
      var declaration: String?
      var swift: String?
    }
    struct Class: Decodable {
      var name: String
      var superclass: String?
      var protocols: [String]
      var instanceVariables: [Variable]
      var methods: [Method]
    }
    var library: String
    var classes: [Class]
  }

  @Test func listsTheLibrarysClassesAsTheRuntimeHoldsThem() throws {
    let (folder, library) = try GNUstepLibrary.build(source: Self.source)
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try blocksig(["objc", "classes", library.path, "--json"])
    try #require(run.status == 0, "\(run.stderr)")
    let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))
    #expect(report.classes.map(\.name) == ["BSCircle", "BSSquare"])
    // The same library in this process: the runtime's own answers.
    let loaded = try ObjCLibrary(loading: library.path)
    #expect(loaded.classes.map(\.name) == ["BSCircle", "BSSquare"])
    let circle = try ObjCClass(named: "BSCircle")
    let printed = try #require(report.classes.first)
    #expect(printed.superclass == "NSObject")
    #expect(printed.protocols == ["BSShape"])
    #expect(
      printed.instanceVariables
        == circle.instanceVariables.map { Report.Variable(name: $0.name, type: $0.typeEncoding, offset: $0.offset) })
    #expect(printed.instanceVariables.map(\.name) == ["center", "radius", "tag"])
    var expected: [String: String] = [:]
    for method in circle.methods { expected["-" + method.selector.name] = method.typeEncoding }
    for method in circle.metaclass.methods { expected["+" + method.selector.name] = method.typeEncoding }
    let listed = Dictionary(
      uniqueKeysWithValues: printed.methods.map { (($0.kind == "instance" ? "-" : "+") + $0.selector, $0.types) })
    #expect(listed == expected)
    let range = try #require(printed.methods.first { $0.selector == "rangeOf:in:count:" })
    #expect(range.declaration == "- (struct _NSRange)rangeOf:(id) in:(const char *) count:(unsigned short)")
    #expect(range.swift?.hasPrefix("@convention(c) (") == true)
    let make = try #require(printed.methods.first { $0.selector == "circleWithRadius:" })
    #expect(make.kind == "class" && make.declaration == "+ (id)circleWithRadius:(double)")
    let schemaErrors = try JSONSchemaValidator.errors(
      in: try JSONSchemaValidator.compact(run.stdout), schema: "blocksig-objc-classes-1.schema.json")
    #expect(schemaErrors.isEmpty, "\(schemaErrors)")
  }

  @Test func textFormAndAClassOfGNUstep() throws {
    let run = try blocksig(["objc", "classes", "libgnustep-base.so", "--class", "NSXMLParser", "--swift"])
    try #require(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasSuffix(": 1 class") == true)
    #expect(lines.dropFirst().first == "@interface NSXMLParser : NSObject")
    #expect(lines.last == "@end")
    #expect(lines.contains { $0.hasPrefix("- (unsigned char)parse ") && $0.contains("C16@0:8") })
    #expect(lines.contains { $0.hasPrefix("- (void)setDelegate:(id) ") && $0.contains("// @convention(c)") })
  }

  @Test func refusals() throws {
    let missing = try blocksig(["objc", "classes", "libblocksig-no-such-library.so"])
    #expect(missing.status == 66)
    // The name once, and why: the same meaning of a library name as inspect and call.
    #expect(
      missing.stderr.hasPrefix(
        "blocksig objc classes: error: libblocksig-no-such-library.so: no such library (searched LD_LIBRARY_PATH"))
    let noClass = try blocksig(["objc", "classes", "libgnustep-base.so", "--class", "BSNoSuchClass"])
    #expect(noClass.status == 65)
    #expect(noClass.stderr.contains("defines no class called BSNoSuchClass"))
  }
}
