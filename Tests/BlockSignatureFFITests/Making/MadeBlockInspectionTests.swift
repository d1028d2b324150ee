import BlockSignature
import BlockSignatureFFI
import BlockSignatureRuntime
import Foundation
import Testing

/// A made block read from outside, as a debugger or `blocksig inspect --pid` reads any block:
/// through `BlockInfo(inspecting:inProcess:)`, from this process's memory and image files.
@Suite struct MadeBlockInspectionTests {
  @Test func readingItsProcessFindsAMadeBlock() throws {
    let made = try DynamicBlock(signature: "{S3=qqq}@?d*") { _ in .aggregate([.signed(1), .signed(2), .signed(3)]) }
    let clang = try clangBlockSignature(
      "^struct S3(double d, char *s) { struct S3 r = {0, 0, 0}; return r; }", prelude: "struct S3 { long a, b, c; };")
    let info = try BlockInfo(inspecting: made.unsafeBlock)
    // The block must outlive the read: Swift may release `made` after its last use.
    let remote = try withExtendedLifetime(made) {
      try BlockInfo(inspecting: UInt(bitPattern: made.unsafeBlock), inProcess: getpid())
    }
    #expect(remote.processID == getpid())
    #expect(remote.kind == .heap)
    #expect(remote.signature == clang)
    #expect(remote.signature == info.signature)
    for flag in [BlockFlags.hasSignature, .hasCopyDispose, .useStret, .needsFree] {
      #expect(remote.flags.contains(flag), "\(remote.flags)")
    }
    #expect(remote.copyHelperAddress != nil && remote.disposeHelperAddress != nil)
    #expect(remote.referenceCount == 1)
    #expect(remote.invokeAddress == info.invokeAddress)
  }
}
