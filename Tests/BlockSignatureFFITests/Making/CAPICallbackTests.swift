import BlockSignature
import BlockSignatureFFI
import Foundation
import Synchronization
import Testing

/// Capturing Swift closures handed to real C APIs as plain function pointers through
/// ``CFunctionTrampoline``: APIs with no context parameter (`qsort`, `bsearch`, `tsearch` and
/// `twalk`) and a thread's start routine.
@Suite struct CAPICallbackTests {
  typealias Comparator = @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int32
  typealias ComparatorBlock = @convention(block) (UnsafeRawPointer?, UnsafeRawPointer?) -> Int32

  final class Count: Sendable {
    let value = Atomic<Int>(0)
    func add() { value.add(1, ordering: .relaxed) }
    var current: Int { value.load(ordering: .relaxed) }
  }

  /// A comparator of `Int32`s that captures its direction and counts its calls.
  static func comparator(descending: Bool, count: Count) throws -> CFunctionTrampoline {
    let compare: ComparatorBlock = { a, b in
      count.add()
      let (x, y) = (a!.load(as: Int32.self), b!.load(as: Int32.self))
      let order: Int32 = x < y ? -1 : x > y ? 1 : 0
      return descending ? -order : order
    }
    return try CFunctionTrampoline(block: unsafeBitCast(compare, to: UnsafeRawPointer.self))
  }

  @Test func qsortAndBsearchWithACapturingComparator() throws {
    var numbers: [Int32] = [41, -7, 1000, 3, 3, 0, -250, 17]
    let count = Count()
    let trampoline = try Self.comparator(descending: true, count: count)
    #expect(trampoline.signature.description == "i16^v0^v8")
    let function = trampoline.unsafeFunction(as: Comparator.self)
    numbers.withUnsafeMutableBytes { qsort($0.baseAddress!, 8, 4, function) }
    #expect(numbers == [1000, 41, 17, 3, 3, 0, -7, -250])
    #expect(count.current > 0)

    var key: Int32 = 17
    let found = numbers.withUnsafeBytes { bytes in
      bsearch(&key, bytes.baseAddress!, 8, 4, function).map {
        $0 - UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
      }
    }
    #expect(found == 2 * 4)
    key = 18
    #expect(numbers.withUnsafeBytes { bsearch(&key, $0.baseAddress!, 8, 4, function) } == nil)
  }

  @Test func pthreadStartRoutineCapturesState() throws {
    // Four threads contend for it: a lock ThreadSanitizer follows (see ThreadSafetyTests.Guarded).
    let seen = ThreadSafetyTests.Guarded<[Int]>([])
    let start: @convention(block) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { argument in
      seen.withLock { $0.append(Int(bitPattern: argument)) }
      return UnsafeMutableRawPointer(bitPattern: 0xbeef)
    }
    let trampoline = try CFunctionTrampoline(block: unsafeBitCast(start, to: UnsafeRawPointer.self))
    let routine = trampoline.unsafeFunction(
      as: (@convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?).self)
    var threads: [pthread_t] = []
    for index in 1...4 {
      var thread = pthread_t()
      #expect(pthread_create(&thread, nil, routine, UnsafeMutableRawPointer(bitPattern: index)) == 0)
      threads.append(thread)
    }
    for thread in threads {
      var result: UnsafeMutableRawPointer?
      #expect(pthread_join(thread, &result) == 0)
      #expect(result == UnsafeMutableRawPointer(bitPattern: 0xbeef))
    }
    #expect(seen.withLock { $0.sorted() } == [1, 2, 3, 4])
  }

  @Test func tsearchAndTwalkWithNoContextAtAll() throws {
    let count = Count()
    let comparator = try Self.comparator(descending: false, count: count)
    let compare = comparator.unsafeFunction(as: Comparator.self)
    let keys: [Int32] = [50, 20, 70, 10, 30, 60, 80, 20]
    let storage = UnsafeMutablePointer<Int32>.allocate(capacity: keys.count)
    defer { storage.deallocate() }
    storage.initialize(from: keys, count: keys.count)
    var root: UnsafeMutableRawPointer?
    for index in keys.indices { _ = tsearch(storage + index, &root, compare) }

    // twalk's action: (const void *node, VISIT, int depth); the node points at the key pointer.
    let visited = Mutex<[Int32]>([])
    let action: @convention(block) (UnsafeRawPointer?, UInt32, Int32) -> Void = { node, visit, _ in
      guard visit == postorder.rawValue || visit == leaf.rawValue else { return }
      let key = node!.load(as: UnsafeRawPointer.self).load(as: Int32.self)
      visited.withLock { $0.append(key) }
    }
    let walker = try CFunctionTrampoline(block: unsafeBitCast(action, to: UnsafeRawPointer.self))
    #expect(walker.signature.description == "v16^v0I8i12")
    twalk(root, walker.unsafeFunction(as: (@convention(c) (UnsafeRawPointer?, VISIT, Int32) -> Void).self))
    #expect(visited.withLock { $0 } == [10, 20, 30, 50, 60, 70, 80])
    for index in keys.indices { _ = tdelete(storage + index, &root, compare) }
    #expect(root == nil)
  }

  @Test func directAndForwardedFunctionsAgreeWithCompiledCalls() throws {
    // Five pointer-sized arguments: shifted into the block's registers.
    let five: @convention(block) (Int, Int, Int, Int, Int) -> Int = { $0 - 2 * $1 + 3 * $2 - 4 * $3 + 5 * $4 }
    let shifted = try CFunctionTrampoline(block: unsafeBitCast(five, to: UnsafeRawPointer.self))
    #expect(shifted.callsTheBlockDirectly)
    let fiveArguments = shifted.unsafeFunction(as: (@convention(c) (Int, Int, Int, Int, Int) -> Int).self)
    #expect(withExtendedLifetime(shifted) { fiveArguments(1, 2, 3, 4, 5) } == five(1, 2, 3, 4, 5))

    // Six: the block's sixth would go on the stack, so libffi forwards.
    let six: @convention(block) (Int, Int, Int, Int, Int, Int) -> Int = { $0 + $1 + $2 + $3 + $4 - $5 }
    let forwarded = try CFunctionTrampoline(block: unsafeBitCast(six, to: UnsafeRawPointer.self))
    #expect(!forwarded.callsTheBlockDirectly)
    let sixArguments = forwarded.unsafeFunction(as: (@convention(c) (Int, Int, Int, Int, Int, Int) -> Int).self)
    #expect(withExtendedLifetime(forwarded) { sixArguments(1, 2, 3, 4, 5, 60) } == -45)
  }

  @Test func functionsOfMadeBlocks() throws {
    // Two pointer-sized arguments: the function shifts into the made block's own entry.
    let two = try DynamicBlock(signature: "q@?qq") { call in
      let (a, b) = (call.argumentAddress(0).load(as: Int64.self), call.argumentAddress(1).load(as: Int64.self))
      call.result.storeBytes(of: a * 10 + b, as: Int64.self)
    }
    let shifted = try CFunctionTrampoline(two)
    #expect(shifted.callsTheBlockDirectly)
    #expect(shifted.withFunction(as: (@convention(c) (Int64, Int64) -> Int64).self) { $0(4, 2) } == 42)

    // Six: libffi forwards to the block, whose seventh argument (the sixth integer) is on the stack.
    let six = try DynamicBlock(signature: "q@?qqqqqq") { arguments in
      .signed(
        arguments.enumerated().reduce(Int128(0)) { sum, next in
          guard case .signed(let x) = next.element else { return sum }
          return sum + Int128(next.offset + 1) * x
        })
    }
    let forwarded = try CFunctionTrampoline(six)
    #expect(!forwarded.callsTheBlockDirectly)
    typealias Six = @convention(c) (Int64, Int64, Int64, Int64, Int64, Int64) -> Int64
    #expect(forwarded.withFunction(as: Six.self) { $0(1, 1, 1, 1, 1, 100) } == 615)

    // A declaration the made block does not fit is refused, as for any block.
    #expect(throws: InvocationError.self) { try CFunctionTrampoline(two, declaredSignature: "v{?=dddd}") }
  }

  @Test func aDeclaredFunctionSignatureIsChecked() throws {
    let count = Count()
    let block: ComparatorBlock = { _, _ in
      count.add()
      return 0
    }
    let pointer = unsafeBitCast(block, to: UnsafeRawPointer.self)
    let declared = try CFunctionTrampoline(block: pointer, declaredSignature: "i^v^v")
    #expect(declared.signature.description == "i16^v0^v8")
    #expect(throws: InvocationError.self) {
      try CFunctionTrampoline(block: pointer, declaredSignature: "d^v^v")
    }
    do {
      _ = try CFunctionTrampoline(block: pointer, declaredSignature: "i^vd")
      Issue.record("a double parameter for a pointer was accepted")
    } catch {
      #expect(error.kind == .incompatibleSignature)
      #expect(!error.diagnostics.isEmpty)
    }
  }
}
