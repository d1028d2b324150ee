import BlockSignature
import BlockSignatureFFI
import Foundation
import Synchronization
import TestSupport
import Testing

/// ``DynamicDelegate`` on a C API with a context-taking table (``OpsFixture``): C's own table
/// and context are the oracle; the same C caller must report the same values when each member
/// is a clang block, a made block, a Swift closure, or forwarded to the real delegate.
@Suite struct DynamicDelegateTests {
  static func table() throws -> CallbackTable { try CallbackTable(parsing: OpsFixture.description, name: "ops") }

  @Test func layoutIsClangs() throws {
    let table = try Self.table()
    let offsets = try OpsFixture.address("ops_offsets").assumingMemoryBound(to: Int.self)
    #expect(table.members.map(\.offset) == (0..<8).map { offsets[$0] })
    #expect(table.size == (try OpsFixture.address("ops_size").load(as: Int.self)))
    #expect(table.members.map(\.takesContext) == [false, true, true, true, true, true, false, true])
  }

  @Test func forwardsToTheRealDelegate() throws {
    let expected = try OpsFixture.expected()
    #expect(expected == "version=3 weight=0.25 add=142 scale=4.5,94 mix=600 name=seven note=5100 triple=10,20,130")
    let delegate = try DynamicDelegate(Self.table(), realDelegate: OpsFixture.realDelegate)
    #expect(try OpsFixture.run(delegate.table, context: delegate.context) == expected)
    #expect(try delegate.value(of: "version") == .unsigned(3))
  }

  @Test func clangBlocks() throws {
    let delegate = try DynamicDelegate(Self.table())
    try delegate.setValue(.unsigned(3), of: "version")
    try delegate.setValue(.double(0.25), of: "weight")
    let block = try OpsFixture.symbol("ops_block", as: (@convention(c) (Int32) -> UnsafeRawPointer).self)
    for (index, member) in ["add", "scale", "mix", "name", "note", "triple"].enumerated() {
      try delegate.implement(member, withBlock: block(Int32(index)))
      #expect(try delegate.blockImplementation(for: member) != nil)
    }
    #expect(try OpsFixture.run(delegate.table, context: delegate.context) == (try OpsFixture.expected()))
    #expect(try OpsFixture.address("ops_seen_context").load(as: UnsafeMutableRawPointer?.self) == delegate.context)
  }

  @Test func madeBlocks() throws {
    let delegate = try DynamicDelegate(Self.table())
    try delegate.setValue(.unsigned(3), of: "version")
    try delegate.setValue(.double(0.25), of: "weight")
    let context = UInt(bitPattern: delegate.context)
    let sawContext = CAPICallbackTests.Count()
    let check: @Sendable (CValue) -> Void = { value in if value == .pointer(context) { sawContext.add() } }
    let note = UInt(bitPattern: try OpsFixture.address("ops_last_note"))
    try delegate.implement("add") { a in
      check(a[0])
      guard case .signed(let x) = a[1], case .signed(let y) = a[2] else { return .signed(0) }
      return .signed(x + y + 100)
    }
    try delegate.implement("scale") { a in
      check(a[0])
      guard case .aggregate(let p) = a[1], case .double(let x) = p[0], case .double(let y) = p[1],
        case .double(let k) = a[2]
      else { return .aggregate([.double(0), .double(0)]) }
      return .aggregate([.double(x * k), .double(y * k + 100)])
    }
    try delegate.implement("mix") { a in
      guard case .longDouble(let x) = a[1], case .unsigned(let c) = a[2] else { return .longDouble(0) }
      return .longDouble(x * Float80(c) + 100)
    }
    try delegate.implement("name") { a in a[1] == .signed(7) ? .string("seven") : .string("other") }
    try delegate.implement("note") { a in
      guard case .string(let text?) = a[1] else { return .void }
      UnsafeMutableRawPointer(bitPattern: note)!.storeBytes(of: text.utf8.count * 1000 + 100, as: Int.self)
      return .void
    }
    try delegate.implement("triple") { a in
      guard case .signed(let base) = a[1] else { return .aggregate([.signed(0), .signed(0), .signed(0)]) }
      return .aggregate([.signed(base), .signed(base * 2), .signed(base * 3 + 100)])
    }
    #expect(try OpsFixture.run(delegate.table, context: delegate.context) == (try OpsFixture.expected()))
    #expect(sawContext.current == 2, "add and scale received the delegate's context")
  }

  @Test func swiftClosuresAndTheRealDelegate() throws {
    let delegate = try DynamicDelegate(Self.table(), realDelegate: OpsFixture.realDelegate)
    // The context left out, and taken.
    let add: @convention(block) (Int32, Int32) -> Int32 = { $0 + $1 + 100 }
    let seen = Mutex<UInt>(0)
    let name: @convention(block) (UnsafeMutableRawPointer?, Int32) -> UnsafePointer<CChar>? = { context, which in
      seen.withLock { $0 = UInt(bitPattern: context) }
      return which == 7 ? OpsFixture.seven : nil
    }
    try delegate.implement("add", withBlock: unsafeBitCast(add, to: UnsafeRawPointer.self))
    try delegate.implement("name", withBlock: unsafeBitCast(name, to: UnsafeRawPointer.self))
    #expect(try OpsFixture.run(delegate.table, context: delegate.context) == (try OpsFixture.expected()))
    #expect(seen.withLock { $0 } == UInt(bitPattern: delegate.context))

    // Removed, a member forwards to the real delegate again.
    try delegate.removeBlockImplementation(for: "add")
    #expect(try delegate.blockImplementation(for: "add") == nil)
    #expect(try OpsFixture.run(delegate.table, context: delegate.context) == (try OpsFixture.expected()))
  }

  @Test func membersWithNothingAreNullOrZero() throws {
    let delegate = try DynamicDelegate(Self.table())
    #expect(
      try OpsFixture.run(delegate.table, context: delegate.context)
        == "version=0 weight=0 add=NULL scale=NULL mix=NULL name=NULL note=NULL triple=NULL")
    for member in try Self.table().members where member.signature != nil {
      #expect(try delegate.function(for: member.name) == nil)
      #expect(delegate.table.load(fromByteOffset: member.offset, as: UInt.self) == 0)
    }
    let add: @convention(block) (Int32, Int32) -> Int32 = { $0 + $1 }
    try delegate.implement("add", withBlock: unsafeBitCast(add, to: UnsafeRawPointer.self))
    #expect(try delegate.function(for: "add") != nil)
    try delegate.removeBlockImplementation(for: "add")
    #expect(try delegate.function(for: "add") == nil)

    let zero = try DynamicDelegate(Self.table(), unimplementedMembers: .returnZero)
    #expect(
      try OpsFixture.run(zero.table, context: zero.context)
        == "version=0 weight=0 add=0 scale=0,0 mix=0 name=(null) note=-1 triple=0,0,0")
  }

  @Test func callsFromSwift() throws {
    let delegate = try DynamicDelegate(Self.table(), realDelegate: OpsFixture.realDelegate)
    let context = CValue.pointer(UInt(bitPattern: delegate.context))
    #expect(try delegate.call("add", [context, .signed(2), .signed(3)]) == .signed(105), "the real delegate's")
    #expect(
      try delegate.call("scale", [context, .aggregate([.double(1), .double(2)]), .double(2)])
        == .aggregate([.double(2), .double(104)]))
    let add: @convention(block) (Int32, Int32) -> Int32 = { $0 * $1 }
    try delegate.implement("add", withBlock: unsafeBitCast(add, to: UnsafeRawPointer.self))
    #expect(try delegate.call("add", [context, .signed(6), .signed(7)]) == .signed(42))
    #expect(throws: DelegateError.self) { try delegate.call("add", [.signed(6)]) }
    let empty = try DynamicDelegate(Self.table())
    do {
      _ = try empty.call("add", [context, .signed(1), .signed(2)])
      Issue.record("a NULL member was called")
    } catch {
      #expect(error.kind == .unimplemented)
    }
  }
}

extension OpsFixture {
  /// A C string that lives as long as the process.
  nonisolated(unsafe) static let seven: UnsafePointer<CChar> = UnsafePointer(strdup("seven")!)
}

extension DynamicDelegateTests {
  /// A single-callback API whose context comes last (`qsort_r`): a one-member table.
  @Test func qsortRWithAOneMemberTable() throws {
    let table = try CallbackTable(parsing: "compare function i^v^v^v", name: "qsort_r comparator")
    let delegate = try DynamicDelegate(table)
    let compare: @convention(block) (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Int32 = {
      a, b, argument in
      let direction = argument!.load(as: Int32.self)
      let (x, y) = (a!.load(as: Int32.self), b!.load(as: Int32.self))
      return x < y ? -direction : x > y ? direction : 0
    }
    try delegate.implement("compare", withBlock: unsafeBitCast(compare, to: UnsafeRawPointer.self))
    let function = try #require(try delegate.function(for: "compare"))
    typealias Comparator = @convention(c) (UnsafeRawPointer?, UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Int32
    var numbers: [Int32] = [5, -1, 12, 0, 7]
    var direction: Int32 = -1
    // glibc's qsort_r, which Swift's Glibc module hides behind _GNU_SOURCE.
    typealias QsortR = @convention(c) (UnsafeMutableRawPointer, Int, Int, Comparator, UnsafeMutableRawPointer?) -> Void
    let qsortR = unsafeBitCast(try #require(dlsym(dlopen(nil, RTLD_NOW), "qsort_r")), to: QsortR.self)
    numbers.withUnsafeMutableBytes {
      qsortR($0.baseAddress!, 5, 4, unsafeBitCast(function, to: Comparator.self), &direction)
    }
    #expect(numbers == [12, 7, 5, 0, -1])
  }
}
