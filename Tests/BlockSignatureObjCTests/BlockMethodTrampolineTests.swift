import BlockSignature
import BlockSignatureFFI
import BlockSignatureObjC
import BlockSignatureSystem
import Foundation
import TestSupport
import Testing

/// Methods made from blocks, on the path each takes: a method whose arguments all sit in
/// registers goes straight into the block (``BlockMethodImplementation/callsTheBlockDirectly``),
/// the others through libffi. Each test says which path it expects and checks what arrives on
/// both sides of the call: every argument the block received and the result the sender got.
@Suite(.serialized) struct BlockMethodTrampolineTests {
  init() throws {
    try ObjCRuntime.loadFoundation()
    _ = try Self.fixture.get()
  }

  /// Blocks laid out by hand (gcc compiles no blocks) whose invokes raise, for results in an
  /// SSE register, in RAX and XMM0 together, and in memory; and gcc-compiled senders of each.
  static let source = #"""
    #import <Foundation/Foundation.h>

    typedef struct { double d; long q; } BSMixed;
    typedef struct { long a, b, c; } BSTriple;

    struct BSDescriptor { unsigned long reserved, size; const char *signature; };
    struct BSLiteral { void *isa; int flags; int reserved; void *invoke; const struct BSDescriptor *descriptor; };
    extern void *_NSConcreteGlobalBlock[32];

    static double bs_raise_double(void *block, id object, double x) {
      [NSException raise: @"BSTrampolineException" format: @"double %g", x];
      return x;
    }
    static BSMixed bs_raise_mixed(void *block, id object, long q) {
      [NSException raise: @"BSTrampolineException" format: @"mixed %ld", q];
      BSMixed m = { 0, q };
      return m;
    }
    static BSTriple bs_raise_triple(void *block, id object, long q) {
      [NSException raise: @"BSTrampolineException" format: @"triple %ld", q];
      BSTriple t = { q, q, q };
      return t;
    }
    #define BS_BLOCK(name, invoke, signature) \
      static const struct BSDescriptor name##_descriptor = { 0, sizeof(struct BSLiteral), signature }; \
      static struct BSLiteral name = { \
        _NSConcreteGlobalBlock, (1 << 28) | (1 << 30), 0, (void *)invoke, &name##_descriptor };
    BS_BLOCK(bs_double_block, bs_raise_double, "d24@?0@8d16")
    BS_BLOCK(bs_mixed_block, bs_raise_mixed, "{BSMixed=dq}24@?0@8q16")
    BS_BLOCK(bs_triple_block, bs_raise_triple, "{BSTriple=qqq}24@?0@8q16")
    const void *fixture_raising_double(void) { return &bs_double_block; }
    const void *fixture_raising_mixed(void) { return &bs_mixed_block; }
    const void *fixture_raising_triple(void) { return &bs_triple_block; }

    double fixture_send_double(id o, SEL s, double x) {
      return ((double (*)(id, SEL, double))objc_msg_lookup(o, s))(o, s, x);
    }
    void fixture_send_mixed(id o, SEL s, long q, BSMixed *out) {
      *out = ((BSMixed (*)(id, SEL, long))objc_msg_lookup(o, s))(o, s, q);
    }
    void fixture_send_triple(id o, SEL s, long q, BSTriple *out) {
      *out = ((BSTriple (*)(id, SEL, long))objc_msg_lookup(o, s))(o, s, q);
    }
    // Eight floating-point arguments and an integer: every register of each kind a method has.
    double fixture_send_mix(id o, SEL s, float a, double b, float c, double d, float e, double f, float g,
                            double h, long i, long j, long k, long l) {
      return ((double (*)(id, SEL, float, double, float, double, float, double, float, double, long, long, long,
                          long))objc_msg_lookup(o, s))(o, s, a, b, c, d, e, f, g, h, i, j, k, l);
    }
    """#

  static let fixture: Result<UInt, any Error> = Result {
    UInt(bitPattern: try GNUstepLibrary.load(source: source))
  }

  static func function<Function>(_ name: String, as type: Function.Type) throws -> Function {
    let library = UnsafeMutableRawPointer(bitPattern: try fixture.get())!
    return unsafeBitCast(try GNUstepLibrary.symbol(name, in: library), to: Function.self)
  }

  /// Sends `selector` to `instance` with `arguments`, the method's types the runtime's.
  static func send(_ instance: ObjCObject, _ selector: Selector, _ arguments: [CValue]) throws -> CValue {
    try ObjCMessage(selector, class: instance.objectClass).send(to: instance.pointer, arguments)
  }

  static func makeBuilder(_ base: String) throws -> ObjCClassBuilder {
    try ObjCClassBuilder(
      name: "\(base)_\(UInt32.random(in: 0...UInt32.max))", superclass: ObjCClass(named: "NSObject"))
  }

  /// A scalar type and three values of it, as a handler receives them.
  struct Scalar: Sendable, CustomStringConvertible {
    var code: String
    var values: [CValue]
    var description: String { code }
  }

  static let scalars: [Scalar] = [
    Scalar(code: "c", values: [.signed(-5), .signed(127), .signed(-128)]),
    Scalar(code: "C", values: [.unsigned(200), .unsigned(1), .unsigned(255)]),
    Scalar(code: "s", values: [.signed(-30_000), .signed(7), .signed(32_767)]),
    Scalar(code: "S", values: [.unsigned(65_535), .unsigned(0), .unsigned(40_000)]),
    Scalar(code: "i", values: [.signed(Int128(Int32.min)), .signed(-1), .signed(Int128(Int32.max))]),
    Scalar(code: "I", values: [.unsigned(UInt128(UInt32.max)), .unsigned(3), .unsigned(1 << 31)]),
    Scalar(code: "q", values: [.signed(Int128(Int64.min)), .signed(42), .signed(Int128(Int64.max))]),
    Scalar(code: "Q", values: [.unsigned(UInt128(UInt64.max)), .unsigned(9), .unsigned(1 << 63)]),
    Scalar(code: "f", values: [.float(1.5), .float(-2.25), .float(.greatestFiniteMagnitude)]),
    Scalar(code: "d", values: [.double(-0.125), .double(1e300), .double(.pi)]),
    Scalar(code: "B", values: [.bool(true), .bool(false), .bool(true)]),
    Scalar(code: "^v", values: [.pointer(0x1000), .pointer(0), .pointer(UInt(bitPattern: -16))]),
    Scalar(code: "#", values: [.pointer(0x2000), .pointer(0), .pointer(8)]),
  ]

  /// `(T)pass:(T)a mix:(double)x with:(T)b mix:(float)y with:(T)c` for each scalar type `T`:
  /// the block records what it receives and returns `c`; a send through this layer (libffi as the
  /// caller) must deliver each argument unchanged and get `c` back.
  @Test(arguments: scalars) func everyScalarTypeInRegistersGoesStraightIntoTheBlock(_ scalar: Scalar) throws {
    let code = scalar.code
    let received = Locked<[CValue]>([])
    let block = try DynamicBlock(signature: "\(code)@\(code)d\(code)f\(code)") { arguments in
      received.withLock { $0 = arguments }
      return arguments[5]
    }
    let builder = try Self.makeBuilder("BSTrampolineScalar")
    let method = try builder.addMethod(
      "pass:mix:with:mix:with:", types: "\(code)@:\(code)d\(code)f\(code)", block: block.unsafeBlock)
    #expect(method.callsTheBlockDirectly)
    let instance = try builder.register().makeInstance()
    let sent: [CValue] = [scalar.values[0], .double(-7.5), scalar.values[1], .float(0.5), scalar.values[2]]
    let result = try Self.send(instance, "pass:mix:with:mix:with:", sent)
    #expect(result == scalar.values[2])
    #expect(received.withLock { $0 } == [.pointer(UInt(bitPattern: instance.pointer))] + sent)
  }

  @Test func everyFloatingPointAndGeneralRegisterOfAMethodReachesTheBlock() throws {
    let block = try DynamicBlock(signature: "d@fdfdfdfdqqqq") { arguments in
      var sum = 0.0
      for (index, argument) in arguments.enumerated().dropFirst() {
        let value: Double
        switch argument {
        case .float(let x): value = Double(x)
        case .double(let x): value = x
        case .signed(let x): value = Double(x)
        default: return .double(-1)
        }
        sum += value * Double(index)
      }
      return .double(sum)
    }
    let builder = try Self.makeBuilder("BSTrampolineRegisters")
    let method = try builder.addMethod("mix", types: "d@:fdfdfdfdqqqq", block: block.unsafeBlock)
    #expect(method.callsTheBlockDirectly)
    let instance = try builder.register().makeInstance()
    let send = try Self.function(
      "fixture_send_mix",
      as: (@convention(c) (
        UnsafeRawPointer, UnsafeRawPointer, Float, Double, Float, Double, Float, Double, Float, Double, Int, Int,
        Int, Int
      ) -> Double).self)
    let expected = (1...12).reduce(0.0) { $0 + Double($1) * Double($1) }
    #expect(send(instance.pointer, Selector("mix").pointer, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12) == expected)
    let values: [CValue] = [
      .float(1), .double(2), .float(3), .double(4), .float(5), .double(6), .float(7), .double(8), .signed(9),
      .signed(10), .signed(11), .signed(12),
    ]
    #expect(try Self.send(instance, "mix", values) == .double(expected))
  }

  /// A method with an argument on the stack (a ninth double, a seventh integer, a structure
  /// of 24 bytes) or a `long double` result keeps the libffi closure, and still answers.
  @Test func argumentsOnTheStackAndLongDoubleResultsKeepLibffi() throws {
    let builder = try Self.makeBuilder("BSTrampolineFallback")
    let nine = try DynamicBlock(signature: "d@ddddddddd") { arguments in arguments[9] }
    let ninth = try builder.addMethod("ninth", types: "d@:ddddddddd", block: nine.unsafeBlock)
    let seven = try DynamicBlock(signature: "q@qqqqq") { arguments in arguments[5] }
    let fifth = try builder.addMethod("fifth", types: "q@:qqqqq", block: seven.unsafeBlock)
    let four = try DynamicBlock(signature: "q@qqqq") { arguments in arguments[4] }
    let fourth = try builder.addMethod("fourth", types: "q@:qqqq", block: four.unsafeBlock)
    let vector = try DynamicBlock(signature: "d@{?=ddd}") { arguments in
      guard case .aggregate(let members) = arguments[1] else { return .double(-1) }
      return members[2]
    }
    let lastMember = try builder.addMethod("lastMember:", types: "d@:{?=ddd}", block: vector.unsafeBlock)
    let half = try DynamicBlock(signature: "D@d") { arguments in
      guard case .double(let value) = arguments[1] else { return .longDouble(-1) }
      return .longDouble(Float80(value) / 2)
    }
    let halved = try builder.addMethod("half:", types: "D@:d", block: half.unsafeBlock)
    #expect(!ninth.callsTheBlockDirectly && !fifth.callsTheBlockDirectly)
    #expect(!lastMember.callsTheBlockDirectly && !halved.callsTheBlockDirectly)
    #expect(fourth.callsTheBlockDirectly)
    let instance = try builder.register().makeInstance()
    #expect(try Self.send(instance, "ninth", (1...9).map { .double(Double($0)) }) == .double(9))
    #expect(try Self.send(instance, "fifth", (1...5).map { .signed(Int128($0)) }) == .signed(5))
    #expect(try Self.send(instance, "fourth", (1...4).map { .signed(Int128($0)) }) == .signed(4))
    #expect(
      try instance.send("lastMember:", .aggregate([.double(1), .double(2), .double(3)])) == .double(3))
    #expect(try instance.send("half:", .double(5)) == .longDouble(2.5))
  }

  /// Structures in registers (two doubles in; a double and a long back in XMM0 and RAX) and a
  /// structure returned in memory through the hidden pointer go straight into the block.
  @Test func structuresInRegistersAndInMemoryGoStraightIntoTheBlock() throws {
    let builder = try Self.makeBuilder("BSTrampolineStructures")
    let swap = try DynamicBlock(signature: "{?=dq}@{?=dd}q") { arguments in
      guard case .aggregate(let point) = arguments[1], case .double(let x) = point[0], case .double(let y) = point[1],
        case .signed(let count) = arguments[2]
      else { return .aggregate([.double(-1), .signed(-1)]) }
      return .aggregate([.double(x * y), .signed(count + 1)])
    }
    let swapped = try builder.addMethod("product:count:", types: "{?=dq}@:{?=dd}q", block: swap.unsafeBlock)
    let triple = try DynamicBlock(signature: "{?=qqq}@qdq") { arguments in
      .aggregate([arguments[3], arguments[1], .signed(7)])
    }
    let tripled = try builder.addMethod("triple:mix:with:", types: "{?=qqq}@:qdq", block: triple.unsafeBlock)
    #expect(swapped.callsTheBlockDirectly && tripled.callsTheBlockDirectly)
    let instance = try builder.register().makeInstance()
    #expect(
      try instance.send("product:count:", .aggregate([.double(1.5), .double(4)]), .signed(41))
        == .aggregate([.double(6), .signed(42)]))
    #expect(
      try instance.send("triple:mix:with:", .signed(1), .double(2), .signed(3))
        == .aggregate([.signed(3), .signed(1), .signed(7)]))
  }

  /// A block that raises, on the direct path: the failure policy's value comes back in the
  /// result's own registers (XMM0; XMM0 and RAX) or in the caller's buffer, to compiled senders
  /// and to this layer's, and the policy sees each exception.
  @Test func aRaisingBlockOnTheDirectPathAnswersThePolicysValueWhereTheResultGoes() throws {
    let seen = Locked<[String]>([])
    func policy(_ value: CValue) -> DynamicBlock.FailurePolicy {
      .returnValue(value).reporting { error in
        seen.withLock { $0.append((error as? ObjCError)?.exceptionReason ?? "\(error)") }
      }
    }
    typealias Maker = @convention(c) () -> UnsafeRawPointer
    let builder = try Self.makeBuilder("BSTrampolineRaising")
    let double = try builder.addMethod(
      "raiseDouble:", types: "d24@0:8d16", block: try Self.function("fixture_raising_double", as: Maker.self)(),
      failure: policy(.double(2.5)))
    let mixed = try builder.addMethod(
      "raiseMixed:", types: "{BSMixed=dq}24@0:8q16",
      block: try Self.function("fixture_raising_mixed", as: Maker.self)(),
      failure: policy(.aggregate([.double(0.75), .signed(-9)])))
    let triple = try builder.addMethod(
      "raiseTriple:", types: "{BSTriple=qqq}24@0:8q16",
      block: try Self.function("fixture_raising_triple", as: Maker.self)(),
      failure: policy(.aggregate([.signed(4), .signed(5), .signed(6)])))
    #expect(double.callsTheBlockDirectly && mixed.callsTheBlockDirectly && triple.callsTheBlockDirectly)
    let instance = try builder.register().makeInstance()
    try ObjCRuntime.withAutoreleasePool {
      let sendDouble = try Self.function(
        "fixture_send_double", as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer, Double) -> Double).self)
      #expect(sendDouble(instance.pointer, Selector("raiseDouble:").pointer, 1) == 2.5)
      #expect(try instance.send("raiseDouble:", .double(2)) == .double(2.5))

      let sendMixed = try Self.function(
        "fixture_send_mixed",
        as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer, Int, UnsafeMutableRawPointer) -> Void).self)
      var mixedOut = (0.0, 0)
      sendMixed(instance.pointer, Selector("raiseMixed:").pointer, 3, &mixedOut)
      #expect(mixedOut == (0.75, -9))
      #expect(try instance.send("raiseMixed:", .signed(4)) == .aggregate([.double(0.75), .signed(-9)]))

      let sendTriple = try Self.function(
        "fixture_send_triple",
        as: (@convention(c) (UnsafeRawPointer, UnsafeRawPointer, Int, UnsafeMutableRawPointer) -> Void).self)
      var tripleOut = (0, 0, 0)
      sendTriple(instance.pointer, Selector("raiseTriple:").pointer, 5, &tripleOut)
      #expect(tripleOut == (4, 5, 6))
      #expect(try instance.send("raiseTriple:", .signed(6)) == .aggregate([.signed(4), .signed(5), .signed(6)]))
    }
    #expect(seen.withLock { $0 } == ["double 1", "double 2", "mixed 3", "mixed 4", "triple 5", "triple 6"])
  }
}
