import BlockSignature
import BlockSignatureBinary
import BlockSignatureFFI
import BlockSignatureRuntime
import Foundation
import LibXML2Support
import Synchronization
import Testing

/// The README's library examples, kept compiling and true.
@Suite struct ReadmeExampleTests {
  @Test func liveBlock() throws {
    let block: @convention(block) (Int32, Int) -> Int32 = { a, b in a &+ Int32(truncatingIfNeeded: b) }
    let pointer = unsafeBitCast(block, to: UnsafeRawPointer.self)
    let info = try withExtendedLifetime(block) { try BlockInfo(inspecting: pointer) }
    #expect("\(info.kind)" == "heap")
    #expect(info.signature == "i20@?0i8q12")
    #expect(info.cDeclaration == "int (^)(int, long)")
    #expect(info.flags.names == ["BLOCK_NEEDS_FREE", "BLOCK_HAS_COPY_DISPOSE", "BLOCK_HAS_SIGNATURE"])
    #expect(info.referenceCount == 1)
    #expect(BlocksRuntime.current?.path.hasSuffix("/usr/lib/swift/linux/libBlocksRuntime.so") == true)
  }

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

  @Test func callingABlock() throws {
    let scale: @convention(block) (Int32, Double) -> Double = { Double($0) * $1 }
    let invocation = try BlockInvocation(block: unsafeBitCast(scale, to: UnsafeRawPointer.self))
    #expect(try invocation.invoke([.signed(3), .double(0.5)]) == .double(1.5))
    #expect(throws: InvocationError.self) { try invocation.invoke([.signed(3)]) }
    let declared = try BlockInvocation(
      block: unsafeBitCast(scale, to: UnsafeRawPointer.self), declaredSignature: "d28@0:8i16d20")
    #expect(declared.signature.description == "d20@?0i8d12")
  }
}

extension ReadmeExampleTests {
  @Test func makingABlock() throws {
    let add = try DynamicBlock(signature: "i16@?0i8i12") { arguments in
      guard case .signed(let a) = arguments[0], case .signed(let b) = arguments[1] else { return .signed(0) }
      return .signed(a + b)
    }
    typealias Add = @convention(block) (Int32, Int32) -> Int32
    #expect(add.withBlock { unsafeBitCast($0, to: Add.self)(2, 3) } == 5)
    // Released through the library itself: this file does not import CBlockABI.
    let kept = add.retainedBlock()
    #expect(unsafeBitCast(kept, to: Add.self)(40, 2) == 42)
    DynamicBlock.release(kept)

    nonisolated(unsafe) var comparisons = 0
    let compare: @convention(block) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int32 = { a, b in
      comparisons += 1
      return a!.load(as: Int32.self) < b!.load(as: Int32.self) ? -1 : 1
    }
    let trampoline = try CFunctionTrampoline(block: unsafeBitCast(compare, to: UnsafeRawPointer.self))
    var numbers: [Int32] = [3, 1, 2]
    typealias Compare = @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int32
    trampoline.withFunction(as: Compare.self) { qsort(&numbers, 3, 4, $0) }
    #expect(numbers == [1, 2, 3])
    #expect(comparisons > 0)
  }
}

extension ReadmeExampleTests {
  @Test func handlersInSwift6() throws {
    let calls = Mutex(0)
    let tick = try DynamicBlock(signature: "i@?") { _ in
      .signed(
        Int128(
          calls.withLock { count in
            count += 1
            return count
          }))
    }
    typealias Tick = @convention(block) () -> Int32
    tick.withBlock { block in
      for _ in 0..<3 { _ = unsafeBitCast(block, to: Tick.self)() }
    }
    #expect(calls.withLock { $0 } == 3)

    struct Refused: Error {}
    let refusing = try DynamicBlock(signature: "i@?", failure: .returnValue(.signed(-1))) { _ in throw Refused() }
    #expect(refusing.withBlock { unsafeBitCast($0, to: Tick.self)() } == -1)
    let twice = try DynamicBlock(
      signature: "d@?d",
      rawHandler: { call in
        call.result.storeBytes(of: call.argumentAddress(0).load(as: Double.self) * 2, as: Double.self)
      })
    #expect(twice.withBlock { unsafeBitCast($0, to: (@convention(block) (Double) -> Double).self)(1.25) } == 2.5)
  }
}

extension ReadmeExampleTests {
  @Test func dynamicDelegate() throws {
    let saxDescription = SAXFixture.description
    let delegate = try DynamicDelegate(try CallbackTable(parsing: saxDescription, name: "xmlSAXHandler"))
    nonisolated(unsafe) var depth = 0
    nonisolated(unsafe) var outline: [String] = []
    let start: @convention(block) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeRawPointer?) -> Void = {
      _, name, _ in
      outline.append(String(repeating: "  ", count: depth) + String(cString: name!))
      depth += 1
    }
    let end: @convention(block) (UnsafePointer<CChar>?) -> Void = { _ in depth -= 1 }  // no context: allowed
    try delegate.implement("startElement", withBlock: unsafeBitCast(start, to: UnsafeRawPointer.self))
    try delegate.implement("endElement", withBlock: unsafeBitCast(end, to: UnsafeRawPointer.self))

    typealias ParseMemory =
      @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer?, UnsafePointer<CChar>, Int32) ->
      Int32
    let parse = unsafeBitCast(dlsym(dlopen("libxml2.so.2", RTLD_NOW), "xmlSAXUserParseMemory"), to: ParseMemory.self)
    _ = "<a><b/><c><d/></c></a>".withCString { parse(delegate.table, delegate.context, $0, Int32(strlen($0))) }
    #expect(outline == ["a", "  b", "  c", "    d"])
    #expect(depth == 0)
  }
}
