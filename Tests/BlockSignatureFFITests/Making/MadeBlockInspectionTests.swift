import BlockSignature
import BlockSignatureFFI
import BlockSignatureRuntime
import Foundation
import TestSupport
import Testing

/// A made block read from outside, as a debugger or `blocksig inspect --pid` reads any block.
@Suite struct MadeBlockInspectionTests {
  @Test func blocksigInspectReadsAMadeBlock() throws {
    let made = try DynamicBlock(signature: "{S3=qqq}@?d*") { _ in .aggregate([.signed(1), .signed(2), .signed(3)]) }
    let clang = try clangBlockSignature(
      "^struct S3(double d, char *s) { struct S3 r = {0, 0, 0}; return r; }", prelude: "struct S3 { long a, b, c; };")
    let info = try BlockInfo(inspecting: made.unsafeBlock)
    let address = "0x" + String(UInt(bitPattern: made.unsafeBlock), radix: 16)
    // The block must outlive the read: Swift may release `made` after its last use.
    let run = try withExtendedLifetime(made) {
      try blocksig("inspect", "--pid", String(getpid()), "--address", address, "--json")
    }
    #expect(run.status == 0, "\(run.stderr)")
    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
    #expect(document["kind"] as? String == "heap")
    #expect(document["signature"] as? String == clang)
    #expect(document["signature"] as? String == info.signature)
    let flags = (document["flags"] as? [String: Any])?["names"] as? [String] ?? []
    for flag in ["BLOCK_HAS_SIGNATURE", "BLOCK_HAS_COPY_DISPOSE", "BLOCK_USE_STRET", "BLOCK_NEEDS_FREE"] {
      #expect(flags.contains(flag), "\(flags)")
    }
    #expect(document["copyHelper"] != nil && document["disposeHelper"] != nil, "\(document.keys.sorted())")
    #expect(document["referenceCount"] as? Int == 1)
    let invoke = try #require(document["invoke"] as? [String: Any])
    #expect(invoke["address"] as? String == "0x" + String(info.invokeAddress, radix: 16))
  }
}
