import Foundation
import TestSupport
import Testing

/// `blocksig objc protocol`: an Objective-C protocol read from its header by clang. The
/// library's tests compare the signatures with gcc's; these check what the command prints and
/// how it exits.
@Suite struct ObjCProtocolCLITests {
  static var shapesHeader: String { GNUstepPrograms.fixtures.appendingPathComponent("Shapes.h").path }

  func json(_ output: Toolchain.Output) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "\(output.stdout)")
  }

  /// The text form is the JSON document's `text`, after a comment that counts the methods, and
  /// lists each method of the JSON document, in order, with its kind, requiredness and signature.
  @Test func textAndJSONAgree() throws {
    let arguments = [
      "objc", "protocol", Self.shapesHeader, "--protocol", "Shapes", "--gnustep", "--clang", Toolchain.clang,
    ]
    let text = try blocksig(arguments + ["--adopted"])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(text.stderr == "")
    let document = try json(try blocksig(arguments + ["--adopted", "--json"]))
    let methods = try #require(document["methods"] as? [[String: Any]])
    let required = methods.filter { $0["required"] as? Bool == true }.count
    let lines = text.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(
      lines.first == "# Shapes, from \(Self.shapesHeader) by clang: \(methods.count) methods, \(required) required")
    #expect(lines.dropFirst().joined(separator: "\n") == document["text"] as? String)
    #expect(document["protocol"] as? String == "Shapes")
    #expect(document["adoptedProtocols"] as? [String] == ["ShapeNaming"])
    let methodLines = lines.filter { $0.hasPrefix("- ") || $0.hasPrefix("+ ") }
    #expect(methodLines.count == methods.count)
    for (line, method) in zip(methodLines, methods) {
      let words = line.split(separator: " ").map(String.init)
      let sign = method["kind"] as? String == "instance" ? "-" : "+"
      let requiredness = method["required"] as? Bool == true ? "required" : "optional"
      #expect(
        Array(words.prefix(4)) == [sign, method["selector"] as? String, requiredness, method["signature"] as? String])
    }
    // Without --adopted the inherited method is left out.
    let own = try json(try blocksig(arguments + ["--json"]))
    let ownMethods = try #require(own["methods"] as? [[String: Any]])
    #expect(ownMethods.count == methods.count - 1)
    #expect(!ownMethods.contains { $0["origin"] as? String == "ShapeNaming" })
    #expect(methods.last?["origin"] as? String == "ShapeNaming")
  }

  @Test func refusals() throws {
    let folder = try Toolchain.temporaryDirectory("blocksig-objc-cli")
    defer { try? FileManager.default.removeItem(at: folder) }
    let broken = folder.appendingPathComponent("broken.h")
    try "@protocol Broken\n- (int)count\n@end\n".write(to: broken, atomically: true, encoding: .utf8)
    let missing = folder.appendingPathComponent("missing.h").path
    let cases: [([String], Int32, String)] = [
      ([missing, "--protocol", "P"], 66, "blocksig objc protocol: error: \(missing): no such file, or not readable\n"),
      (
        [Self.shapesHeader, "--protocol", "Nope", "--gnustep"], 65,
        "blocksig objc protocol: error: \(Self.shapesHeader) declares no protocol named 'Nope'\n"
      ),
      (
        [Self.shapesHeader, "--protocol", "Shapes", "--clang", folder.appendingPathComponent("clang").path], 66,
        "blocksig objc protocol: error: \(folder.appendingPathComponent("clang").path): no such compiler (give --clang PATH)\n"
      ),
      (
        [Self.shapesHeader, "--protocol", "not a name"], 64,
        "blocksig objc protocol: error: 'not a name' is not an Objective-C protocol name\n"
      ),
    ]
    for (arguments, status, stderr) in cases {
      let run = try blocksig(
        ["objc", "protocol"] + arguments + (arguments.contains("--clang") ? [] : ["--clang", Toolchain.clang]))
      #expect(run.status == status, "\(arguments): \(run.stderr)")
      #expect(run.stderr == stderr, "\(arguments)")
      #expect(run.stdout == "", "\(arguments)")
    }
    let compile = try blocksig(["objc", "protocol", broken.path, "--protocol", "Broken", "--clang", Toolchain.clang])
    #expect(compile.status == 65)
    #expect(
      compile.stderr.hasPrefix("blocksig objc protocol: error: clang failed on \(broken.path):\n"), "\(compile.stderr)")
    let usage = try blocksig(["objc", "protocol", Self.shapesHeader, "--protocol", "Shapes", "--time-limit", "0"])
    #expect(usage.status == 64)
  }
}
