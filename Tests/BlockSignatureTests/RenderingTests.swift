import BlockSignature
import Foundation
import TestSupport
import Testing

@Suite struct RenderingTests {
  static let declarations: [(String, String)] = [
    ("i20@?0i8r*12", "int (^)(int, const char *)"),
    ("v24@?0c8s12B16C20", "void (^)(char, short, _Bool, unsigned char)"),
    ("{P=dic}24@?0r*8^{P=dic}16", "struct P (^)(const char *, struct P *)"),
    ("v24@?0[3D]8[2[3i]]16", "void (^)(long double[3], int[2][3])"),
    ("v@?@?<i@?i>", "void (^)(int (^)(int))"),
    ("i28@0:8i16r*20", "int (*)(id, SEL, int, const char *)"),
    ("v@?^[4i]^?r^v", "void (^)(int (*)[4], void (*)(), const void *)"),
    ("v@?{?=ib3}@\"NSString\"@\"<P>\"", "void (^)(struct { int f0; int f1 : 3; }, NSString *, id<P>)"),
    ("v@?jdAi^^{S}", "void (^)(_Complex double, _Atomic(int), struct S **)"),
    // A list of types (no block, no method): every type, the first one too.
    ("{P=dic}i", "struct P, int"),
  ]

  @Test(arguments: declarations)
  func cDeclaration(_ input: String, _ expected: String) throws {
    #expect(try SignatureEncoding(parsing: input).cDeclaration() == expected)
  }

  static let swiftTypes: [(String, String)] = [
    ("i20@?0i8r*12", "@convention(block) (Int32, UnsafePointer<CChar>?) -> Int32"),
    ("i20@?0i8d12", "@convention(block) (Int32, Double) -> Int32"),
    ("B@?qQ", "@convention(block) (Int, UInt) -> Bool"),
    (
      "v@?^v^^i^{S}r^{P=dic}",
      "@convention(block) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<Int32>?>?, OpaquePointer?, UnsafePointer<P>?) -> Void"
    ),
    ("v@?@?<i@?i>", "@convention(block) ((@convention(block) (Int32) -> Int32)?) -> Void"),
    ("{P=dic}@?[4i]", "@convention(block) (UnsafeMutablePointer<Int32>?) -> P"),
    // Swift's importer: a pointer to a union without fields is opaque, `const void *` is
    // UnsafeRawPointer, a class name's protocol list is dropped.
    ("v@?^(U=)r^v@\"Foo<P>\"", "@convention(block) (OpaquePointer?, UnsafeRawPointer?, Foo?) -> Void"),
  ]

  @Test(arguments: swiftTypes)
  func swiftType(_ input: String, _ expected: String) throws {
    #expect(try SignatureEncoding(parsing: input).swiftType() == expected)
  }

  /// `long double` as Swift imports it: `Float80` where it is the x87 type, `CLongDouble` where
  /// it is a 128-bit float Swift has no literal type for, `Double` where it is a double.
  @Test func longDoubleFollowsTheModel() throws {
    let signature = try SignatureEncoding(parsing: "v@?D")
    let spellings = [DataModel.x86_64SysV, .i386Linux, .aarch64Linux, .arm64Apple, .windowsX64].map {
      signature.swiftType(for: $0)
    }
    #expect(
      spellings == [
        "@convention(block) (Float80) -> Void", "@convention(block) (Float80) -> Void",
        "@convention(block) (CLongDouble) -> Void", "@convention(block) (Double) -> Void",
        "@convention(block) (Double) -> Void",
      ])
  }

  /// Parameter types whose spelling is the one a block type's encoding implies on each target
  /// (`long` where `long` and `long long` share `q`, `char` where it is unsigned and shares `C`
  /// with `unsigned char`). Not a block parameter: outside Apple's extended encodings clang
  /// writes it as `@?`, and its own parameters are lost.
  static func parameterTypes(for model: DataModel) -> [String] {
    var types = [
      "int", "short", "unsigned short", "unsigned", "long", "unsigned long", "float", "double", "long double",
      "char", "const char *", "void *", "const void *", "union U *", "struct P", "struct P *", "const int (*)[4]",
      "_Complex double", "_Bool",
    ]
    if model.longSize == 4 { types += ["long long", "unsigned long long"] }
    if model.isCharSigned { types.append("unsigned char") }
    return types
  }

  /// The C declaration of a block clang compiled, on each target, is the type clang compiled:
  /// a block variable of the rendered type initialised with the original compiles (clang
  /// rejects incompatible block pointer types).
  @Test(arguments: DifferentialLayoutTests.targets.map(\.triple))
  func cDeclarationsNameTheTypeClangCompiled(triple: String) throws {
    let model = try #require(DifferentialLayoutTests.targets.first { $0.triple == triple }?.model)
    let types = Self.parameterTypes(for: model)
    let prelude = "union U { int a; float f; };\nstruct P { double d; int i; char c; };\n"
    // One block per type, and one taking all of them; each returns its first parameter's type.
    var blocks: [(name: String, type: String)] = types.enumerated().map { ("b\($0)", "void (^)(\($1))") }
    blocks.append(("all", "void (^)(" + types.joined(separator: ", ") + ")"))
    blocks.append(("ret", "struct P (^)(long double, const int (*)[4])"))
    func named(_ type: String, _ name: String) -> String {
      type.replacingOccurrences(of: "(^)", with: "(^\(name))", options: [], range: type.range(of: "(^)"))
    }
    func literal(_ type: String) -> String {
      // `void (^)(A, B)` → `^void (A p0, B p1) { … }`: each parameter named where its
      // declarator puts a name (before `)[` for a pointer to array, after `(^` for a block).
      let open = type.range(of: "(^)")!
      let result = String(type[..<open.lowerBound]).trimmingCharacters(in: .whitespaces)
      let parameters = String(type[open.upperBound...].dropFirst().dropLast())
      var depth = 0
      var pieces: [String] = []
      var current = ""
      for character in parameters {
        if character == "(" { depth += 1 }
        if character == ")" { depth -= 1 }
        if character == ",", depth == 0 {
          pieces.append(current.trimmingCharacters(in: .whitespaces))
          current = ""
        } else {
          current.append(character)
        }
      }
      pieces.append(current.trimmingCharacters(in: .whitespaces))
      let declarations = pieces.enumerated().map { index, piece in
        if piece.contains("(*)") { return piece.replacingOccurrences(of: "(*)", with: "(*p\(index))") }
        if piece.contains("(^)") { return named(piece, "p\(index)") }
        return "\(piece) p\(index)"
      }
      let body = result == "void" ? "" : "\(result) r = {0}; return r;"
      return "^\(result) (\(declarations.joined(separator: ", "))) { \(body) }"
    }
    let source = prelude + blocks.map { "\(named($0.type, $0.name)) = \(literal($0.type));\n" }.joined()
    let folder = try Toolchain.temporaryDirectory("blocksig-render")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("blocks.c")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let ir = GeneratedIR(
      try Toolchain.runClang(["--target=\(triple)", "-fblocks", "-w", "-S", "-emit-llvm", "-o", "-", file.path]).stdout)

    // No header: the declarations must compile as they are, `_Bool` included (clang's default C
    // standard has no `bool` keyword before C23).
    var check = source + "void check(void) {\n"
    for (index, block) in blocks.enumerated() {
      let signature = try #require(ir.signature(ofVariable: block.name), "\(block.name) on \(triple)")
      let declaration = try SignatureEncoding(parsing: signature).cDeclaration(for: model)
      check += "  \(named(declaration, "c\(index)")) = \(block.name); (void)c\(index);\n"
    }
    check += "}\n"
    let checkFile = folder.appendingPathComponent("check.c")
    try check.write(to: checkFile, atomically: true, encoding: .utf8)
    let result = try Toolchain.run(
      Toolchain.clang, ["--target=\(triple)", "-fblocks", "-fsyntax-only", checkFile.path])
    #expect(result.status == 0, "\(triple):\n\(result.stderr)")
  }

  @Test func dataModelChangesIntegerSpellings() throws {
    let signature = try SignatureEncoding(parsing: "q@?ql")
    #expect(signature.cDeclaration(for: .x86_64SysV) == "long (^)(long, int)")
    #expect(signature.cDeclaration(for: .i386Linux) == "long long (^)(long long, long)")
    #expect(signature.swiftType(for: .i386Linux) == "@convention(block) (Int64, Int32) -> Int64")
  }
}
