import BlockFixtures
import BlockSignature
import BlockSignatureRuntime
import FixtureSupport
import Testing

/// Every fixture block the lead compiled: its live signature parses, round-trips, matches the
/// compiler's `sizeof`/`_Alignof`, and re-synthesises to clang's string.
@Suite struct FixtureLayoutTests {
  @Test(arguments: Fixture.all)
  func fixtureSignatureAgreesWithCompiler(_ fixture: Fixture) throws {
    let text = try #require(try fixture.withBlock { try BlockInfo(inspecting: $0).signature })
    let signature = try SignatureEncoding(parsing: text)
    #expect(signature.description == text)
    #expect(signature.kind == .block)
    #expect(signature.explicitArguments.count == Int(fixture.raw.parameterCount), "\(text)")
    let layout = try signature.layout(for: .x86_64SysV)
    #expect(layout.offsetsMatch, "\(text): \(layout.notes)")
    let hidden = layout.notes.contains { $0.kind == .hiddenLayout || $0.kind == .sizeFromOffsets }
    #expect(
      try signature.strippingOffsets().synthesizingOffsets(for: .x86_64SysV).description == text || hidden, "\(text)")
    #expect(try signature.synthesizingOffsets(for: .x86_64SysV).description == text, "\(text)")

    var pairs = [
      (
        layout.returnLayout, Int(fixture.raw.returnSize), Int(fixture.raw.returnAlignment), signature.returnType,
        nil as Int?
      )
    ]
    for (index, argument) in layout.arguments.dropFirst().enumerated() {
      pairs.append(
        (
          argument.layout, fixture.parameterSizes[index], fixture.parameterAlignments[index],
          signature.arguments[index + 1].type, index + 1
        ))
    }
    for (typeLayout, size, alignment, encoding, argument) in pairs {
      if case .primitive(.void) = encoding { continue }
      let flagged =
        !typeLayout.isExact
        || layout.notes.contains {
          $0.argument == argument && ($0.kind == .hiddenLayout || $0.kind == .sizeFromOffsets)
        }
      if typeLayout.size == size && typeLayout.alignment == alignment { continue }
      // Known limit: a packed enum is encoded `i` with an int-sized slot, exactly like `int`;
      // nothing in the signature reveals its 1-byte size.
      if fixture.name == "enum_packed", encoding == .primitive(.int) { continue }
      // A difference is allowed only where the result says the encoding cannot decide.
      #expect(
        flagged,
        "\(fixture.name) \(encoding): \(typeLayout.size)/\(typeLayout.alignment) vs sizeof \(size)/\(alignment)")
    }
  }
}
