import BlockSignature
import BlockSignatureFFI
import Testing

@Suite struct InvocationSmokeTests {
  @Test func callsASwiftBlockWithTypedValues() throws {
    let block: @convention(block) (Int32, Double) -> Double = { Double($0) * $1 }
    let invocation = try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self))
    #expect(invocation.argumentCount == 2)
    #expect(try invocation.invoke([.signed(3), .double(0.5)]) == .double(1.5))
    #expect(throws: InvocationError.self) { try invocation.invoke([.signed(3)]) }
  }

  @Test func outOfRangeNamesTheArgument() throws {
    let block: @convention(block) (UInt8) -> Int = { Int($0) }
    let invocation = try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self))
    #expect(try invocation.invoke([.unsigned(255)]) == .signed(255))
    do {
      _ = try invocation.invoke([.signed(300)])
      Issue.record("no error")
    } catch {
      #expect(error.kind == .outOfRange)
      #expect(error.description == "argument 1: 300 does not fit unsigned char (0...255)")
    }
  }
}
