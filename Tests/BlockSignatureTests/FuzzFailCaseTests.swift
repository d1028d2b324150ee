import BlockSignature
import Testing

/// Every input libFuzzer found (kept in FuzzTesting/FailCases/<target>/), replayed as a byte
/// array through the same calls as its harness (swift-protobuf's `Test_FuzzTests`).
@Suite struct FuzzFailCaseTests {
  /// What FuzzTesting/Sources/FuzzSignature does with one input; returns the rendered lengths.
  @discardableResult
  static func runSignatureHarness(_ bytes: [UInt8]) -> Int {
    var rendered = 0
    bytes.withUnsafeBufferPointer { buffer in
      guard let signature = try? SignatureEncoding(parsingBytes: buffer) else { return }
      _ = signature.description
      _ = signature.strippingOffsets()
      for model in DataModel.allBuiltIn {
        _ = try? signature.layout(for: model)
        _ = try? signature.synthesizingOffsets(for: model)
        _ = try? signature.returnType.layout(for: model)
        for argument in signature.arguments { _ = try? argument.type.parameterSlotSize(for: model) }
        rendered += signature.cDeclaration(for: model).utf8.count
        rendered += signature.swiftType(for: model).utf8.count
        rendered += signature.returnType.cDeclaration(name: "x", for: model).utf8.count
      }
      _ = signature.compatibleDataModels()
    }
    return rendered
  }

  /// FailCases/FuzzSignature/complex-tuple-blowup: `?@?` then 65 `j` and a space. Each
  /// `_Complex` doubled the Swift tuple (`(T, T)`), so the Swift type needed 2^65 copies of
  /// `Float16` and the harness ran out of memory. Fixed in `SwiftRenderer.render`.
  static let complexTupleBlowup: [UInt8] =
    [0x3f, 0x40, 0x3f] + [UInt8](repeating: 0x6a, count: 65) + [0x20]

  @Test func complexTupleBlowup() throws {
    let rendered = Self.runSignatureHarness(Self.complexTupleBlowup)
    #expect(rendered > 0 && rendered < 100_000)
    let signature = try Self.complexTupleBlowup.withUnsafeBufferPointer { try SignatureEncoding(parsingBytes: $0) }
    let swift = signature.swiftType()
    #expect(swift.utf8.count < 10_000)
    #expect(swift.hasPrefix("@convention(block) (/* _Complex "))
  }

  /// The same blowup through arrays, found by reading the renderer after the fuzzer's hint:
  /// `[16[16[16…i]]]` nested eight deep spelled 16^8 `Int32`s.
  @Test func nestedArrayTupleBlowup() throws {
    let nested = String(repeating: "[16", count: 8) + "i" + String(repeating: "]", count: 8)
    let type = try TypeEncoding(parsing: nested)
    let swift = type.swiftType()
    #expect(swift.utf8.count < 10_000)
    #expect(swift.hasPrefix("UnsafeMutablePointer</* [16 x /* [16 x "))
    // Small tuples are still spelled out, as the importer does.
    #expect(try TypeEncoding(parsing: "^[2[3i]]").swiftType() == "UnsafeMutablePointer<((Int32, Int32, Int32), (Int32, Int32, Int32))>?")
    #expect(try TypeEncoding(parsing: "jf").swiftType() == "(Float, Float) /* _Complex */")
    #expect(Self.runSignatureHarness(Array(("v@?" + nested).utf8)) < 1_000_000)
  }
}
