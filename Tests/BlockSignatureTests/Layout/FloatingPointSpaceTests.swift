import BlockSignature
import Foundation
import TestSupport
import Testing

/// Clang encodes `_Float16`, `__bf16` and `__float128` all as a single space. Where a
/// signature's written offsets give an argument 16 bytes it is `__float128` (the only one of
/// the three that size); 2 bytes is `_Float16` or `__bf16`, which nothing tells apart. Blocks
/// compiled by the toolchain's clang at test time.
@Suite(.serialized) struct FloatingPointSpaceTests {
  /// Compiles `source` for `triple` and returns the signature of each `void *bN` variable.
  static func signatures(_ source: String, triple: String, count: Int) throws -> [String] {
    let folder = try Toolchain.temporaryDirectory("blocksig-space")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("space.c")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let output = try Toolchain.runClang(["--target=\(triple)", "-fblocks", "-S", "-emit-llvm", "-o", "-", file.path])
    let ir = GeneratedIR(output.stdout)
    return try (0..<count).map { try #require(ir.signature(ofVariable: "b\($0)"), "b\($0) \(triple)") }
  }

  static let x86Source = """
    void *b0 = ^_Float16(_Float16 h, __bf16 b, __float128 q) { return h; };
    void *b1 = ^__float128(__float128 q, _Float16 h) { return q; };
    void *b2 = ^__bf16(__bf16 b, int i, __float128 q, const __float128 *p) { return b; };
    """

  /// The C types the declarations should show for `x86Source`: the return types stay
  /// `_Float16` (nothing in the frame gives a return value's size).
  static let x86Declarations = [
    "_Float16 (^)(_Float16, _Float16, __float128)",
    "_Float16 (^)(__float128, _Float16)",
    "_Float16 (^)(_Float16, int, __float128, const _Float16 *)",
  ]

  static let x86SwiftTypes = [
    "@convention(block) (Float16, Float16, /* __float128 */) -> Float16",
    "@convention(block) (/* __float128 */, Float16) -> Float16",
    "@convention(block) (Float16, Int32, /* __float128 */, UnsafePointer<Float16>?) -> Float16",
  ]

  @Test(arguments: [("x86_64-unknown-linux-gnu", DataModel.x86_64SysV), ("i386-unknown-linux-gnu", .i386Linux)])
  func sixteenBytesAreFloat128(triple: String, model: DataModel) throws {
    let texts = try Self.signatures(Self.x86Source, triple: triple, count: 3)
    // The parameters' C types, argument 1 on (`p` is a pointer: its pointee is not decided).
    let parameters = [
      ["_Float16", "_Float16", "__float128"], ["__float128", "_Float16"],
      ["_Float16", "int", "__float128", "const _Float16 *"],
    ]
    for (index, text) in texts.enumerated() {
      let signature = try SignatureEncoding(parsing: text)
      let layout = try signature.layout(for: model)
      #expect(layout.offsetsMatch, "\(text) \(triple)")
      #expect(expectFrameAgreement(Array(text.utf8), model: model), "\(text) \(triple)")
      #expect(signature.cDeclaration(for: model) == Self.x86Declarations[index], "\(text) \(triple)")
      #expect(signature.swiftType(for: model) == Self.x86SwiftTypes[index], "\(text) \(triple)")
      let declared = signature.arguments.indices.dropFirst().map { signature.cDeclaration(ofArgument: $0, for: model) }
      #expect(declared == parameters[index], "\(text) \(triple)")
      for (argument, type) in zip(layout.arguments.dropFirst(), parameters[index]) where type == "__float128" {
        #expect(argument.layout.size == 16 && argument.layout.alignment == 16, "\(text) \(triple)")
      }
      // Every note names the encoding visibly; a 2-byte space says what it cannot tell.
      for note in layout.notes.map(\.message) {
        #expect(!note.contains("( )"), "\(note)")
        if note.hasPrefix("argument"), note.contains("2 bytes") {
          #expect(note.contains("_Float16 or __bf16"), "\(note)")
          #expect(!note.contains("__float128"), "\(note)")
        }
      }
    }
    let notes = try SignatureEncoding(parsing: texts[0]).layout(for: model).notes.map(\.message)
    #expect(
      notes.contains(
        "argument 1: ' ' is _Float16 or __bf16 (2 bytes in the frame), which the encoding does not tell apart"))
    #expect(notes.contains("argument 3: ' ' is __float128 (16 bytes in the frame)"))
    #expect(notes.contains("argument 3 (' ') has no size in its encoding; its slot is 16 bytes"))
    // The return value's size is not in the frame: still the generic caveat.
    #expect(notes.contains("return value: ' ' may be _Float16, __bf16 (2 bytes, assumed) or __float128 (16 bytes)"))
  }

  /// AArch64 (and arm64 Apple, Windows) have no `__float128`: clang refuses it, so every space
  /// in a signature clang writes there is 2 bytes, `_Float16` or `__bf16`.
  @Test func aarch64HasNoFloat128() throws {
    let triple = "aarch64-unknown-linux-gnu"
    #expect(throws: Toolchain.ToolFailure.self) {
      _ = try Self.signatures("void *b0 = ^(__float128 q) {};", triple: triple, count: 1)
    }
    let texts = try Self.signatures(
      "void *b0 = ^_Float16(_Float16 h, __bf16 b, long double q) { return h; };", triple: triple, count: 1)
    #expect(texts == [" 28@?0 8 10D12"])
    let signature = try SignatureEncoding(parsing: texts[0])
    let layout = try signature.layout(for: .aarch64Linux)
    #expect(layout.offsetsMatch)
    #expect(layout.arguments.map(\.slotSize) == [8, 2, 2, 16])
    #expect(signature.cDeclaration(for: .aarch64Linux) == "_Float16 (^)(_Float16, _Float16, long double)")
    #expect(signature.cDeclaration(ofArgument: 2, for: .aarch64Linux) == "_Float16")
  }
}
