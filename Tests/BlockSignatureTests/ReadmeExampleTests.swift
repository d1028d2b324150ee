import BlockSignature
import Testing

/// The README's library example, kept compiling and true.
@Suite struct ReadmeExampleTests {
  @Test func conversionAndCompatibility() throws {
    let block = try SignatureEncoding(parsing: "i20@?0i8r*12")
    #expect(block.cDeclaration() == "int (^)(int, const char *)")
    let method = try MethodSignature(parsing: "v24@0:8@16")
    #expect(method.numberOfArguments == 3)
    #expect(method.frameLength == 24)
    let converted = try SignatureEncoding(parsing: "v16@?0@8").methodEncoding()
    #expect(converted.description == "v24@0:8@16")
    let report = try CompatibilityChecker(level: .abi).check("v20@?0q8i16", against: "v16@?0i8i12")
    #expect(!report.isCompatible)
    #expect(report.diagnostics.first?.message == "argument 1: size 8 does not match size 4 (q vs i)")
    #expect(try block.layout(for: .x86_64SysV).frameLength == 20)
    var reader = SignatureFrame.Reader(model: .x86_64SysV)
    #expect(try reader.frame(parsing: "i20@?0i8r*12").arguments.map(\.offset) == [0, 8, 12])
  }
}
