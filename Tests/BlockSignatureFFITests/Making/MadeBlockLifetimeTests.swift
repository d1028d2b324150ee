import BlockSignatureFFI
import CBlockABI
import Foundation
import Synchronization
import TestSupport
import Testing

/// A C library, compiled with clang -fblocks, that calls and keeps blocks and function pointers.
/// It is not linked with a blocks runtime: `Block_copy` resolves to the one the process has
/// loaded (the toolchain's), so no second runtime comes in.
enum LifetimeFixture {
  static let source = #"""
    #include <Block.h>
    int call_adder(int (^block)(int, int), int a, int b) { return block(a, b); }
    static int (^kept)(int, int);
    void keep_adder(int (^block)(int, int)) { kept = Block_copy(block); }
    int call_kept(int a, int b) { return kept(a, b); }
    void drop_kept(void) { Block_release(kept); kept = 0; }
    int call_function(int (*function)(int, int), int a, int b) { return function(a, b); }
    """#

  static let library = Result { try CompiledCLibrary(source, named: "lifetime") }

  static func symbol<T>(_ name: String, as type: T.Type) throws -> T { try library.get().symbol(name, as: type) }

  /// A made `int (^)(int, int)` adding its arguments, whose handler holds a `Tracked`.
  static func adder(_ counter: DeinitCounter) throws -> DynamicBlock {
    let tracked = Tracked(counter)
    return try DynamicBlock(signature: "i16@?0i8i12") { arguments in
      _ = tracked
      guard case .signed(let a) = arguments[0], case .signed(let b) = arguments[1] else { return .signed(-1) }
      return .signed(a + b)
    }
  }
}

/// The made block's pointer reached without `withExtendedLifetime`: each test drops its last
/// Swift reference to the `DynamicBlock` (a temporary) before or while C uses the block, so the
/// object is released at once in any build, as an optimized build may release a named one.
@Suite struct MadeBlockLifetimeTests {
  typealias CallAdder = @convention(c) (UnsafeRawPointer, Int32, Int32) -> Int32

  @Test func aTemporaryDynamicBlockDiesAfterItsLastUse() throws {
    // What the accessors below guard against: reading `unsafeBlock` from a temporary leaves a
    // pointer to a block whose handler is already released.
    let counter = DeinitCounter()
    let dangling = try LifetimeFixture.adder(counter).unsafeBlock
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 1)
    _ = dangling  // not followed: the block is freed
  }

  @Test func withBlockKeepsTheBlockAliveWhileCCallsIt() throws {
    let callAdder = try LifetimeFixture.symbol("call_adder", as: CallAdder.self)
    let counter = DeinitCounter()
    let (sum, aliveDuringCall) = try LifetimeFixture.adder(counter).withBlock { block in
      (callAdder(block, 2, 3), counter.count.load(ordering: .sequentiallyConsistent) == 0)
    }
    #expect(sum == 5)
    #expect(aliveDuringCall)
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 1)
  }

  @Test func aRetainedBlockOutlivesItsDynamicBlock() throws {
    let callAdder = try LifetimeFixture.symbol("call_adder", as: CallAdder.self)
    let counter = DeinitCounter()
    let block = try LifetimeFixture.adder(counter).retainedBlock()
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 0)
    #expect(callAdder(block, 40, 2) == 42)
    DynamicBlock.release(block)
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 1)
  }

  @Test func cKeepsAMadeBlockHandedOverInsideWithBlock() throws {
    let keep = try LifetimeFixture.symbol("keep_adder", as: (@convention(c) (UnsafeRawPointer) -> Void).self)
    let callKept = try LifetimeFixture.symbol("call_kept", as: (@convention(c) (Int32, Int32) -> Int32).self)
    let dropKept = try LifetimeFixture.symbol("drop_kept", as: (@convention(c) () -> Void).self)
    let counter = DeinitCounter()
    try LifetimeFixture.adder(counter).withBlock { keep($0) }
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 0)
    #expect(callKept(7, 8) == 15)
    dropKept()
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 1)
  }

  @Test func withFunctionKeepsTheTrampolineAliveWhileCCallsIt() throws {
    typealias CallFunction = @convention(c) (UnsafeRawPointer, Int32, Int32) -> Int32
    typealias Add = @convention(c) (Int32, Int32) -> Int32
    let callFunction = try LifetimeFixture.symbol("call_function", as: CallFunction.self)
    let counter = DeinitCounter()
    let sum = try CFunctionTrampoline(LifetimeFixture.adder(counter)).withFunction { callFunction($0, 20, 22) }
    #expect(sum == 42)
    // The trampoline held the last copy of the block: both are gone.
    #expect(counter.count.load(ordering: .sequentiallyConsistent) == 1)
    let typed = try CFunctionTrampoline(LifetimeFixture.adder(counter)).withFunction(as: Add.self) { $0(1, 2) }
    #expect(typed == 3)
  }
}
