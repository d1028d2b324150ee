import BlockSignature
import BlockSignatureFFI
import BlockSignatureRuntime
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite struct BlockInvocationTests {
  /// `unsafeBlock` is the invocation's own reference to the block, usable while the
  /// invocation lives whatever becomes of the caller's.
  @Test func unsafeBlockIsTheInvocationsCopy() throws {
    let invocation = try Self.invocationOfAHeapBlock()
    try withExtendedLifetime(invocation) {
      let info = try BlockInfo(inspecting: invocation.unsafeBlock)
      #expect(info.kind == .heap)
      #expect(info.signature == "i12@?0i8")
      #expect(info.referenceCount == 1, "the caller's reference is gone; the invocation's remains")
      #expect(unsafeBitCast(invocation.unsafeBlock, to: (@convention(block) (Int32) -> Int32).self)(40) == 42)
    }
  }

  /// An invocation of a heap block whose only other reference is dropped on return.
  @inline(never) static func invocationOfAHeapBlock() throws -> BlockInvocation {
    let step: Int32 = 2
    let block: @convention(block) (Int32) -> Int32 = { $0 + step }
    return try withExtendedLifetime(block) {
      try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self))
    }
  }

  @Test func callsASwiftBlockWithTypedValues() throws {
    let block: @convention(block) (Int32, Double) -> Double = { Double($0) * $1 }
    let invocation = try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self))
    #expect(invocation.argumentCount == 2)
    #expect(invocation.signature.description == "d20@?0i8d12")
    #expect(try invocation.invoke([.signed(3), .double(0.5)]) == .double(1.5))
    #expect(try invocation.invoke([.unsigned(4), .signed(2)]) == .double(8))
  }

  @Test func wrongValuesNameTheArgumentAndPath() throws {
    let block: @convention(block) (UInt8, Bool) -> Int = { Int($0) + ($1 ? 1000 : 0) }
    let invocation = try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self))
    #expect(try invocation.invoke([.unsigned(255), .bool(true)]) == .signed(1255))
    let cases: [([CValue], InvocationError.Kind, String)] = [
      ([.signed(300), .bool(true)], .outOfRange, "argument 1: 300 does not fit unsigned char (0...255)"),
      ([.signed(-1), .bool(true)], .outOfRange, "argument 1: -1 does not fit unsigned char (0...255)"),
      (
        [.string("x"), .bool(true)], .typeMismatch,
        "argument 1: expected an integer for unsigned char, got string \"x\""
      ),
      ([.signed(1), .signed(2)], .typeMismatch, "argument 2: expected true or false for _Bool, got 2"),
      ([.signed(1)], .argumentCount, "the block takes 2 arguments, got 1"),
    ]
    for (arguments, kind, message) in cases {
      #expect {
        _ = try invocation.invoke(arguments)
      } throws: { error in
        guard let error = error as? InvocationError else { return false }
        return error.kind == kind && error.description == message
      }
    }
  }

  @Test func scalarsAtTheEdgesOfTheirRanges() throws {
    // Stored directly when of their type's kind and in range; refused one past the edge.
    let block: @convention(block) (Int8, UInt64, Int16) -> Int64 = { a, b, c in
      Int64(a) &+ Int64(truncatingIfNeeded: b) &+ Int64(c)
    }
    let invocation = try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self))
    #expect(try invocation.invoke([.signed(-128), .unsigned(UInt128(UInt64.max)), .signed(-32768)]) == .signed(-32897))
    #expect(try invocation.invoke([.signed(127), .unsigned(0), .signed(32767)]) == .signed(32894))
    for (arguments, message) in [
      ([CValue.signed(128), .unsigned(0), .signed(0)], "argument 1: 128 does not fit char (-128...127)"),
      ([.signed(0), .unsigned(UInt128(UInt64.max) + 1), .signed(0)], "argument 2: 18446744073709551616 does not fit"),
      ([.signed(0), .unsigned(0), .signed(-32769)], "argument 3: -32769 does not fit short (-32768...32767)"),
    ] {
      #expect {
        _ = try invocation.invoke(arguments)
      } throws: { error in
        (error as? InvocationError)?.description.hasPrefix(message) == true
      }
    }
  }

  @Test func aDeclaredSignatureIsCheckedAgainstTheBlocks() throws {
    let block: @convention(block) (Int32) -> Int32 = { $0 &* 2 }
    let fits = try BlockInvocation(
      block: unsafeBitCast(block, to: UnsafeRawPointer.self), declaredSignature: "i20@0:8i16")
    #expect(fits.signature.description == "i12@?0i8")
    #expect(try fits.invoke([.signed(21)]) == .signed(42))
    do {
      _ = try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self), declaredSignature: "d16@?0d8")
      Issue.record("an incompatible declaration was accepted")
    } catch {
      #expect(error.kind == .incompatibleSignature)
      #expect(!error.diagnostics.isEmpty)
    }
    #expect(throws: InvocationError.self) {
      try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self), declaredSignature: "i12@?0{")
    }
  }

  @Test func forwardsAMethodFormFrame() throws {
    let block: @convention(block) (Int32, Double) -> Double = { Double($0) + $1 }
    let invocation = try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self))
    let method = try MethodSignature(parsing: "d28@0:8i16d20")
    let forwarding = try invocation.forwarding(from: method)
    #expect(forwarding.offsets == [16, 20])
    let frame = UnsafeMutableRawPointer.allocate(byteCount: 32, alignment: 16)
    defer { frame.deallocate() }
    frame.storeBytes(of: 40, toByteOffset: 16, as: Int32.self)
    frame.storeBytes(of: 2.5, toByteOffset: 20, as: Double.self)
    let result = UnsafeMutableRawPointer.allocate(byteCount: invocation.resultBufferSize, alignment: 16)
    defer { result.deallocate() }
    invocation.invoke(frame: frame, forwarding: forwarding, result: result)
    #expect(result.load(as: Double.self) == 42.5)
    #expect(throws: InvocationError.self) { try invocation.forwarding(from: MethodSignature(parsing: "d28@0:8d16i24")) }
    #expect(throws: InvocationError.self) { try invocation.forwarding(from: MethodSignature(parsing: "d20@?0i8d12")) }
  }

  @Test func theInvocationKeepsItsOwnCopyOfTheBlock() throws {
    var invocation: BlockInvocation?
    do {
      let base = Int.random(in: 1...100)
      let block: @convention(block) (Int) -> Int = { $0 + base }
      invocation = try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self))
      #expect(try invocation?.invoke([.signed(1)]) == .signed(Int128(base + 1)))
    }
    #expect(try invocation?.invoke([.signed(0)]) != .signed(0))
  }

  @Test func concurrentCallsAgreeWithSerialOnes() throws {
    let block: @convention(block) (Int64, Double) -> Double = { Double($0) * 3 + $1 }
    let invocation = try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self))
    let serial = try (0..<200).map { try invocation.invoke([.signed(Int128($0)), .double(0.25)]) }
    let failures = Mutex(0)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for index in 0..<200 {
        let value = try? invocation.invoke([.signed(Int128(index)), .double(0.25)])
        if value != serial[index] { failures.withLock { $0 += 1 } }
      }
    }
    #expect(failures.withLock { $0 } == 0)
  }

  /// One libffi in the process: the one this target links is the one Foundation's
  /// dependencies load.
  @Test func theProcessMapsOneLibffi() throws {
    let block: @convention(block) () -> Void = {}
    _ = try BlockInvocation(block: unsafeBitCast(block, to: UnsafeRawPointer.self)).invoke([])
    // /proc files report size 0: read to the end rather than by size.
    let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
    let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    let paths = Set(
      maps.split(separator: "\n").compactMap { line in
        line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).first.map(String.init)
      }.filter { $0.contains("libffi") })
    #expect(paths.count == 1, "\(paths)")
  }

  /// A type far larger than any call passes is refused before anything is read or allocated.
  @Test func loadingAHugeTypeIsRefused() throws {
    let huge = try TypeEncoding(parsing: "{S=[1048576[1048576c]]}")
    var byte: UInt8 = 0
    _ = withUnsafeBytes(of: &byte) { bytes in
      #expect {
        _ = try CValue(loading: huge, from: bytes.baseAddress!)
      } throws: { error in
        (error as? InvocationError)?.kind == .unsupportedType
      }
    }
    let small = try TypeEncoding(parsing: "{S=[2C]}")
    var pair: (UInt8, UInt8) = (7, 9)
    let loaded = try withUnsafeBytes(of: &pair) { try CValue(loading: small, from: $0.baseAddress!) }
    #expect(loaded == .aggregate([.aggregate([.unsigned(7), .unsigned(9)])]))
  }
}
