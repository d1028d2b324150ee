import BlockSignatureFFI
import Testing

/// The prepared calls shared by blocks of one signature are kept up to a bound; a block whose
/// prepared call the cache has dropped keeps working.
@Suite struct PreparedSignatureTests {
  /// A block returning the sum of its `count` int arguments: a distinct signature per count.
  static func summing(_ count: Int) throws -> DynamicBlock {
    try DynamicBlock(signature: "i@?" + String(repeating: "i", count: count)) { arguments in
      .signed(arguments.reduce(0) { sum, value in if case .signed(let x) = value { sum + x } else { sum } })
    }
  }

  @Test func manySignaturesStayWithinTheBoundAndOldBlocksStillWork() throws {
    let first = try Self.summing(1)
    let limit = DynamicBlock.preparedSignatureLimit
    for count in 2...(limit + 40) {
      let made = try Self.summing(count)
      let result = try made.withBlock { block throws(InvocationError) in
        try BlockInvocation(block: block).invoke((1...count).map { .signed(Int128($0)) })
      }
      #expect(result == .signed(Int128(count * (count + 1) / 2)))
      #expect(DynamicBlock.preparedSignatureCount <= limit)
    }
    // `first`'s prepared call has been dropped from the cache by now; the block keeps it.
    let again = try first.withBlock { block throws(InvocationError) in
      try BlockInvocation(block: block).invoke([.signed(41)])
    }
    #expect(again == .signed(41))
    let remade = try Self.summing(1).withBlock { block throws(InvocationError) in
      try BlockInvocation(block: block).invoke([.signed(7)])
    }
    #expect(remade == .signed(7))
  }
}
