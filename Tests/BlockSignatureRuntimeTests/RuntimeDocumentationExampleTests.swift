import BlockFixtures
import BlockSignature
import BlockSignatureRuntime
import Testing

/// The examples in the Runtime library's documentation comments, run as written.
@Suite struct RuntimeDocumentationExampleTests {
  /// BlockInfo.swift, BlockInspectionError.swift, MethodSignature.swift, and the DocC article
  /// ReadingABlocksSignature.md. The reference count is not asserted: it depends on how the
  /// example holds the block.
  @Test func liveBlocks() throws {
    let block: @convention(block) (Int32, Double) -> Int32 = { a, _ in a }
    let info = try withExtendedLifetime(block) {
      try BlockInfo(inspecting: unsafeBitCast(block, to: UnsafeRawPointer.self))
    }
    #expect(info.kind == .heap)
    #expect(info.signature == "i20@?0i8d12")

    let article: @convention(block) (Int32, Int) -> Int32 = { a, _ in a }
    let articleInfo = try withExtendedLifetime(article) {
      try BlockInfo(inspecting: unsafeBitCast(article, to: UnsafeRawPointer.self))
    }
    #expect(articleInfo.signature == "i20@?0i8q12")
    #expect(articleInfo.cDeclaration == "int (^)(int, long)")
    #expect(try articleInfo.parsedSignature()?.arguments.count == 3)
    #expect(try MethodSignature(block: articleInfo).isBlock)

    #expect {
      _ = try BlockInfo(inspecting: nil)
    } throws: { error in
      "\(error)" == "block at 0x0: null block pointer"
    }
  }

  /// ImageSymbolLookup.swift: an invoke function's local name, `__<function>_block_invoke`
  /// (here for the fixture function bf_int_int, whose block is in the test bundle).
  @Test func localSymbolNames() throws {
    let make = try #require(bf_fixture_named("int_int")?.pointee.make)
    let info = try BlockInfo(inspecting: make())
    #expect(info.invoke?.resolvingLocalSymbols().name == "__bf_int_int_block_invoke")
  }
}
