import BlockSignature
import BlockSignatureRuntime
import CBlockABI
import Testing

/// `BlockInfo.extendedLayout`: every form of descriptor part 3's layout word, read from blocks
/// built by hand.
@Suite struct ExtendedLayoutReadingTests {
  /// Builds a global block by hand whose descriptor carries `layout` as part 3's layout word.
  func withHandBuiltBlock<R>(layout: UInt, _ body: (UnsafeRawPointer) throws -> R) rethrows -> R {
    var words = [UInt](repeating: 0, count: 8)
    return try words.withUnsafeMutableBytes { raw in
      let base = raw.baseAddress!
      let block = base.assumingMemoryBound(to: CBA_Block_layout.self)
      block.pointee.flags = Int32(bitPattern: UInt32(CBA_BLOCK_IS_GLOBAL | CBA_BLOCK_HAS_SIGNATURE) | 0x8000_0000)
      block.pointee.descriptor = (base + 32).assumingMemoryBound(to: CBA_Block_descriptor_1.self)
      (base + 32).storeBytes(of: 32, toByteOffset: 8, as: UInt.self)
      (base + 32).storeBytes(of: layout, toByteOffset: 24, as: UInt.self)
      return try body(base)
    }
  }

  @Test func liveBlocksInEveryForm() throws {
    let nullLayout = try withHandBuiltBlock(layout: 0) { try BlockInfo(inspecting: $0) }
    #expect(nullLayout.extendedLayout == ExtendedLayout.none)
    let inline = try withHandBuiltBlock(layout: 0x211) { try BlockInfo(inspecting: $0) }
    #expect(inline.extendedLayout == ExtendedLayout(inlineValue: 0x211))
    let bytes: [UInt8] = [0x3f, 0x30, 0x50, 0x60, 0x00]
    try bytes.withUnsafeBufferPointer { buffer in
      try withHandBuiltBlock(layout: UInt(bitPattern: buffer.baseAddress)) { block in
        let layout = try #require(try BlockInfo(inspecting: block).extendedLayout)
        #expect(layout.form == .bytes)
        #expect(layout.strongCount == 17)
        #expect(layout.weakCount == 1)
        #expect(layout.unretainedCount == 1)
      }
    }
    let empty: [UInt8] = [0x00]
    try empty.withUnsafeBufferPointer { buffer in
      try withHandBuiltBlock(layout: UInt(bitPattern: buffer.baseAddress)) { block in
        let layout = try #require(try BlockInfo(inspecting: block).extendedLayout)
        #expect(layout.form == .bytes)
        #expect(layout.instructions.isEmpty)
      }
    }
    let bad: [UInt8] = [0x30, 0x8f, 0x00]
    bad.withUnsafeBufferPointer { buffer in
      let result = withHandBuiltBlock(layout: UInt(bitPattern: buffer.baseAddress)) { block in
        Result { () throws(BlockInspectionError) in try BlockInfo(inspecting: block) }
      }
      guard case .failure(let error) = result else {
        Issue.record("a reserved opcode was accepted")
        return
      }
      #expect(error.kind == .malformedLayout)
      #expect(error.address == UInt(bitPattern: buffer.baseAddress) + 1)
    }
  }
}
