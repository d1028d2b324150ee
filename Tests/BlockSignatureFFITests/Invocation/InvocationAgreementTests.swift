import BlockSignature
import BlockSignatureFFI
import Foundation
import TestSupport
import Testing

/// Calls through ``BlockInvocation`` against calls made by clang-compiled C, on random block
/// types (``RandomCallProgram``): integers of every width with `__int128`, `_Bool`, `float`,
/// `double`, `long double`, `_Complex` of the three, pointers, strings, structures with arrays
/// and nested structures, unions; global and heap blocks; enough arguments to reach the stack.
///
/// The arguments' truth is the block's own hash of them (returned through its result, or stored
/// in `bs_last`); the result's truth is C's fold of it, member by member. Each case checks:
/// - the raw path, fed the argument bytes C stores, against the direct C call;
/// - the typed path, fed ``CValue``s, against the same call, and its result against
///   ``CValue/init(loading:from:model:)`` of C's result;
/// - ``CValue/init(loading:from:model:)`` of each argument C stores against the value it was made from.
///
/// `BLOCKSIG_CALL_SEED` fixes the seed; `BLOCKSIG_CALL_COUNT` the number of cases (default 80).
@Suite(.serialized) struct InvocationAgreementTests {
  static let seed = ProcessInfo.processInfo.environment["BLOCKSIG_CALL_SEED"].flatMap(UInt64.init) ?? 20_261_127
  static let count = ProcessInfo.processInfo.environment["BLOCKSIG_CALL_COUNT"].flatMap(Int.init) ?? 80

  /// The compiled library of the random cases, loaded once.
  nonisolated(unsafe) static let library:
    Result<(program: RandomCallProgram, handle: UnsafeMutableRawPointer), any Error> = Result {
      let program = RandomCallProgram(seed: seed, count: count)
      return (program, try CompiledCLibrary(program.source, named: "calls").handle)
    }

  static func symbol<T>(_ name: String, as type: T.Type) throws -> T {
    let address = try #require(dlsym(try library.get().handle, name), "no symbol \(name)")
    return unsafeBitCast(address, to: type)
  }

  typealias Store = @convention(c) (UnsafeMutableRawPointer) -> Void
  typealias Fold = @convention(c) (UnsafeRawPointer) -> UInt64

  @Test(arguments: 0..<count) func agreesWithClang(_ index: Int) throws {
    print("BLOCKSIG_CALL_SEED=\(Self.seed) case \(index)")
    let testCase = try Self.library.get().program.cases[index]
    let block = try Self.symbol("case\(index)_block", as: (@convention(c) () -> UnsafeRawPointer).self)()
    let invocation = try BlockInvocation(block: block)
    #expect(invocation.argumentCount == testCase.parameters.count)

    let size = 4096  // more than any generated type (4 × 4 × 32 bytes at most)
    let direct = Buffer(size)
    let last = try #require(dlsym(try Self.library.get().handle, "bs_last")).assumingMemoryBound(to: UInt64.self)
    try Self.symbol("case\(index)_direct", as: Store.self)(direct.pointer)
    let directLast = last.pointee

    // The arguments as C lays them out, and their typed view.
    let arguments = try (1...max(1, testCase.parameters.count)).prefix(testCase.parameters.count).map { position in
      let buffer = Buffer(size)
      try Self.symbol("case\(index)_arg\(position)", as: Store.self)(buffer.pointer)
      let type = invocation.signature.encoding.arguments[position].type
      let loaded = try CValue(loading: type, from: buffer.pointer)
      #expect(Self.same(loaded, testCase.arguments[position - 1]), "argument \(position): \(loaded)")
      return buffer
    }

    // Raw path.
    let raw = Buffer(size)
    last.pointee = 0
    let pointers = arguments.map { UnsafeRawPointer($0.pointer) as UnsafeRawPointer? } + [nil]
    pointers.withUnsafeBufferPointer { invocation.invoke(result: raw.pointer, arguments: $0.baseAddress!) }
    try check(index, testCase, result: raw, direct: direct, last: last.pointee, directLast: directLast, path: "raw")

    // Typed path.
    last.pointee = 0
    let typed = try invocation.invoke(testCase.arguments)
    if testCase.returnType == nil {
      #expect(typed == .void)
      #expect(last.pointee == directLast, "typed: the block saw other arguments")
    } else {
      let expected = try CValue(loading: invocation.signature.encoding.returnType, from: direct.pointer)
      #expect(Self.same(typed, expected), "typed: \(typed) against \(expected)")
    }
  }

  private func check(
    _ index: Int, _ testCase: RandomCallProgram.Case, result: Buffer, direct: Buffer, last: UInt64, directLast: UInt64,
    path: String
  ) throws {
    guard testCase.returnType != nil else {
      #expect(last == directLast, "\(path): the block saw other arguments")
      return
    }
    let fold = try Self.symbol("case\(index)_fold", as: Fold.self)
    #expect(fold(result.pointer) == fold(direct.pointer), "\(path): the result differs from C's call")
  }

  /// Equality with floating-point values compared by their bits.
  static func same(_ a: CValue, _ b: CValue) -> Bool {
    switch (a, b) {
    case (.float(let x), .float(let y)): x.bitPattern == y.bitPattern
    case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern
    case (.longDouble(let x), .longDouble(let y)):
      x.significandBitPattern == y.significandBitPattern && x.exponentBitPattern == y.exponentBitPattern
        && x.sign == y.sign
    case (.complex(let r1, let i1), .complex(let r2, let i2)): same(r1, r2) && same(i1, i2)
    case (.aggregate(let x), .aggregate(let y)): x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case (.union(let m1, let v1), .union(let m2, let v2)): m1 == m2 && same(v1, v2)
    default: a == b
    }
  }
}

/// Zeroed bytes aligned to 16, freed with the object.
final class Buffer {
  let pointer: UnsafeMutableRawPointer
  init(_ size: Int) {
    pointer = .allocate(byteCount: size, alignment: 16)
    pointer.initializeMemory(as: UInt8.self, repeating: 0, count: size)
  }
  deinit { pointer.deallocate() }
}
