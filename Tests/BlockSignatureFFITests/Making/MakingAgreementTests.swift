import BlockSignature
import BlockSignatureFFI
import BlockSignatureRuntime
import Foundation
import Synchronization
import TestSupport
import Testing

/// Blocks made at run time (``DynamicBlock``) and function pointers made from blocks
/// (``CFunctionTrampoline``), called by clang-compiled C on the random block types of
/// ``RandomCallProgram`` (the invocation tests' library).
///
/// Each case checks, against C's own direct call of the case's clang block:
/// - a typed handler sees exactly the values C passed, and C gets back exactly the value it
///   returns (the clang block's result, read by ``CValue/init(loading:from:model:)``);
/// - a raw handler that forwards the argument bytes to the clang block (through
///   ``BlockInvocation``) gives C the clang block's own result (which hashes its arguments), and
///   a `void` block stores the same hash of its arguments;
/// - a function pointer made from the clang block, called by C, does the same;
/// - a copy C keeps (`Block_copy`) works from another thread after the Swift owner is gone,
///   and its handler dies when C releases it;
/// - `BLOCK_USE_STRET` is set exactly when clang sets it on the same signature.
@Suite(.serialized) struct MakingAgreementTests {
  typealias Store = @convention(c) (UnsafeMutableRawPointer) -> Void
  typealias Fold = @convention(c) (UnsafeRawPointer) -> UInt64
  typealias Call = @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer) -> Void
  typealias Keep = @convention(c) (UnsafeRawPointer) -> UnsafeRawPointer
  typealias Release = @convention(c) (UnsafeRawPointer) -> Void
  typealias OnThread = @convention(c) (Call, UnsafeRawPointer, UnsafeMutableRawPointer) -> Int32

  /// What a typed handler saw.
  final class Seen: Sendable {
    let arguments = Mutex<[CValue]?>(nil)
  }

  static func symbol<T>(_ name: String, as type: T.Type) throws -> T {
    try InvocationAgreementTests.symbol(name, as: type)
  }

  @Test(arguments: 0..<InvocationAgreementTests.count) func cCallsMadeBlocks(_ index: Int) throws {
    print("BLOCKSIG_CALL_SEED=\(InvocationAgreementTests.seed) case \(index)")
    let (program, handle) = try InvocationAgreementTests.library.get()
    let testCase = program.cases[index]
    let clangBlock = try Self.symbol("case\(index)_block", as: (@convention(c) () -> UnsafeRawPointer).self)()
    let clangInfo = try BlockInfo(inspecting: clangBlock)
    let signature = try #require(clangInfo.signature)
    let last = try #require(dlsym(handle, "bs_last")).assumingMemoryBound(to: UInt64.self)
    let call = try Self.symbol("case\(index)_call", as: Call.self)
    let size = 4096
    let direct = Buffer(size)
    try Self.symbol("case\(index)_direct", as: Store.self)(direct.pointer)
    let directLast = last.pointee
    let returnType = try MethodSignature(parsing: signature).encoding.returnType
    let expected: CValue = testCase.returnType == nil ? .void : try CValue(loading: returnType, from: direct.pointer)

    // A typed handler returning the clang block's result, holding an object whose deinit counts.
    let seen = Seen()
    let counter = DeinitCounter()
    var made: DynamicBlock? = try {
      let tracked = Tracked(counter)
      return try DynamicBlock(signature: signature) { arguments in
        _ = tracked
        seen.arguments.withLock { $0 = arguments }
        return expected
      }
    }()
    #expect(
      try BlockInfo(inspecting: made!.unsafeBlock).usesStructReturn == clangInfo.usesStructReturn, "STRET as clang")
    let typed = Buffer(size)
    call(made!.unsafeBlock, typed.pointer)
    try expectSeen(seen, testCase)
    try expectResult(index, testCase, typed, direct: direct, path: "typed")

    // A copy C keeps, called on another thread after the Swift owner is gone, then released.
    let keep = try Self.symbol("bs_keep", as: Keep.self)
    let kept = keep(made!.unsafeBlock)
    made = nil
    seen.arguments.withLock { $0 = nil }
    let threaded = Buffer(size)
    #expect(try Self.symbol("bs_call_on_thread", as: OnThread.self)(call, kept, threaded.pointer) == 0)
    try expectSeen(seen, testCase)
    try expectResult(index, testCase, threaded, direct: direct, path: "kept copy on a thread")
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 0, "handler alive while C holds a copy")
    try Self.symbol("bs_release", as: Release.self)(kept)
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 1, "handler released with the last copy")

    // A raw handler forwarding the argument bytes and the result buffer to the clang block.
    let invocation = try BlockInvocation(block: clangBlock)
    let forwarding = try DynamicBlock(signature: signature) { call in
      let pointers = (0..<call.argumentCount).map { Optional(call.argumentAddress($0)) } + [nil]
      pointers.withUnsafeBufferPointer { invocation.invoke(result: call.result, arguments: $0.baseAddress!) }
    }
    last.pointee = 0
    let raw = Buffer(size)
    forwarding.withBlock { call($0, raw.pointer) }
    if testCase.returnType == nil { #expect(last.pointee == directLast, "raw: the clang block saw other arguments") }
    try expectResult(index, testCase, raw, direct: direct, path: "raw")

    // A C function pointer calling the clang block.
    let trampoline = try CFunctionTrampoline(block: clangBlock)
    #expect(trampoline.signature.numberOfArguments == testCase.parameters.count)
    last.pointee = 0
    let function = Buffer(size)
    try Self.symbol("case\(index)_callfn", as: Call.self)(trampoline.unsafeFunctionAddress, function.pointer)
    if testCase.returnType == nil {
      #expect(last.pointee == directLast, "trampoline: the clang block saw other arguments")
    }
    try expectResult(index, testCase, function, direct: direct, path: "trampoline")
  }

  /// The random cases reach both kinds of trampoline, and the direct one with and without a
  /// result in memory (the agreement above then holds for each).
  @Test func trampolinesOfBothKindsAreCovered() throws {
    var direct = 0, directInMemory = 0, forwarded = 0
    for index in 0..<InvocationAgreementTests.count {
      _ = try InvocationAgreementTests.library.get()
      let clangBlock = try Self.symbol("case\(index)_block", as: (@convention(c) () -> UnsafeRawPointer).self)()
      let trampoline = try CFunctionTrampoline(block: clangBlock)
      guard trampoline.callsTheBlockDirectly else {
        forwarded += 1
        continue
      }
      direct += 1
      if trampoline.signature.encoding.argumentPlacement(for: trampoline.signature.model).returnsInMemory == true {
        directInMemory += 1
      }
    }
    #expect(direct > directInMemory && directInMemory > 0 && forwarded > 0, "\(direct) \(directInMemory) \(forwarded)")
  }

  /// The random cases reach both invokes of made blocks: the entry for scalars and libffi's
  /// closure (the agreement above then holds for each).
  @Test func madeBlocksOfBothInvokesAreCovered() throws {
    let (program, _) = try InvocationAgreementTests.library.get()
    var entry = 0, closure = 0
    for index in program.cases.indices {
      let clangBlock = try Self.symbol("case\(index)_block", as: (@convention(c) () -> UnsafeRawPointer).self)()
      let signature = try #require(try BlockInfo(inspecting: clangBlock).signature)
      let made = try DynamicBlock(signature: signature) { _ in }
      if made.usesLibffiClosure { closure += 1 } else { entry += 1 }
    }
    #if arch(x86_64)
      #expect(entry > 0 && closure > 0, "\(entry) \(closure)")
    #else
      #expect(entry == 0)
    #endif
  }

  private func expectSeen(_ seen: Seen, _ testCase: RandomCallProgram.Case) throws {
    let arguments = try #require(seen.arguments.withLock { $0 }, "the handler did not run")
    #expect(arguments.count == testCase.parameters.count)
    for (position, (got, want)) in zip(arguments, testCase.arguments).enumerated() {
      #expect(InvocationAgreementTests.same(got, want), "argument \(position + 1): \(got) against \(want)")
    }
  }

  private func expectResult(
    _ index: Int, _ testCase: RandomCallProgram.Case, _ result: Buffer, direct: Buffer, path: String
  ) throws {
    guard testCase.returnType != nil else { return }
    let fold = try Self.symbol("case\(index)_fold", as: Fold.self)
    #expect(fold(result.pointer) == fold(direct.pointer), "\(path): C got another result")
  }
}
