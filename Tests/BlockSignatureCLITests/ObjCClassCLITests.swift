import Foundation
import TestSupport
import Testing

/// `blocksig objc class`: a class's block parameters from its header, each with the signature
/// clang writes for a block literal of its type. The library's tests compare the signatures
/// with clang's literals; these check what the command prints, its schema and how it exits.
@Suite struct ObjCClassCLITests {
  static let header = """
    @class NSString;
    typedef int (^Adder)(int, int);
    @interface Calculator
    - (int)apply:(Adder)adder to:(int)x;
    + (void)each:(void (^)(double value, unsigned long index))visit;
    - (int)plain:(int)x;
    @end
    @interface Calculator (Extras)
    - (void)later:(int)delay then:(Adder)adder;
    @end

    """

  func run(_ arguments: [String]) throws -> Toolchain.Output {
    try blocksig(["objc", "class"] + arguments + ["--clang", Toolchain.clang])
  }

  /// The interface's and the category's block parameters, instance and class methods, in order;
  /// the text and the JSON say the same.
  @Test func aHeaderOfOurOwn() throws {
    let folder = try Toolchain.temporaryDirectory("objc-class")
    defer { try? FileManager.default.removeItem(at: folder) }
    let header = folder.appendingPathComponent("calculator.h")
    try Self.header.write(to: header, atomically: true, encoding: .utf8)
    let text = try run([header.path, "--class", "Calculator"])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(
      text.stdout == """
        # Calculator, from \(header.path) by clang: 3 block parameters
        - apply:to:  argument 0  Adder  i16@?0i8i12  // int (^)(int, int)
        + each:  argument 0  void (^)(double, unsigned long)  v24@?0d8Q16  // void (^)(double, unsigned long)
        - later:then:  argument 1  Adder  i16@?0i8i12  // int (^)(int, int)

        """)
    let json = try run([header.path, "--class", "Calculator", "--json"])
    #expect(
      try JSONSchemaValidator.errors(
        in: try JSONSchemaValidator.compact(json.stdout), schema: "blocksig-objc-class-1.schema.json"
      ).isEmpty)
    let document = try #require(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    let parameters = try #require(document["blockParameters"] as? [[String: Any]])
    #expect(parameters.map { $0["selector"] as? String } == ["apply:to:", "each:", "later:then:"])
    #expect(parameters.map { $0["kind"] as? String } == ["instance", "class", "instance"])
    #expect(parameters.map { $0["index"] as? Int } == [0, 0, 1])
  }

  /// GNUstep's NSArray, with --gnustep: its comparator and enumerator blocks.
  @Test func gnustepsNSArray() throws {
    let output = try run(["/usr/include/GNUstep/Foundation/NSArray.h", "--class", "NSArray", "--gnustep", "--json"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(
      try JSONSchemaValidator.errors(
        in: try JSONSchemaValidator.compact(output.stdout), schema: "blocksig-objc-class-1.schema.json"
      ).isEmpty)
    let document = try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
    let parameters = try #require(document["blockParameters"] as? [[String: Any]])
    let sort = try #require(parameters.first { $0["selector"] as? String == "sortedArrayUsingComparator:" })
    #expect(sort["type"] as? String == "NSComparator")
    #expect(sort["signature"] as? String == "q24@?0@8@16")
    let enumerate = try #require(parameters.first { $0["selector"] as? String == "enumerateObjectsUsingBlock:" })
    #expect(enumerate["signature"] as? String == "v32@?0@8Q16*24")
  }

  @Test func refusals() throws {
    let folder = try Toolchain.temporaryDirectory("objc-class-refusals")
    defer { try? FileManager.default.removeItem(at: folder) }
    let header = folder.appendingPathComponent("calculator.h")
    try Self.header.write(to: header, atomically: true, encoding: .utf8)
    let noClass = try run([header.path, "--class", "Abacus"])
    #expect(noClass.status == 65, "\(noClass.stderr)")
    #expect(noClass.stderr.hasPrefix("blocksig objc class: error: "))
    let noHeader = try run([folder.appendingPathComponent("none.h").path, "--class", "Calculator"])
    #expect(noHeader.status == 66)
    let badName = try run([header.path, "--class", "not a name"])
    #expect(badName.status == 64)
  }
}
