import BlockFixtures
import BlockSignature
import Foundation
import TestSupport
import Testing

/// Every fixture of Fixtures/ called through `blocksig call` with arguments made from its
/// signature: each call completes, unless BlockInvocation refuses the fixture's type, which
/// the list below names with the reason it must give.
@Suite(.serialized) struct CallFixtureSweepTests {
  /// Fixtures whose types cannot be called, and why (a part of the message).
  static let refused: [String: String] = [
    "float16_float16": "a single space may be _Float16, __bf16 or __float128",
    "float16_between": "a single space may be _Float16, __bf16 or __float128",
    "vector_parameter": "the type has no encoding (a vector",
    "vector_between": "the type has no encoding (a vector",
    "struct_bitfields": "the layout of struct BFBits is an estimate",
    "struct_packed": "the signature's offsets disagree with the layout of the encoding",
    "struct_over_aligned": "the signature's offsets disagree with the layout of the encoding",
  ]

  /// Fixtures that live only during a call into the library: no symbol hands them out.
  static let unreachable: Set<String> = ["stack_const_char_pointer", "noescape_int"]

  static let fixtures: [String] = {
    var count = 0
    let table = bf_fixtures(&count)
    return (0..<count).map { String(cString: table[$0].name) }
  }()

  /// A JSON argument for a value of `type`: 1 for integers, 0.5 for floating point, a
  /// string for `char *`, null for other pointers, arrays for structures and complex
  /// values, member 0 for a union. Parameters of array type are pointers.
  static func argument(for type: TypeEncoding, inRecord: Bool = false) -> String {
    switch type.unqualified {
    case .primitive(.bool): return "true"
    case .primitive(.float), .primitive(.double), .primitive(.longDouble): return "0.5"
    case .primitive(.cString): return "\"text\""
    case .primitive(.class), .primitive(.selector), .primitive(.atom): return "null"
    case .primitive: return "1"
    case .object, .block, .pointer: return "null"
    case .array(let count, let element):
      guard inRecord else { return "null" }
      return "[" + Array(repeating: argument(for: element, inRecord: true), count: Int(count)).joined(separator: ", ")
        + "]"
    case .structure(_, let fields):
      return "[" + (fields ?? []).map { argument(for: $0.type, inRecord: true) }.joined(separator: ", ") + "]"
    case .union(_, let fields):
      return #"{"member": 0, "value": "# + argument(for: fields?.first?.type ?? .primitive(.int), inRecord: true) + "}"
    case .complex(let element):
      let part = argument(for: element, inRecord: true)
      return "[\(part), \(part)]"
    case .atomic(let inner): return argument(for: inner, inRecord: inRecord)
    case .bitfield: return "1"
    case .unencodable, .qualified: return "1"
    }
  }

  /// `--symbol bf_NAME`, or the variable for the one fixture held in a variable.
  static func source(of name: String) -> [String] {
    name == "global_block_variable" ? ["--variable", "bf_global_block_variable"] : ["--symbol", "bf_" + name]
  }

  @Test func everyFixtureIsSweptOrListed() {
    #expect(Self.fixtures.count > 70)
    #expect(Set(Self.refused.keys).isSubset(of: Self.fixtures))
    #expect(Self.unreachable.isSubset(of: Self.fixtures))
    var count = 0
    let table = bf_fixtures(&count)
    for index in 0..<count where Self.unreachable.contains(String(cString: table[index].name)) {
      #expect(table[index].make == nil)
    }
  }

  @Test(arguments: fixtures) func callFixture(_ name: String) throws {
    let library = try InspectCLITests.library.get().path
    if Self.unreachable.contains(name) { return }
    let inspected = try Toolchain.run(
      Toolchain.blocksig, ["inspect", "--library", library, "--json"] + Self.source(of: name))
    try #require(inspected.status == 0, "\(inspected.stderr)")
    let document = try #require(JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [String: Any])
    let signature = try SignatureEncoding(parsing: try #require(document["signature"] as? String))
    let arguments = signature.explicitArguments.map { Self.argument(for: $0.type) }
    let output = try Toolchain.run(
      Toolchain.blocksig, ["call", "--library", library] + Self.source(of: name) + ["--"] + arguments)
    if let reason = Self.refused[name] {
      #expect(output.status == 65, "\(name) \(arguments): \(output.stdout)")
      #expect(output.stderr.hasPrefix("blocksig call: error: "), "\(output.stderr)")
      #expect(output.stderr.contains(reason), "\(name): \(output.stderr)")
    } else {
      #expect(output.status == 0, "\(name) \(arguments): \(output.stderr)")
      #expect(output.stderr == "")
      #expect(output.stdout.hasPrefix("return  "), "\(output.stdout)")
    }
  }
}
