import BlockSignature
import BlockSignatureFFI
import BlockSignatureRuntime
import CBlockABI
import Foundation
import Synchronization
import Testing

/// Counts the deinits of the objects a handler captures.
final class DeinitCounter: Sendable {
  let count = Atomic<Int>(0)
}

final class Tracked: Sendable {
  let counter: DeinitCounter
  init(_ counter: DeinitCounter) { self.counter = counter }
  deinit { counter.count.add(1, ordering: .sequentiallyConsistent) }
}

@Suite struct DynamicBlockTests {
  @Test func swiftCallsAMadeBlock() throws {
    let made = try DynamicBlock(signature: "i16@?0i8i12") { arguments in
      guard case .signed(let a) = arguments[0], case .signed(let b) = arguments[1] else { return .signed(0) }
      return .signed(a + b)
    }
    let add = unsafeBitCast(made.unsafeBlock, to: (@convention(block) (Int32, Int32) -> Int32).self)
    #expect(add(2, 3) == 5)
    #expect(add(-7, 3) == -4)
  }

  @Test func inspectsLikeAClangBlock() throws {
    let made = try DynamicBlock(signature: "{?=qqq}16@?0d8") { _ in .aggregate([.signed(1), .signed(2), .signed(3)]) }
    let info = try BlockInfo(inspecting: made.unsafeBlock)
    #expect(info.signature == "{?=qqq}16@?0d8")
    #expect(info.flags.contains(.hasSignature))
    #expect(info.flags.contains(.hasCopyDispose))
    #expect(info.flags.contains(.useStret))
    #expect(info.kind == .heap)
  }

  @Test func handlerDiesWithTheLastCopy() throws {
    let counter = DeinitCounter()
    var copy: UnsafeMutableRawPointer?
    do {
      let tracked = Tracked(counter)
      let made = try DynamicBlock(signature: "v8@?0") { _ in
        _ = tracked
        return .void
      }
      copy = _Block_copy(made.unsafeBlock)
    }
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 0)
    _Block_release(copy)
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 1)
  }
}

extension DynamicBlockTests {
  /// The descriptor holds a block-form signature with offsets as written, and converts any
  /// other form with the offsets clang writes for the same block (compiled here).
  @Test(arguments: [
    ("i16@?0i8i12", "^int(int a, int b) { return a + b; }"),  // as written
    ("i@?ii", "^int(int a, int b) { return a + b; }"),  // offsets added
    ("i24@0:8i16i20", "^int(int a, int b) { return a + b; }"),  // method form
    ("ii4i8", "^int(int a, int b) { return a + b; }"),  // function form
    ("c@?c", "^char(char c) { return c; }"),
    ("D@?sD", "^long double(short s, long double x) { return x; }"),
  ])
  func descriptorHoldsTheSignature(_ given: String, _ clangLiteral: String) throws {
    let held = try clangBlockSignature(clangLiteral)
    let made = try DynamicBlock(signature: given) { _ in .signed(0) }
    #expect(made.signatureText == held)
    #expect(try BlockInfo(inspecting: made.unsafeBlock).signature == held)
  }

  @Test func refusesWhatCannotBeCalled() throws {
    #expect(throws: InvocationError.self) { try DynamicBlock(signature: "i@?<4f>") { _ in .signed(0) } }
    #expect(throws: InvocationError.self) { try DynamicBlock(signature: "i@?{S}") { _ in .signed(0) } }
    #expect(throws: InvocationError.self) { try DynamicBlock(signature: "i@?(") { _ in .signed(0) } }
    do {
      _ = try DynamicBlock(signature: "C@?", failure: .returnValue(.signed(300))) { _ in .signed(0) }
      Issue.record("a fallback of 300 for unsigned char was accepted")
    } catch {
      #expect(error.kind == .outOfRange)
      #expect(error.description.contains("fallback return value"))
    }
  }
}

extension DynamicBlockTests {
  @Test func aStackBlockBeforeCopyAndAHeapBlockAfter() throws {
    let counter = DeinitCounter()
    let kept = try Self.copyOfAStackBlock(counter: counter)
    let heap = try BlockInfo(inspecting: kept)
    #expect(heap.kind == .heap)
    #expect(heap.signature == "q16@?0q8")
    #expect(heap.referenceCount != nil)
    #expect(unsafeBitCast(kept, to: (@convention(block) (Int64) -> Int64).self)(5) == 15)
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 0, "the heap copy holds the handler")
    CBlockABI._Block_release(kept)
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 1)
  }

  /// Inspects and calls a stack block, and returns the heap copy it makes of it.
  private static func copyOfAStackBlock(counter: DeinitCounter) throws -> UnsafeMutableRawPointer {
    let tracked = Tracked(counter)
    return try DynamicBlock.withStackBlock(
      signature: "q16@?0q8",
      handler: { arguments in
        _ = tracked
        guard case .signed(let x) = arguments[0] else { return .signed(0) }
        return .signed(x * 3)
      }
    ) { block throws(InvocationError) in
      let info = try? BlockInfo(inspecting: block)
      #expect(info?.kind == .stack)
      #expect(info?.signature == "q16@?0q8")
      #expect(info?.copyHelperAddress != nil)
      #expect(info?.disposeHelperAddress != nil)
      // Called as C calls it: Swift would copy the stack block to call it.
      #expect((try? BlockInvocation(block: block).invoke([.signed(14)])) == .signed(42))
      return _Block_copy(block)!
    }
  }

  struct Refusal: Error {}

  @Test func failedHandlersReturnTheChosenValue() throws {
    typealias IntBlock = @convention(block) (Int32) -> Int32
    let reported = Mutex<[String]>([])
    let zero = try DynamicBlock(
      signature: "i@?i", failure: .returnZero.reporting { error in reported.withLock { $0.append("\(error)") } },
      handler: { _ in throw Refusal() })
    #expect(zero.withBlock { unsafeBitCast($0, to: IntBlock.self)(7) } == 0)
    #expect(reported.withLock { $0 } == ["Refusal()"])

    let fallback = try DynamicBlock(signature: "i@?i", failure: .returnValue(.signed(-1))) { arguments in
      guard case .signed(let x) = arguments[0], x >= 0 else { throw Refusal() }
      return .signed(x + 1)
    }
    #expect(fallback.withBlock { unsafeBitCast($0, to: IntBlock.self)(1) } == 2)
    #expect(fallback.withBlock { unsafeBitCast($0, to: IntBlock.self)(-5) } == -1)

    // A result of the wrong kind or out of range is a failure too, reported as the return value's.
    let wrong = try DynamicBlock(
      signature: "C@?",
      failure: .returnValue(.unsigned(9)).reporting { error in reported.withLock { $0.append("\(error)") } }
    ) { _ in .signed(300) }
    #expect(wrong.withBlock { unsafeBitCast($0, to: (@convention(block) () -> UInt8).self)() } == 9)
    #expect(reported.withLock { $0.last }?.hasPrefix("return value: 300 does not fit unsigned char") == true)
  }

  @Test func aFailedHandlerStopsTheProcessByDefault() async {
    await #expect(processExitsWith: .failure) {
      let made = try DynamicBlock(signature: "v@?", handler: { _ in throw DynamicBlockTests.Refusal() })
      unsafeBitCast(made.unsafeBlock, to: (@convention(block) () -> Void).self)()
    }
  }

  @Test func returnedStringsLiveWithTheBlock() throws {
    let made = try DynamicBlock(signature: "r*@?i") { arguments in
      guard case .signed(let x) = arguments[0] else { return .pointer(0) }
      return .string(x == 0 ? "zero" : "n\(x)")
    }
    let call = unsafeBitCast(made.unsafeBlock, to: (@convention(block) (Int32) -> UnsafePointer<CChar>?).self)
    let first = call(0)
    #expect(first.map { String(cString: $0) } == "zero")
    #expect(call(3).map { String(cString: $0) } == "n3")
    #expect(call(0) == first, "one copy per distinct text")
  }

  @Test func typedHandlersKeepTheArgumentsTheyAreGiven() throws {
    // The array a typed handler gets is filled again for the next call only when no copy of it
    // is kept: the kept ones keep their values.
    let kept = Mutex<[[CValue]]>([])
    let made = try DynamicBlock(signature: "d@?id") { arguments in
      kept.withLock { $0.append(arguments) }
      return .double(0)
    }
    let call = unsafeBitCast(made.unsafeBlock, to: (@convention(block) (Int32, Double) -> Double).self)
    for index in 0..<3 { _ = withExtendedLifetime(made) { call(Int32(index), Double(index) / 2) } }
    #expect(kept.withLock { $0 } == (0..<3).map { [.signed(Int128($0)), .double(Double($0) / 2)] })
  }

  @Test func typedCallsFromManyThreadsAgree() throws {
    let made = try DynamicBlock(signature: "q@?iq") { arguments in
      guard case .signed(let a) = arguments[0], case .signed(let b) = arguments[1] else { return .signed(0) }
      return .signed(a * 1000 + b)
    }
    let wrong = Atomic<Int>(0)
    made.withBlock { block in
      let address = UInt(bitPattern: block)
      DispatchQueue.concurrentPerform(iterations: 8) { thread in
        let call = unsafeBitCast(
          UnsafeRawPointer(bitPattern: address)!, to: (@convention(block) (Int32, Int64) -> Int64).self)
        for index in 0..<2_000 where call(Int32(thread), Int64(index)) != Int64(thread * 1000 + index) {
          wrong.add(1, ordering: .relaxed)
        }
      }
    }
    #expect(wrong.load(ordering: .relaxed) == 0)
  }

  @Test func argumentsOnTheStackReachTheHandler() throws {
    // Seven integers and ten doubles: after the block, two of each go on the stack, interleaved.
    typealias Many =
      @convention(block) (
        Int64, Int64, Int64, Int64, Int64, Int64, Int64, Double, Double, Double, Double, Double, Double, Double,
        Double, Double, Double
      ) -> Double
    let signature = "d@?qqqqqqqdddddddddd"
    let raw = try DynamicBlock(signature: signature) { call in
      var sum = 0.0
      for index in 0..<7 { sum += Double(index + 1) * Double(call.argumentAddress(index).load(as: Int64.self)) }
      for index in 7..<17 { sum += Double(index + 1) * call.argumentAddress(index).load(as: Double.self) }
      call.result.storeBytes(of: sum, as: Double.self)
    }
    let typed = try DynamicBlock(signature: signature) { arguments in
      var sum = 0.0
      for (index, value) in arguments.enumerated() {
        switch value {
        case .signed(let x): sum += Double(index + 1) * Double(x)
        case .double(let x): sum += Double(index + 1) * x
        default: throw Refusal()
        }
      }
      return .double(sum)
    }
    let integers: [Int64] = [3, -5, 7, 11, -13, 17, 19]
    let doubles: [Double] = [0.5, -1.25, 2, 4.5, -8, 16.25, 0.125, -32, 64.5, 1024]
    var expected = 0.0
    for (index, x) in integers.enumerated() { expected += Double(index + 1) * Double(x) }
    for (index, x) in doubles.enumerated() { expected += Double(index + 8) * x }
    for made in [raw, typed] {
      let got = made.withBlock { block in
        let (i, d) = (integers, doubles)
        return unsafeBitCast(block, to: Many.self)(
          i[0], i[1], i[2], i[3], i[4], i[5], i[6], d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9])
      }
      #expect(got == expected)
      #if arch(x86_64)
        #expect(!made.usesLibffiClosure, "scalars: the entry of its own")
      #endif
    }
    #expect(try DynamicBlock(signature: "v@?{?=ii}") { _ in }.usesLibffiClosure, "a structure: libffi")
  }

  @Test func typedNarrowResultsAreWidenedForTheCaller() throws {
    let signedShort = try DynamicBlock(signature: "s@?") { _ in .signed(-3) }
    let unsignedShort = try DynamicBlock(signature: "S@?") { _ in .unsigned(0xFFFE) }
    let flag = try DynamicBlock(signature: "B@?") { _ in .bool(true) }
    for (made, expected) in [(signedShort, UInt64(bitPattern: -3)), (unsignedShort, 0xFFFE), (flag, 1)] {
      let invocation = try BlockInvocation(block: made.unsafeBlock)
      var word = UInt64(0x5555_5555_5555_5555)
      withUnsafeMutableBytes(of: &word) { buffer in
        [UnsafeRawPointer?]().withUnsafeBufferPointer {
          invocation.invoke(result: buffer.baseAddress, arguments: $0.baseAddress ?? UnsafePointer(bitPattern: 8)!)
        }
      }
      #expect(word == expected, "\(made.signatureText): the whole ffi_arg is extended")
    }
  }

  @Test func narrowResultsAreWidenedForTheCaller() throws {
    // A raw handler writes one byte; C callers read the whole register.
    let made = try DynamicBlock(signature: "c@?") { call in
      call.result.storeBytes(of: -3, as: Int8.self)
    }
    let invocation = try BlockInvocation(block: made.unsafeBlock)
    #expect(try invocation.invoke([]) == .signed(-3))
    var word = UInt64.max
    withUnsafeMutableBytes(of: &word) { buffer in
      [UnsafeRawPointer?]().withUnsafeBufferPointer {
        invocation.invoke(result: buffer.baseAddress, arguments: $0.baseAddress ?? UnsafePointer(bitPattern: 8)!)
      }
    }
    #expect(word == UInt64(bitPattern: -3), "the whole ffi_arg is sign-extended")
  }
}

extension DynamicBlockTests {
  /// Resident memory in bytes, from `/proc/self/statm`.
  static func residentBytes() throws -> Int {
    let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
    return Int(fields[1])! * Int(sysconf(Int32(_SC_PAGESIZE)))
  }

  /// Makes, calls, copies and releases `count` blocks of one signature; returns the handlers
  /// released.
  static func makeAndDrop(_ count: Int) throws -> Int {
    let counter = DeinitCounter()
    for index in 0..<count {
      let tracked = Tracked(counter)
      let made = try DynamicBlock(signature: "{?=dd}@?qr*") { arguments in
        _ = tracked
        guard case .signed(let x) = arguments[0] else { return .aggregate([.double(0), .double(0)]) }
        return .aggregate([.double(Double(x)), .double(0.5)])
      }
      let copy = _Block_copy(made.unsafeBlock)
      let result = try BlockInvocation(block: made.unsafeBlock).invoke([.signed(Int128(index)), .string("x")])
      guard result == .aggregate([.double(Double(index)), .double(0.5)]) else { return -1 }
      _Block_release(copy)
    }
    return counter.count.load(ordering: .sequentiallyConsistent)
  }

  /// In a process of its own, so that no other test allocates meanwhile. Under
  /// AddressSanitizer, whose quarantine keeps freed memory, and ThreadSanitizer, whose
  /// allocator and shadow keep what a run touched, resident memory is not compared.
  @Test func tenThousandBlocksLeaveNothingBehind() async throws {
    let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
      guard try DynamicBlockTests.makeAndDrop(1000) == 1000 else { exit(2) }
      let prepared = DynamicBlock.preparedSignatureCount
      let before = try DynamicBlockTests.residentBytes()
      let released = try DynamicBlockTests.makeAndDrop(10_000)
      let growth = try DynamicBlockTests.residentBytes() - before
      let report =
        "released \(released), prepared \(DynamicBlock.preparedSignatureCount - prepared) more, grew \(growth) bytes\n"
      FileHandle.standardError.write(Data(report.utf8))
      let environment = ProcessInfo.processInfo.environment
      let sanitized =
        environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil
        || dlsym(dlopen(nil, RTLD_NOW), "__asan_init") != nil || dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
      let bounded = sanitized || growth < 1 << 20
      exit(released == 10_000 && DynamicBlock.preparedSignatureCount == prepared && bounded ? 0 : 1)
    }
    print("child: " + String(decoding: result?.standardErrorContent ?? [], as: UTF8.self))
  }
}
