import BlockSignature
import BlockSignatureFFI
import BlockSignatureObjC
import Foundation
import TestSupport
import Testing

/// Typed sends made in registers, without libffi (``ObjCMessage/sendsInRegisters``), to methods
/// compiled by gcc: every scalar type, both ways through a `double` between them, and the sends
/// that keep the checked path (a value of another kind, one out of range, a structure, a C
/// string) answering exactly as before.
@Suite struct RegisterSendTests {
  init() throws {
    try ObjCRuntime.loadFoundation()
    _ = try Self.fixture.get()
  }

  /// `-(T)pick_X:(T)a mix:(double)x and:(T)b` returns `a` when `x` is positive, else `b`.
  static let source = #"""
    #import <Foundation/Foundation.h>

    #define PICK(name, T) - (T)pick_##name:(T)a mix:(double)x and:(T)b { return x > 0 ? a : b; }
    @interface BSRegisterTarget : NSObject
    @end
    @implementation BSRegisterTarget
    PICK(c, signed char)
    PICK(C, unsigned char)
    PICK(s, short)
    PICK(S, unsigned short)
    PICK(i, int)
    PICK(I, unsigned int)
    PICK(q, long long)
    PICK(Q, unsigned long long)
    PICK(f, float)
    PICK(d, double)
    PICK(B, _Bool)
    PICK(p, void *)
    PICK(sel, SEL)
    PICK(object, id)
    PICK(cls, Class)
    - (void)store:(int)value into:(int *)destination { *destination = value; }
    - (int)raiseWith:(int)value {
      [NSException raise: @"BSRegisterException" format: @"value %d", value];
      return value;
    }
    - (int)lengthOf:(const char *)text { return (int)strlen(text); }
    - (NSRange)rangeFrom:(unsigned long)location { return NSMakeRange(location, 1); }
    @end
    id fixture_register_target(void) { return [BSRegisterTarget new]; }
    """#

  static let fixture: Result<UInt, any Error> = Result {
    UInt(bitPattern: try GNUstepLibrary.load(source: source))
  }

  static func target() throws -> ObjCObject {
    let library = UnsafeMutableRawPointer(bitPattern: try fixture.get())!
    let make = unsafeBitCast(
      try GNUstepLibrary.symbol("fixture_register_target", in: library),
      to: (@convention(c) () -> UnsafeRawPointer).self)
    return ObjCObject(adopting: make())
  }

  /// A scalar method and two values of its type, as a send returns them.
  struct Pick: Sendable, CustomStringConvertible {
    var name: String
    var first: CValue
    var second: CValue
    var description: String { name }
  }

  static let picks: [Pick] = [
    Pick(name: "c", first: .signed(-128), second: .signed(127)),
    Pick(name: "C", first: .unsigned(255), second: .unsigned(1)),
    Pick(name: "s", first: .signed(-32_768), second: .signed(5)),
    Pick(name: "S", first: .unsigned(65_535), second: .unsigned(2)),
    Pick(name: "i", first: .signed(Int128(Int32.min)), second: .signed(-1)),
    Pick(name: "I", first: .unsigned(UInt128(UInt32.max)), second: .unsigned(7)),
    Pick(name: "q", first: .signed(Int128(Int64.min)), second: .signed(Int128(Int64.max))),
    Pick(name: "Q", first: .unsigned(UInt128(UInt64.max)), second: .unsigned(1 << 63)),
    Pick(name: "f", first: .float(-1.5), second: .float(.leastNonzeroMagnitude)),
    Pick(name: "d", first: .double(-.infinity), second: .double(1e-300)),
    Pick(name: "B", first: .bool(true), second: .bool(false)),
    Pick(name: "p", first: .pointer(0xDEAD_BEEF), second: .pointer(0)),
    Pick(name: "sel", first: .pointer(UInt(bitPattern: Selector("count").pointer)), second: .pointer(8)),
    Pick(name: "object", first: .pointer(0x1000), second: .pointer(0)),
    Pick(name: "cls", first: .pointer(0x2000), second: .pointer(0x3000)),
  ]

  @Test(arguments: picks) func everyScalarTypeGoesInRegistersBothWays(_ pick: Pick) throws {
    let target = try Self.target()
    let message = try ObjCMessage(Selector("pick_\(pick.name):mix:and:"), class: target.objectClass)
    #expect(message.sendsInRegisters)
    #expect(try message.send(to: target.pointer, [pick.first, .double(1), pick.second]) == pick.first)
    #expect(try message.send(to: target.pointer, [pick.first, .double(-1), pick.second]) == pick.second)
  }

  /// The raw send in registers: each argument's bytes widened into its register, the result
  /// written as libffi writes it (a narrow integer widened to 8 bytes, a `float` in 4).
  @Test(arguments: picks) func rawSendsInRegistersAgreeWithTypedOnes(_ pick: Pick) throws {
    let target = try Self.target()
    let message = try ObjCMessage(Selector("pick_\(pick.name):mix:and:"), class: target.objectClass)
    let shape = try #require(message.signature.encoding.arguments.last).type
    for mix in [1.0, -1.0] {
      var bytes = [UInt8](repeating: 0xAA, count: 48)
      var result = [UInt8](repeating: 0xAA, count: message.resultBufferSize)
      let typed = try message.send(to: target.pointer, [pick.first, .double(mix), pick.second])
      try bytes.withUnsafeMutableBytes { storage in
        // Each value in its type's own bytes, the bytes after it left dirty.
        for (index, value) in [pick.first, pick.second].enumerated() {
          try Self.store(value, type: shape, at: storage.baseAddress! + index * 16)
        }
        storage.storeBytes(of: mix, toByteOffset: 32, as: Double.self)
        let base = UnsafeRawPointer(storage.baseAddress!)
        try [base, base + 32, base + 16].withUnsafeBufferPointer { pointers in
          try result.withUnsafeMutableBytes { out in
            try message.send(to: target.pointer, result: out.baseAddress, arguments: pointers.baseAddress!)
          }
        }
      }
      let raw = result.withUnsafeBytes { Self.load(type: shape, from: $0.baseAddress!) }
      #expect(raw == typed)
      #expect(typed == (mix > 0 ? pick.first : pick.second))
    }
  }

  /// Writes `value` in the bytes of `type` (a scalar of the fixture's) at `address`.
  static func store(_ value: CValue, type: TypeEncoding, at address: UnsafeMutableRawPointer) throws {
    switch (value, type.description) {
    case (.signed(let x), "c"): address.storeBytes(of: Int8(x), as: Int8.self)
    case (.signed(let x), "s"): address.storeBytes(of: Int16(x), as: Int16.self)
    case (.signed(let x), "i"): address.storeBytes(of: Int32(x), as: Int32.self)
    case (.signed(let x), _): address.storeBytes(of: Int64(x), as: Int64.self)
    case (.unsigned(let x), "C"): address.storeBytes(of: UInt8(x), as: UInt8.self)
    case (.unsigned(let x), "S"): address.storeBytes(of: UInt16(x), as: UInt16.self)
    case (.unsigned(let x), "I"): address.storeBytes(of: UInt32(x), as: UInt32.self)
    case (.unsigned(let x), _): address.storeBytes(of: UInt64(x), as: UInt64.self)
    case (.float(let x), _): address.storeBytes(of: x, as: Float.self)
    case (.double(let x), _): address.storeBytes(of: x, as: Double.self)
    case (.bool(let x), _): address.storeBytes(of: x ? 1 : 0, as: UInt8.self)
    case (.pointer(let x), _): address.storeBytes(of: x, as: UInt.self)
    default: throw ObjCError(kind: .invalidCall, message: "no bytes for \(value) as \(type)")
    }
  }

  /// Reads a result of `type` from a raw send's buffer, as libffi leaves it.
  static func load(type: TypeEncoding, from address: UnsafeRawPointer) -> CValue {
    switch type.description {
    case "c": .signed(Int128(address.load(as: Int64.self)))
    case "s", "i", "q": .signed(Int128(address.load(as: Int64.self)))
    case "C", "S", "I", "Q": .unsigned(UInt128(address.load(as: UInt64.self)))
    case "B": .bool(address.load(as: UInt64.self) == 1)
    case "f": .float(address.load(as: Float.self))
    case "d": .double(address.load(as: Double.self))
    default: .pointer(address.load(as: UInt.self))
    }
  }

  @Test func aValueOfAnotherKindOrOutOfRangeTakesTheCheckedPath() throws {
    let target = try Self.target()
    let message = try ObjCMessage("pick_c:mix:and:", class: target.objectClass)
    #expect(message.sendsInRegisters)
    // Converted as before: an unsigned value for a signed char, an integer for the double.
    #expect(try message.send(to: target.pointer, [.unsigned(3), .signed(1), .signed(4)]) == .signed(3))
    let error = #expect(throws: ObjCError.self) {
      try message.send(to: target.pointer, [.signed(300), .double(1), .signed(4)])
    }
    #expect(error?.kind == .invalidCall)
    #expect(error?.message.hasPrefix("pick_c:mix:and: argument") == true)
    #expect(throws: ObjCError.self) { try message.send(to: target.pointer, [.signed(1), .double(1)]) }
  }

  @Test func anExceptionInRegistersComesBackAsAnError() throws {
    let target = try Self.target()
    let message = try ObjCMessage("raiseWith:", class: target.objectClass)
    #expect(message.sendsInRegisters)
    try ObjCRuntime.withAutoreleasePool {
      let error = #expect(throws: ObjCError.self) { try message.send(to: target.pointer, [.signed(7)]) }
      #expect(error?.kind == .exception)
      #expect(error?.exceptionName == "BSRegisterException")
      #expect(error?.exceptionReason == "value 7")
    }
  }

  @Test func pointersVoidResultsAndOtherTypesAnswerOnTheirPaths() throws {
    let target = try Self.target()
    let store = try ObjCMessage("store:into:", class: target.objectClass)
    #expect(store.sendsInRegisters)
    var out: Int32 = 0
    let result = try withUnsafeMutablePointer(to: &out) { pointer in
      try store.send(to: target.pointer, [.signed(-42), .pointer(UInt(bitPattern: pointer))])
    }
    #expect(result == .void && out == -42)
    let length = try ObjCMessage("lengthOf:", class: target.objectClass)
    #expect(!length.sendsInRegisters)
    #expect(try length.send(to: target.pointer, [.string("four")]) == .signed(4))
    let range = try ObjCMessage("rangeFrom:", class: target.objectClass)
    #expect(!range.sendsInRegisters)
    #expect(try range.send(to: target.pointer, [.unsigned(9)]) == .aggregate([.unsigned(9), .unsigned(1)]))
    // A nil receiver answers zero, as on every path.
    #expect(try store.send(to: nil, [.signed(1), .pointer(0)]) == .void)
  }
}
