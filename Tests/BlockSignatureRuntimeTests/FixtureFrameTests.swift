import BlockSignature
import BlockSignatureRuntime
import FixtureSupport
import Foundation
import TestSupport
import Testing

/// `SignatureFrame` on the live signature of every fixture block.
@Suite struct FixtureFrameTests {
  /// Every fixture's live signature.
  @Test func fixturesAgree() throws {
    for fixture in Fixture.all {
      let text = try #require(try fixture.withBlock { try BlockInfo(inspecting: $0).signature })
      for model in DataModel.allBuiltIn {
        #expect(expectFrameAgreement(Array(text.utf8), model: model), "\(fixture.name)")
      }
    }
  }

  /// The fast path takes every signature clang wrote in the corpus and the fixtures (a change
  /// that made it give up would leave the numbers right but the speed gone), and the nesting
  /// stack fits the bytes `withUnsafeTemporaryAllocation` keeps on the stack.
  @Test func fastPathCoversWhatClangWrites() throws {
    var signatures = try benchmarkCorpusSignatures()
    for fixture in Fixture.all {
      signatures.append(try #require(try fixture.withBlock { try BlockInfo(inspecting: $0).signature }))
    }
    var refused: [String] = []
    for signature in signatures {
      let bytes = Array(signature.utf8)
      let taken = bytes.withUnsafeBufferPointer { SignatureFrame.scanningFastPathOnly($0) != nil }
      if !taken { refused.append(signature) }
    }
    #expect(signatures.count > 4000)
    #expect(refused.isEmpty, "the fast path gives up on \(refused.count): \(refused.prefix(5))")
    #expect(SignatureFrame.fastPathStackBytes <= 1024)
  }
}
