import BlockSignature
import BlockSignatureFFI
import Foundation
import Synchronization
import TestSupport
import Testing

/// A C structure with padding, an array, a union and a wide integer, filled by C code compiled
/// with clang: the bytes `CValue.store(as:to:)` writes and `CValue(loading:)` reads.
enum RecordFixture {
  static let source = #"""
    #include <string.h>
    struct record { char c; double d; short s[3]; union { int i; float f; } u; long long q; };
    unsigned long record_size = sizeof(struct record);
    void record_fill(struct record *out) {
      memset(out, 0, sizeof *out);
      out->c = 7; out->d = 2.5; out->s[0] = 1; out->s[1] = -2; out->s[2] = 3;
      out->u.f = 1.5f; out->q = -9;
    }
    int record_check(const struct record *r) {
      return r->c == 7 && r->d == 2.5 && r->s[0] == 1 && r->s[1] == -2 && r->s[2] == 3 && r->u.f == 1.5f
        && r->q == -9;
    }
    """#

  static let encoding = "{record=cd[3s](?=if)q}"

  /// The value `record_fill` writes, its union as member 1 (`f`).
  static let value = CValue.aggregate([
    .signed(7), .double(2.5), .aggregate([.signed(1), .signed(-2), .signed(3)]),
    .union(member: 1, value: .float(1.5)), .signed(-9),
  ])

  nonisolated(unsafe) static let library: Result<UnsafeMutableRawPointer, any Error> = Result {
    let (_, product) = try Toolchain.compileC(
      source, fileName: "record.c", arguments: ["-shared", "-fPIC", "-O1", "-w"], output: "librecord.so")
    guard let handle = dlopen(product.path, RTLD_NOW | RTLD_LOCAL) else {
      throw LoadFailure(message: String(cString: dlerror()))
    }
    return handle
  }

  static func symbol<T>(_ name: String, as type: T.Type) throws -> T {
    let address = try #require(dlsym(try library.get(), name), "no symbol \(name)")
    return unsafeBitCast(address, to: type)
  }

  static var size: Int {
    get throws { Int(try #require(dlsym(try library.get(), "record_size")).load(as: UInt.self)) }
  }
}

@Suite struct CValueMemoryTests {
  typealias Fill = @convention(c) (UnsafeMutableRawPointer) -> Void
  typealias Check = @convention(c) (UnsafeRawPointer) -> Int32

  @Test func storeWritesTheBytesClangLaysOut() throws {
    let size = try RecordFixture.size
    let type = try TypeEncoding(parsing: RecordFixture.encoding)
    let expected = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    let written = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    defer {
      expected.deallocate()
      written.deallocate()
    }
    try RecordFixture.symbol("record_fill", as: Fill.self)(expected)
    written.initializeMemory(as: UInt8.self, repeating: 0xAA, count: size)  // padding must become 0
    try RecordFixture.value.store(as: type, to: written)
    #expect(try RecordFixture.symbol("record_check", as: Check.self)(written) == 1)
    #expect(memcmp(expected, written, size) == 0, "the bytes, padding included, are C's")
  }

  @Test func loadReadsAUnionAsTheChosenMember() throws {
    let size = try RecordFixture.size
    let type = try TypeEncoding(parsing: RecordFixture.encoding)
    let filled = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
    defer { filled.deallocate() }
    try RecordFixture.symbol("record_fill", as: Fill.self)(filled)
    var paths: [[String]] = []
    let chosen = try CValue(loading: type, from: filled) { path in
      paths.append(path)
      return 1
    }
    #expect(chosen == RecordFixture.value)
    #expect(paths == [["member 3"]])
    guard case .aggregate(let members) = try CValue(loading: type, from: filled) else {
      Issue.record("not an aggregate")
      return
    }
    #expect(members[3] == .union(member: 0, value: .signed(0x3FC0_0000)), "1.5f read as its int bits")
    let error = try #require(throws: InvocationError.self) { try CValue(loading: type, from: filled) { _ in 2 } }
    #expect(error.kind == .outOfRange)
    #expect(error.path == ["member 3"])
  }

  @Test func aValueThatDoesNotFitWritesNothing() throws {
    var bytes: UInt64 = 0x0807_0605_0403_0201
    let wide = try #require(throws: InvocationError.self) {
      try withUnsafeMutableBytes(of: &bytes) {
        try CValue.aggregate([.signed(1), .signed(300)]).store(as: TypeEncoding(parsing: "{?=iC}"), to: $0.baseAddress!)
      }
    }
    #expect(wide.kind == .outOfRange)
    #expect(wide.path == ["member 1"])
    let text = try #require(throws: InvocationError.self) {
      try withUnsafeMutableBytes(of: &bytes) {
        try CValue.string("text").store(as: TypeEncoding(parsing: "*"), to: $0.baseAddress!)
      }
    }
    #expect(text.kind == .typeMismatch)
    #expect(bytes == 0x0807_0605_0403_0201)
    try withUnsafeMutableBytes(of: &bytes) {
      try CValue.string(nil).store(as: TypeEncoding(parsing: "*"), to: $0.baseAddress!)
    }
    #expect(bytes == 0)
  }

  @Test func aRawHandlerReadsAUnionArgumentAsTheMemberItsTagNames() throws {
    // void (^)(union { int i; float f; }, int which): `which` names the member the caller wrote.
    let seen = Mutex<[CValue]>([])
    let made = try DynamicBlock(signature: "v@?(?=if)i") { (call: DynamicBlock.Call) in
      let which = Int(call.argumentAddress(1).load(as: Int32.self))
      let value = try call.argument(0) { _ in which }
      seen.withLock { $0.append(value) }
    }
    for (member, value) in [(1, CValue.float(2.5)), (0, .signed(-3))] {
      _ = try made.withBlock { block throws(InvocationError) in
        try BlockInvocation(block: block).invoke([.union(member: member, value: value), .signed(Int128(member))])
      }
    }
    #expect(seen.withLock { $0 } == [.union(member: 1, value: .float(2.5)), .union(member: 0, value: .signed(-3))])
  }
}
