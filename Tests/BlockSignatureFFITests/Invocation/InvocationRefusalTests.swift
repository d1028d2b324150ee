import BlockSignature
import BlockSignatureFFI
import Foundation
import TestSupport
import Testing

/// Blocks whose types the encoding does not decide, or that libffi cannot be told: each is
/// refused when the invocation is made, with the argument named, never called with a guess.
@Suite struct InvocationRefusalTests {
  static let source = """
    typedef int v4si __attribute__((vector_size(16)));
    struct Bits { int a : 3; int b : 5; };
    union Mixed { long double x; int i; };
    struct __attribute__((packed)) Packed { char c; int i; };
    const void *vector_block(void) { return ^int (int x, v4si v) { return x + v[0]; }; }
    const void *bits_block(void) { return ^int (struct Bits b) { return b.a; }; }
    const void *mixed_return_block(void) { return ^union Mixed (int x) { union Mixed m; m.i = x; return m; }; }
    const void *mixed_argument_block(void) { return ^int (union Mixed m) { return m.i; }; }
    const void *packed_block(void) { return ^int (int x, struct Packed p, int y) { return x + p.i + y; }; }
    const void *half_block(void) { return ^int (_Float16 h) { return (int)h; }; }
    """

  nonisolated(unsafe) static let library: Result<UnsafeMutableRawPointer, any Error> = Result {
    let (_, product) = try Toolchain.compileC(
      source, fileName: "refusals.c", arguments: ["-fblocks", "-shared", "-fPIC", "-w"], output: "librefusals.so")
    return try #require(dlopen(product.path, RTLD_NOW | RTLD_LOCAL))
  }

  static func block(_ name: String) throws -> UnsafeRawPointer {
    let address = try #require(dlsym(try library.get(), name))
    return unsafeBitCast(address, to: (@convention(c) () -> UnsafeRawPointer).self)()
  }

  @Test(
    arguments: [
      ("vector_block", InvocationError.Kind.unsupportedType, 2, "has no encoding"),
      ("bits_block", .unsupportedType, 1, "estimate"),
      ("mixed_return_block", .unsupportedReturnType, nil, "in memory"),
      ("packed_block", .unsupportedType, 2, "offsets"),
      ("half_block", .unsupportedType, 1, "_Float16"),
    ] as [(String, InvocationError.Kind, Int?, String)])
  func isRefused(_ name: String, _ kind: InvocationError.Kind, _ argument: Int?, _ why: String) throws {
    let block = try Self.block(name)
    do {
      _ = try BlockInvocation(block: block)
      Issue.record("\(name) was accepted")
    } catch {
      #expect(error.kind == kind, "\(error)")
      #expect(error.argument == argument, "\(error)")
      #expect(error.description.contains(why), "\(error)")
    }
  }

  /// The same union is fine as an argument: 16 bytes aligned to 16 in memory, as libffi passes
  /// a `long double`.
  @Test func aMixedUnionArgumentIsCalled() throws {
    let invocation = try BlockInvocation(block: try Self.block("mixed_argument_block"))
    #expect(try invocation.invoke([.union(member: 1, value: .signed(-7))]) == .signed(-7))
  }
}
