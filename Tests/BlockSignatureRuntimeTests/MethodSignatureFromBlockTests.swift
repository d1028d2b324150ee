import BlockFixtures
import BlockSignature
import BlockSignatureRuntime
import Testing

/// `MethodSignature(block:)`: the signature of a live block, C fixtures and Swift closures.
@Suite struct MethodSignatureFromBlockTests {
  @Test func fromALiveBlock() throws {
    let block = try #require(bf_fixture_named("int_const_char_pointer")?.pointee.make?())
    let signature = try MethodSignature(block: BlockInfo(inspecting: block))
    // int (^)(const char *)
    #expect(signature.description == "i16@?0r*8")
    #expect(try signature.converted(to: .method).description == "i24@0:8r*16")
  }

  @Test func aLiveBlockIsLaidOutForThisMachineUnlessToldOtherwise() throws {
    let block = try #require(bf_fixture_named("int_const_char_pointer")?.pointee.make?())
    let info = try BlockInfo(inspecting: block)
    #expect(try MethodSignature(block: info).model == DataModel.host)
    #expect(try MethodSignature(block: info, model: .i386Linux).model == .i386Linux)
    let error = try #require(throws: SignatureError.self) { try MethodSignature(block: info, model: nil) }
    #expect(error.kind == .unknownDataModel)
    #expect(error.signature == "i16@?0r*8")
  }

  @Test func fromASwiftBlock() throws {
    let closure: @convention(block) (Int32, Double) -> Int32 = { a, _ in a }
    let signature = try withExtendedLifetime(closure) {
      try MethodSignature(block: BlockInfo(inspecting: unsafeBitCast(closure, to: UnsafeRawPointer.self)))
    }
    #expect(signature.description == "i20@?0i8d12")
  }

  @Test func blockWithoutSignature() throws {
    let info = try BlockInfo(inspecting: bf_block_without_signature())
    let error = try #require(throws: SignatureError.self) { try MethodSignature(block: info) }
    #expect(error.kind == .missingSignature)
    #expect(error.message.hasSuffix("has no signature (BLOCK_HAS_SIGNATURE is clear)"))
    let null = try BlockInfo(inspecting: bf_block_with_null_signature())
    let nullError = try #require(throws: SignatureError.self) { try MethodSignature(block: null) }
    #expect(nullError.message.hasSuffix("has a NULL signature pointer"))
  }
}
