import BlockSignature
import Foundation
import TestSupport
import Testing

/// Random C block types compiled by the toolchain's clang at test time; the encodings clang
/// writes are parsed, printed, laid out and re-synthesised, and every size, alignment, field
/// offset and parameter offset is compared with what clang computed (`sizeof`, `_Alignof`,
/// `offsetof` stored as global constants and read back from the IR). The C declaration
/// rendered from each signature whose types all have a name must be the type clang compiled
/// (``expectRenderedDeclarationsCompile(_:prelude:triple:model:in:)``).
///
/// `BLOCKSIG_DIFF_SEED` fixes the seed (printed on every run); `BLOCKSIG_DIFF_COUNT` sets the
/// number of blocks per target (default 60).
@Suite(.serialized) struct DifferentialLayoutTests {
  static let targets: [(triple: String, model: DataModel)] = [
    ("x86_64-unknown-linux-gnu", .x86_64SysV),
    ("aarch64-unknown-linux-gnu", .aarch64Linux),
    ("arm64-apple-macosx", .arm64Apple),
    ("i386-unknown-linux-gnu", .i386Linux),
    ("x86_64-pc-windows-msvc", .windowsX64),
  ]

  static let seed: UInt64 = {
    if let text = ProcessInfo.processInfo.environment["BLOCKSIG_DIFF_SEED"], let value = UInt64(text) { return value }
    return 20_261_122
  }()

  static let count: Int = {
    ProcessInfo.processInfo.environment["BLOCKSIG_DIFF_COUNT"].flatMap(Int.init) ?? 60
  }()

  @Test(arguments: targets.map(\.triple))
  func randomBlocksMatchClang(triple: String) throws {
    let model = try #require(Self.targets.first { $0.triple == triple }?.model)
    print(
      "DifferentialLayoutTests seed \(Self.seed) count \(Self.count) target \(triple) (BLOCKSIG_DIFF_SEED to replay)")
    // Clang writes Apple's extended block encodings (`@?<i@?i>`) for Darwin targets only.
    var generator = CTypeGenerator(seed: Self.seed, model: model, extendedBlockEncodings: triple.contains("apple"))
    let program = generator.program(blocks: Self.count)
    let folder = try Toolchain.temporaryDirectory("blocksig-diff")
    defer { try? FileManager.default.removeItem(at: folder) }
    let source = folder.appendingPathComponent("random.c")
    try program.source.write(to: source, atomically: true, encoding: .utf8)
    let output = try Toolchain.runClang([
      "--target=\(triple)", "-fblocks", "-w", "-S", "-emit-llvm", "-o", "-", source.path,
    ])
    let ir = GeneratedIR(output.stdout)
    let context = "seed \(Self.seed) target \(triple)"
    var rendered: [(block: GeneratedBlock, signature: String)] = []

    for block in program.blocks {
      let text = try #require(ir.signature(ofVariable: "b\(block.index)"), "b\(block.index) \(context)")
      rendered.append((block, text))
      let signature = try SignatureEncoding(parsing: text)
      #expect(signature.description == text, "round trip \(context)")
      #expect(signature.kind == .block)
      #expect(signature.arguments.count == block.parameters.count + 1, "\(text) \(context)")
      let layout = try signature.layout(for: model)
      #expect(layout.offsetsMatch, "\(text): \(layout.notes) \(context)")
      // The single-pass path gives the same numbers as the tree (SignatureFrameTests).
      #expect(expectFrameAgreement(Array(text.utf8), model: model), "\(context)")
      let resynthesized = try signature.strippingOffsets().synthesizingOffsets(for: model)
      #expect(resynthesized.description == text, "synthesis \(context)")
      #expect(signature.compatibleDataModels().contains(model), "\(text) \(context)")

      let typed =
        [(block.returnType, signature.returnType)]
        + zip(block.parameters, signature.arguments.dropFirst().map(\.type)).map { ($0, $1) }
      for (ctype, encoding) in typed {
        let typeLayout = try encoding.layout(for: model)
        let size = try #require(ir.constants["sz_\(ctype.id)"])
        let alignment = try #require(ir.constants["al_\(ctype.id)"])
        #expect(
          typeLayout.size == size,
          "size of \(ctype.spelling) = \(encoding): \(typeLayout.size) vs clang \(size) \(context)")
        #expect(typeLayout.alignment == alignment, "alignment of \(ctype.spelling) = \(encoding) \(context)")
        #expect(typeLayout.caveats.subtracting(.bitfieldUnitAssumed).isEmpty, "\(encoding) \(typeLayout.caveats)")
        #expect(typeLayout.caveats.contains(.bitfieldUnitAssumed) == ctype.hasBitfields, "\(encoding)")
        for (field, offset) in ctype.fieldOffsetIDs {
          let expected = try #require(ir.constants[offset])
          #expect(typeLayout.offsets[field] == expected, "offset of field \(field) in \(encoding) \(context)")
        }
      }
    }
    try expectRenderedDeclarationsCompile(
      rendered, prelude: generator.prelude, triple: triple, model: model, in: folder)
  }

  /// The C declaration rendered from each block's signature names the type clang compiled:
  /// `RENDERED cN = bN;` compiles (`-fsyntax-only`, one run for all blocks), `bN` declared with
  /// the generator's typedefs. Only blocks whose every type ``CType/rendersBack``.
  func expectRenderedDeclarationsCompile(
    _ blocks: [(block: GeneratedBlock, signature: String)], prelude: String, triple: String, model: DataModel,
    in folder: URL
  ) throws {
    var declarations = ""
    var checks = ""
    var checked = 0
    for (block, text) in blocks where ([block.returnType] + block.parameters).allSatisfy(\.rendersBack) {
      let parameters = block.parameters.map(\.id).joined(separator: ", ")
      declarations += "extern \(block.returnType.id) (^b\(block.index))(\(parameters.isEmpty ? "void" : parameters));\n"
      let declaration = try SignatureEncoding(parsing: text).cDeclaration(for: model)
      let types = ([block.returnType] + block.parameters).map(\.spelling).joined(separator: " | ")
      checks +=
        "  \(Self.naming(declaration, "c\(block.index)")) = b\(block.index); (void)c\(block.index);  // \(text): \(types)\n"
      checked += 1
    }
    let source = prelude + declarations + "void check(void) {\n" + checks + "}\n"
    let file = folder.appendingPathComponent("rendered.c")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let result = try Toolchain.run(
      Toolchain.clang, ["--target=\(triple)", "-fblocks", "-fsyntax-only", "-ferror-limit=0", file.path])
    print("DifferentialLayoutTests rendered \(checked) of \(blocks.count) block types back on \(triple)")
    // About a third of the blocks have only such types; the skips must not take them all.
    #expect(checked * 10 >= blocks.count, "\(checked) of \(blocks.count) checked on \(triple)")
    // The lines clang rejects, each with the encoding and the generated types it came from.
    let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
    let rejected = result.stderr.split(separator: "\n").compactMap { line -> String? in
      guard let range = line.range(of: "rendered.c:"),
        let number = Int(line[range.upperBound...].prefix { $0.isNumber })
      else { return nil }
      return lines.indices.contains(number - 1) ? String(lines[number - 1]) : nil
    }
    #expect(result.status == 0, "seed \(Self.seed) target \(triple):\n\(rejected.joined(separator: "\n"))")
  }

  /// `name` declared by a rendered block type, in its first `(^)`: a block or function pointer
  /// it returns wraps it, with only `(^` or `(*` before it (`void (*(^)(int))()`).
  static func naming(_ type: String, _ name: String) -> String {
    type.replacingOccurrences(of: "(^)", with: "(^\(name))", options: [], range: type.range(of: "(^)"))
  }
}

extension DifferentialLayoutTests {
  /// A zero-size structure followed by a vector: clang writes both at the same offset (`88`).
  @Test func zeroSizeStructureBeforeUnencodableParameter() throws {
    let source = """
      struct S { short a[0]; };
      struct T { char *p; int b : 4; void *q[4]; char *r; };
      typedef int v4 __attribute__((vector_size(16)));
      void *b0 = ^ _Bool (struct S s, v4 v, struct T t) { return 0; };
      void *b1 = ^ int (struct S s, struct S s2, v4 v) { return 0; };
      void *b2 = ^ int (struct S s, v4 v, v4 w) { return 0; };
      """
    let folder = try Toolchain.temporaryDirectory("blocksig-zero")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("zero.c")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let output = try Toolchain.runClang(["-fblocks", "-w", "-S", "-emit-llvm", "-o", "-", file.path])
    let ir = GeneratedIR(output.stdout)
    let expected: [(String, [String], [Int])] = [
      ("b0", ["@?", "{S=[0s]}", "", "{T=*b4[4^v]*}"], [0, 8, 8, 24]),
      ("b1", ["@?", "{S=[0s]}", "{S=[0s]}", ""], [0, 8, 8, 8]),
      ("b2", ["@?", "{S=[0s]}", "", ""], [0, 8, 8, 24]),
    ]
    for (variable, types, offsets) in expected {
      let text = try #require(ir.signature(ofVariable: variable))
      let signature = try SignatureEncoding(parsing: text)
      #expect(signature.arguments.map(\.type.description) == types, "\(text)")
      #expect(signature.arguments.map { $0.offset?.value } == offsets, "\(text)")
      #expect(signature.description == text)
      let layout = try signature.layout(for: .x86_64SysV)
      #expect(layout.offsetsMatch, "\(text): \(layout.notes)")
      #expect(layout.offsets == offsets, "\(text)")
    }
  }
}

/// A C type made by the generator: its typedef name and what the test needs to know.
struct CType {
  var id: String
  var spelling: String
  var hasBitfields = false
  var isArray = false
  /// (field index, name of the offsetof constant) for non-bitfield fields.
  var fieldOffsetIDs: [(Int, String)] = []
  /// Whether the C declaration rendered from clang's encoding of the type is this type (one
  /// compatible with it, by C's rules), as a parameter or result.
  var rendersBack = true
}

struct GeneratedBlock {
  var index: Int
  var returnType: CType
  var parameters: [CType]
}

/// Emits typedefs, blocks and `sizeof`/`_Alignof`/`offsetof` constants.
struct CTypeGenerator {
  var rng: SeededRandom
  let model: DataModel
  let extendedBlockEncodings: Bool
  var prelude = ""
  var constants = ""
  var counter = 0

  init(seed: UInt64, model: DataModel, extendedBlockEncodings: Bool = false) {
    rng = SeededRandom(seed: seed)
    self.model = model
    self.extendedBlockEncodings = extendedBlockEncodings
  }

  /// Whether the encoding of `scalar` (one of ``scalarSpelling()``'s, through a typedef) says
  /// which type it is, so that its C rendering is that type. Not where the encoding is ambiguous
  /// or drops what makes the type:
  /// - `enum E`: clang writes `i` for an enumeration whatever its compatible integer type
  ///   (`unsigned int` for this one, on most targets), and the name is lost;
  /// - `signed char` where `char` is signed (`c` is both), `unsigned char` where it is unsigned
  ///   (`C` is both); the renderer spells each code as plain `char` there;
  /// - `long long`, `unsigned long long`, `_Atomic long long` where `long` has 8 bytes (`q` is
  ///   both, rendered `long`);
  /// - `const char *`, `const int *`: through a typedef clang drops the pointee's `const`
  ///   (`*`, `^i`: no `r`);
  /// - `int (^)(int)` without Apple's extended encodings: `@?` drops the block's signature,
  ///   rendered `void (^)()`, which is compatible with `void (^)(void)` but not with a block
  ///   returning `int`.
  func rendersBack(_ scalar: String) -> Bool {
    switch scalar {
    case "enum E", "const char *", "const int *": false
    case "signed char": !model.isCharSigned
    case "unsigned char": model.isCharSigned
    case "long long", "unsigned long long", "_Atomic long long": model.longSize != 8
    case "int (^)(int)": extendedBlockEncodings
    default: true
    }
  }

  mutating func program(blocks count: Int) -> (source: String, blocks: [GeneratedBlock]) {
    var blocks: [GeneratedBlock] = []
    var literals = ""
    for index in 0..<count {
      var returnType = type(depth: 0)
      while returnType.isArray { returnType = type(depth: 0) }
      let parameters = (0..<Int.random(in: 0...4, using: &rng)).map { _ in type(depth: 0) }
      let list = parameters.enumerated().map { "\($1.id) a\($0)" }.joined(separator: ", ")
      literals +=
        "void *b\(index) = ^ \(returnType.id) (\(list.isEmpty ? "void" : list)) { static \(returnType.id) r; return r; };\n"
      blocks.append(GeneratedBlock(index: index, returnType: returnType, parameters: parameters))
    }
    return (prelude + constants + literals, blocks)
  }

  private mutating func pick<T>(_ options: [T]) -> T { options[Int.random(in: 0..<options.count, using: &rng)] }

  mutating func scalarSpelling() -> String {
    var options = [
      "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int", "long",
      "unsigned long", "long long", "unsigned long long", "float", "double", "long double", "_Bool",
      "_Complex float", "_Complex double", "_Complex long double", "enum E", "_Atomic int", "_Atomic char",
      "_Atomic long long", "_Atomic double", "_Atomic short",
      "int *", "const char *", "char *", "void *", "const int *", "int **", "void (*)(void)", "int (^)(int)",
      "void (^)(void)", "struct Opaque *",
    ]
    if model.hasInt128 { options += ["__int128", "unsigned __int128"] }
    return pick(options)
  }

  /// A new typedef `T_n` for a random type, its constants emitted.
  mutating func type(depth: Int) -> CType {
    counter += 1
    let number = counter
    let id = "T_\(number)"
    var result = CType(id: id, spelling: "")
    let choice = depth >= 3 ? 0 : Int.random(in: 0..<10, using: &rng)
    switch choice {
    case 0...4:
      let scalar = scalarSpelling()
      result.spelling = scalar
      result.rendersBack = rendersBack(scalar)
      if scalar.contains("(*)") {
        prelude += "typedef void (*\(id))(void);\n"
      } else if scalar.contains("(^)") {
        prelude += scalar.hasPrefix("int") ? "typedef int (^\(id))(int);\n" : "typedef void (^\(id))(void);\n"
      } else {
        prelude += "typedef \(scalar) \(id);\n"
      }
    case 5:
      let element = type(depth: depth + 1)
      let count = Int.random(in: 1...4, using: &rng)
      prelude += "typedef \(element.id) \(id)[\(count)];\n"
      result.spelling = "\(element.spelling)[\(count)]"
      result.isArray = true
      result.hasBitfields = element.hasBitfields
      // An array's element block is `@?` even in Apple's extended encodings (`[3@?]`).
      result.rendersBack = element.rendersBack && element.spelling != "int (^)(int)"
    default:
      let isUnion = choice == 9
      let keyword = isUnion ? "union" : "struct"
      let named = Bool.random(using: &rng)
      var body = ""
      var fieldIndex = 0
      for _ in 0..<Int.random(in: 1...5, using: &rng) {
        if Int.random(in: 0..<4, using: &rng) == 0 {
          // Bitfields whose unit a NeXT encoding (which drops the type) assumes right: `int` up
          // to 32 bits, `long long` above, and unnamed zero-width `int` ones.
          switch Int.random(in: 0..<6, using: &rng) {
          case 0: body += "int : 0; "
          case 1:
            let width = Int.random(in: 33...63, using: &rng)
            body += "\(pick(["long long", "unsigned long long"])) f\(fieldIndex) : \(width); "
          default:
            let width = Int.random(in: 1...31, using: &rng)
            body += "\(pick(["int", "unsigned int"])) f\(fieldIndex) : \(width); "
          }
          result.hasBitfields = true
        } else {
          let field = type(depth: depth + 1)
          result.hasBitfields = result.hasBitfields || field.hasBitfields
          body += "\(field.id) f\(fieldIndex); "
          result.fieldOffsetIDs.append((fieldIndex, "off_\(id)_\(fieldIndex)"))
          constants += "const unsigned long long off_\(id)_\(fieldIndex) = __builtin_offsetof(\(id), f\(fieldIndex));\n"
        }
        fieldIndex += 1
      }
      prelude +=
        named
        ? "\(keyword) S_\(number) { \(body)};\ntypedef \(keyword) S_\(number) \(id);\n"
        : "typedef \(keyword) { \(body)} \(id);\n"
      result.spelling = "\(keyword) { \(body)}"
      // `struct { … }` is a new type wherever it is written: only a tag names the same one.
      result.rendersBack = named
    }
    if number == 1 { prelude = "enum E { E0, E1 };\n" + prelude }
    constants += "const unsigned long long sz_\(id) = sizeof(\(id));\n"
    constants += "const unsigned long long al_\(id) = _Alignof(\(id));\n"
    return result
  }
}

/// The constants and block signatures in the generated IR.
struct GeneratedIR {
  var constants: [String: Int] = [:]
  var lines: [String: String] = [:]

  init(_ ir: String) {
    for line in ir.split(separator: "\n") where line.hasPrefix("@") {
      let name = String(line.prefix { $0 != " " }.dropFirst())
      lines[name] = String(line)
      if let range = line.range(of: "constant i64 ") {
        constants[name] = Int(line[range.upperBound...].prefix { $0.isNumber })
      }
    }
  }

  /// `@bN = global ptr @literal` → literal → descriptor → `@.str` → the signature.
  func signature(ofVariable variable: String) -> String? {
    guard let literal = lines[variable].flatMap({ Self.lastSymbol(in: $0) }),
      let literalLine = lines[literal], let descriptor = Self.lastSymbol(in: literalLine),
      let descriptorLine = lines[descriptor],
      let strRange = descriptorLine.range(of: "ptr @.str")
    else { return nil }
    let name = String(
      descriptorLine[descriptorLine.index(strRange.lowerBound, offsetBy: 5)...].prefix {
        $0 != "," && $0 != " " && $0 != "}"
      })
    guard let stringLine = lines[name], let open = stringLine.range(of: "c\""),
      let close = stringLine.range(of: "\\00\"", range: open.upperBound..<stringLine.endIndex)
    else { return nil }
    return String(stringLine[open.upperBound..<close.lowerBound])
  }

  static func lastSymbol(in line: String) -> String? {
    guard
      let at = line.range(of: "ptr @", options: .backwards, range: line.index(after: line.startIndex)..<line.endIndex)
    else {
      return nil
    }
    return String(line[at.upperBound...].prefix { $0 != "," && $0 != " " && $0 != "}" })
  }
}
