import BlockSignature
import Foundation
import TestSupport
import Testing

@Suite struct ExtendedLayoutTests {
  @Test func inlineForm() {
    let layout = ExtendedLayout(inlineValue: 0x123)
    #expect(layout.form == .inline)
    #expect(layout.strongCount == 1)
    #expect(layout.byrefCount == 2)
    #expect(layout.weakCount == 3)
    #expect(layout.instructions.map(\.opcode) == [.strong, .byref, .weak])
    #expect(ExtendedLayout(inlineValue: 0x200).instructions == [.init(opcode: .strong, count: 2)])
    #expect(ExtendedLayout(inlineValue: 0).instructions.isEmpty)
    // Only the low 12 bits are the layout.
    let masked = ExtendedLayout(inlineValue: 0x1210)
    #expect(masked.inlineValue == 0x210)
    #expect(masked.instructions == [.init(opcode: .strong, count: 2), .init(opcode: .byref, count: 1)])
  }

  @Test func byteFormStoresCountMinusOne() throws {
    let layout = try ExtendedLayout(decoding: [0x30, 0x41, 0x5f, 0x12, 0x2f, 0x60, 0x00, 0x33])
    #expect(layout.form == .bytes)
    #expect(
      layout.instructions == [
        .init(opcode: .strong, count: 1), .init(opcode: .byref, count: 2), .init(opcode: .weak, count: 16),
        .init(opcode: .nonObjectBytes, count: 3), .init(opcode: .nonObjectWords, count: 16),
        .init(opcode: .unretained, count: 1),
      ])
    #expect(try ExtendedLayout(decoding: [0x00]).instructions.isEmpty)
  }

  @Test(
    arguments: zip(
      [[0x70, 0x00], [0x30, 0x05, 0x00], [0x30, 0x31], [UInt8](), [0x3f, 0xf0, 0x00]] as [[UInt8]],
      [0, 1, 2, 0, 1]))
  func malformedBytes(_ bytes: [UInt8], offset: Int) {
    do {
      _ = try ExtendedLayout(decoding: bytes)
      Issue.record("decoded \(bytes)")
    } catch {
      #expect(error.offset == offset)
    }
  }

  /// clang writes extended layouts for Objective-C blocks on Apple targets (ARC). Compile
  /// some, decode each descriptor's layout and compare with the capture kinds clang spells
  /// in the descriptor's own name (`…_e8_32s40r48w_…`: s strong, r byref, w weak).
  @Test func matchesWhatClangWritesForObjectiveC() throws {
    let manyStrong = (0..<17).map { "id a\($0)" }.joined(separator: ", ")
    let useMany = (0..<17).map { "(void)a\($0);" }.joined(separator: " ")
    let source = """
      typedef void (^VB)(void);
      void use(VB);
      void inline1(id a, id b, __weak id w, long n) {
        __block id shared = a;
        use(^{ (void)a; (void)b; (void)w; (void)shared; (void)n; });
      }
      void inline2(id a, long n, char c, id b) { use(^{ (void)a; (void)n; (void)c; (void)b; }); }
      void bytes1(\(manyStrong), __weak id w) { use(^{ \(useMany) (void)w; }); }
      void none(long n) { use(^{ (void)n; }); }
      """
    let folder = try Toolchain.temporaryDirectory("blocksig-layout")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("layout.m")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let ir = try Toolchain.runClang([
      "-target", "arm64-apple-macos13", "-x", "objective-c", "-fobjc-arc", "-fblocks", "-S", "-emit-llvm",
      "-o", "-", file.path,
    ]).stdout
    let strings = ClangIR(ir).strings
    var checked = 0
    for line in ir.split(separator: "\n") where line.hasPrefix("@\"__block_descriptor_") {
      let name = String(line.dropFirst(2).prefix { $0 != "\"" })
      let captures = name.split(separator: "_").dropFirst(4).first.map(String.init) ?? ""
      let strong = captures.filter { $0 == "s" }.count
      let byref = captures.filter { $0 == "r" }.count
      let weak = captures.filter { $0 == "w" }.count
      let initializer = try #require(line.split(separator: "}").dropLast().last?.split(separator: "{").last)
      let last = try #require(initializer.split(separator: ",").last).trimmingCharacters(in: .whitespaces)
      let layout: ExtendedLayout
      if last.hasPrefix("i64 ") {
        layout = ExtendedLayout(inlineValue: try #require(UInt(last.dropFirst(4))))
        #expect(layout.form == .inline)
      } else {
        let symbol = String(last.drop { $0 != "@" }.dropFirst())
        let bytes = try #require(strings[symbol], "\(symbol)")
        layout = try ExtendedLayout(decoding: bytes + [0])
      }
      #expect(layout.strongCount == strong, "\(name)")
      #expect(layout.byrefCount == byref, "\(name)")
      #expect(layout.weakCount == weak, "\(name)")
      checked += 1
    }
    // `none` captures no object: clang still gives it a layout, the empty byte string.
    #expect(checked == 4)
  }
}
