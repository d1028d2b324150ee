import BlockSignatureRuntime
import Testing

/// A block's C type comes from `BlockInfo` itself, on this machine's data model.
@Suite struct BlockInfoDeclarationTests {
  @Test func aBlockWithASignatureHasItsCType() throws {
    let block: @convention(block) (Int32, UnsafePointer<CChar>?, Double) -> UnsafeMutableRawPointer? = { _, _, _ in nil
    }
    let info = try withExtendedLifetime(block) {
      try BlockInfo(inspecting: unsafeBitCast(block, to: UnsafeRawPointer.self))
    }
    #expect(info.cDeclaration == "void *(^)(int, const char *, double)")
  }

  @Test func aBlockWithoutASignatureHasNone() throws {
    let probe: @convention(block) () -> Void = {}
    var info = try withExtendedLifetime(probe) {
      try BlockInfo(inspecting: unsafeBitCast(probe, to: UnsafeRawPointer.self))
    }
    #expect(info.cDeclaration == "void (^)(void)")
    info.signatureBytes = nil
    #expect(info.cDeclaration == nil)
    info.signatureBytes = Array("i@?{".utf8)  // not a valid encoding
    #expect(info.cDeclaration == nil)
    #expect(throws: (any Error).self) { try info.parsedSignature() }
  }
}
