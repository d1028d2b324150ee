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
    ("v@?@?<i@?i>", "@convention(block) (((Int32) -> Int32)?) -> Void"),
    ("{P=dic}@?[4i]", "@convention(block) (UnsafeMutablePointer<Int32>?) -> P"),
    // Swift's importer: a pointer to a union without fields is opaque, `const void *` is
    // UnsafeRawPointer, a class name's protocol list is dropped.
    ("v@?^(U=)r^v@\"Foo<P>\"", "@convention(block) (OpaquePointer?, UnsafeRawPointer?, Foo?) -> Void"),
  ]

  @Test(arguments: swiftTypes)
  func swiftType(_ input: String, _ expected: String) throws {
    #expect(try SignatureEncoding(parsing: input).swiftType() == expected)
  }

  /// Types whose encoding says everything Swift's importer looks at, written as declarators
  /// (`@` stands for the declared name). Left out, because the encoding loses what the importer
  /// reads: `long long` (`q`, as `long` on LP64), `signed char` (`c`, as `char`), enums (their
  /// integer type), function pointers (`^?`), block parameters (`@?` outside Apple's extended
  /// encodings), `const` on array parameters, typedef names, a complete structure two
  /// pointers deep (`^^{P}`, as an incomplete one).
  static let importedTypes = [
    "int @", "unsigned @", "short @", "unsigned short @", "unsigned char @", "char @", "long @",
    "unsigned long @", "float @", "double @", "long double @", "_Bool @", "_Float16 @", "__int128 @",
    "unsigned __int128 @", "_Complex double @", "_Complex float @", "_Atomic(int) @", "const char *@", "char *@",
    "char **@", "const char **@", "void *@", "const void *@", "void **@", "struct P @", "struct P *@",
    "const struct P *@", "struct Opaque **@", "union U @", "union U *@", "struct Opaque *@", "int *@", "const int *@",
    "int (*@)[4]", "long double *@", "__int128 *@", "_Complex double *@", "_Atomic(int) *@", "int @[4]",
    "struct P @[2]", "struct Q @", "char *const (*@)[4]", "const int **@", "const void **@",
  ]

  /// The Swift type Swift's importer gives each variable `header` declares, by name
  /// (`swift-synthesize-interface` of a module made of it in `folder`, host target): `_` where
  /// it gives up; without the C type it adds to some conventions (`, cType: "…"`), which is not
  /// part of the Swift type, and without the `(…)!` around it.
  static func importedVariables(header: String, in folder: URL) throws -> [String: String] {
    try header.write(to: folder.appendingPathComponent("blocks.h"), atomically: true, encoding: .utf8)
    try "module Blocks {\n  header \"blocks.h\"\n}\n".write(
      to: folder.appendingPathComponent("module.modulemap"), atomically: true, encoding: .utf8)
    let synthesized = try Toolchain.run(
      Toolchain.tool("swift-synthesize-interface"),
      ["-module-name", "Blocks", "-I", folder.path, "-target", "x86_64-unknown-linux-gnu", "-Xcc", "-fblocks"])
    #expect(synthesized.status == 0, "\(synthesized.stderr)")
    var imported: [String: String] = [:]
    for line in synthesized.stdout.split(separator: "\n") where line.hasPrefix("public var ") {
      let parts = line.dropFirst("public var ".count).split(separator: ":", maxSplits: 1)
      var type = parts[1].trimmingCharacters(in: .whitespaces)
        .replacingOccurrences(of: #", cType: "[^"]*""#, with: "", options: .regularExpression)
      if type != "_" { type = String(type.dropFirst().dropLast(2)) }
      imported[String(parts[0])] = type
    }
    return imported
  }

  /// The Swift type of a block is the one Swift's importer gives the C declaration clang
  /// compiled it from (`swift-synthesize-interface`, host target): a block taking each type
  /// and one returning it. Where the importer gives up (`_`), the rendering must say it
  /// approximates (a `/* … */` comment).
  @Test func swiftTypesAreWhatSwiftsImporterGives() throws {
    let prelude = """
      struct P { double d; int i; };
      union U { int a; float f; };
      struct Opaque;
      struct Q { int a[3]; char c; };

      """
    var header = prelude
    var source = prelude
    for (index, type) in Self.importedTypes.enumerated() {
      let spelled = type.replacingOccurrences(of: "@", with: "")
      header += "extern void (^p\(index))(\(spelled));\n"
      // No typedefs on clang's side: through one, clang leaves out `const` (`*`, not `r*`).
      source += "void (^p\(index))(\(spelled)) = ^(\(type.replacingOccurrences(of: "@", with: "x"))) { };\n"
      // Arrays are not returned; an `_Atomic` value read is no longer atomic.
      if (!type.hasSuffix("]") || type.contains("(*@)")) && !type.hasPrefix("_Atomic(int) @") {
        let returning = type.replacingOccurrences(of: "@", with: "(^r\(index))(void)")
        header += "extern \(returning);\n"
        source += "\(returning) = ^{ static \(type.replacingOccurrences(of: "@", with: "v")); return v; };\n"
      }
    }
    let (folder, product) = try Toolchain.compileC(
      source, fileName: "blocks.c", arguments: ["-fblocks", "-w", "-S", "-emit-llvm"], output: "blocks.ll")
    defer { try? FileManager.default.removeItem(at: folder) }
    let ir = GeneratedIR(try String(contentsOf: product, encoding: .utf8))
    let imported = try Self.importedVariables(header: header, in: folder)
    var compared = 0
    var approximated = 0
    for (name, _) in imported.sorted(by: { $0.key < $1.key }) {
      let signature = try #require(ir.signature(ofVariable: name), "\(name)")
      let rendered = try SignatureEncoding(parsing: signature).swiftType(for: .x86_64SysV)
      let index = Int(name.dropFirst())!
      if imported[name] == "_" {
        #expect(rendered.contains("/*"), "\(Self.importedTypes[index]): not imported, rendered \(rendered)")
        approximated += 1
      } else {
        #expect(rendered == imported[name], "\(Self.importedTypes[index]) as \(name) (\(signature))")
        compared += 1
      }
    }
    #expect(compared >= 60 && approximated >= 8, "\(compared) compared, \(approximated) not imported")
  }

  /// Blocks in Apple's extended encodings (`@?<i@?i>`) as the importer gives them: bridged to
  /// Swift closures as parameters and results (`((Int32) -> Int32)?`), `@convention(block)`
  /// behind a pointer or in an array (`swift-synthesize-interface`, host target).
  @Test func nestedBlocksAreWhatSwiftsImporterGives() throws {
    let cases: [(declaration: String, encoding: String)] = [
      ("void (^p)(int (^)(int))", "v@?@?<i@?i>"), ("int (^(^p)(void))(int)", "@?<i@?i>@?"),
      ("void (^p)(void (^)(int (^)(int)))", "v@?@?<v@?@?<i@?i>>"), ("void (^p)(int (^*)(int))", "v@?^@?<i@?i>"),
      ("void (^p)(int (^[2])(int))", "v@?[2@?<i@?i>]"), ("void (^p)(void (^)(void))", "v@?@?<v@?>"),
      ("void (^p)(const char *(^)(void *, double))", "v@?@?<r*@?^vd>"),
    ]
    let folder = try Toolchain.temporaryDirectory("blocksig-nested")
    defer { try? FileManager.default.removeItem(at: folder) }
    let header = cases.enumerated().map {
      "extern \($1.declaration.replacingOccurrences(of: "(^p)", with: "(^p\($0))"));\n"
    }
    let imported = try Self.importedVariables(header: header.joined(), in: folder)
    for (index, item) in cases.enumerated() {
      #expect(
        try SignatureEncoding(parsing: item.encoding).swiftType() == imported["p\(index)"], "\(item.declaration)")
    }
  }

  /// `long double` as Swift imports it: `Float80` where it is the x87 type, `Double` where it
  /// is a double; a 128-bit float (AArch64 Linux) is not imported (Swift's `CLongDouble` is not
  /// defined there), nor is a pointer to it.
  @Test func longDoubleFollowsTheModel() throws {
    let signature = try SignatureEncoding(parsing: "v@?D^D")
    let spellings = [DataModel.x86_64SysV, .i386Linux, .aarch64Linux, .arm64Apple, .windowsX64].map {
      signature.swiftType(for: $0)
    }
    #expect(
      spellings == [
        "@convention(block) (Float80, UnsafeMutablePointer<Float80>?) -> Void",
        "@convention(block) (Float80, UnsafeMutablePointer<Float80>?) -> Void",
        "@convention(block) (/* long double */, OpaquePointer?) -> Void",
        "@convention(block) (Double, UnsafeMutablePointer<Double>?) -> Void",
        "@convention(block) (Double, UnsafeMutablePointer<Double>?) -> Void",
      ])
  }

  /// The importer of Embedded Swift, the one this toolchain has for other targets, on the
  /// types whose import does not depend on the operating system: on i686, C's `long` is `Int`
  /// (a 4-byte `l`); on AArch64 `char` (`C`) is still `CChar`, `signed char` (`c`) is `Int8`,
  /// and `long double` is not imported.
  @Test(arguments: [
    ("i686-unknown-none-elf", "i386-linux-gnu", DataModel.i386Linux),
    ("aarch64-none-none-elf", "aarch64-linux-gnu", DataModel.aarch64Linux),
  ])
  func swiftTypesOnOtherTargets(swiftTarget: String, clangTarget: String, model: DataModel) throws {
    // `unsigned char` and `char` are both `C` where `char` is unsigned (read as `char`); `long`
    // and `long long` are both `q` where `long` has 8 bytes (read as `long`).
    var types = [
      "long", "unsigned long", "int", "char", "short", "const char *", "void *", "long *", "const unsigned long **",
      "char *",
    ]
    // Each of `c` and `C` also names `signed char` or `unsigned char`, whichever `char` is not.
    types.append(model.isCharSigned ? "unsigned char" : "signed char")
    if model.longSize == 4 { types += ["long long", "unsigned long long"] }
    let parameters = types.enumerated().map { "\($1) x\($0)" }.joined(separator: ", ")
    let declaration = "void (^p)(\(parameters))"
    var source = "\(declaration) = ^(\(parameters)) { };\n"
    let isAArch64 = model == .aarch64Linux
    if isAArch64 { source += "void (^q)(long double) = ^(long double x) { };\n" }
    let (folder, product) = try Toolchain.compileC(
      source, fileName: "blocks.c", arguments: ["--target=\(clangTarget)", "-fblocks", "-S", "-emit-llvm"],
      output: "blocks.ll")
    defer { try? FileManager.default.removeItem(at: folder) }
    let ir = GeneratedIR(try String(contentsOf: product, encoding: .utf8))

    // `let x: Never = p` makes the type checker print the type it imported `p` as.
    func imported(_ header: String, _ name: String) throws -> String {
      try "extern \(header);\n".write(to: folder.appendingPathComponent("h.h"), atomically: true, encoding: .utf8)
      try "let x: Never = \(name)\n".write(
        to: folder.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
      let result = try Toolchain.run(
        Toolchain.tool("swiftc"),
        [
          "-target", swiftTarget, "-enable-experimental-feature", "Embedded", "-wmo", "-typecheck",
          "-import-objc-header", "h.h", "main.swift", "-Xcc", "-fblocks",
        ], currentDirectory: folder)
      let text = result.stdout + result.stderr
      if text.contains("cannot reference invalid declaration '\(name)'") { return "_" }
      let marker = "cannot convert value of type '("
      let start = try #require(text.range(of: marker), "\(text)")
      let end = try #require(text[start.upperBound...].range(of: ")?' "), "\(text)")
      return String(text[start.upperBound..<end.lowerBound])
    }
    let signature = try #require(ir.signature(ofVariable: "p"))
    #expect(
      try SignatureEncoding(parsing: signature).swiftType(for: model) == imported(declaration, "p"),
      "\(signature) on \(clangTarget)")
    if isAArch64 {
      let longDouble = try #require(ir.signature(ofVariable: "q"))
      #expect(try imported("void (^q)(long double)", "q") == "_")
      #expect(try SignatureEncoding(parsing: longDouble).swiftType(for: model).contains("/*"))
    }
  }

  /// Parameter types whose spelling is the one a block type's encoding implies on each target
  /// (`long` where `long` and `long long` share `q`, `char` where it is unsigned and shares `C`
  /// with `unsigned char`, `signed char` there, the only type that is `c`). Not a block
  /// parameter: outside Apple's extended encodings clang writes it as `@?`, and its own
  /// parameters are lost.
  static func parameterTypes(for model: DataModel) -> [String] {
    var types = [
      "int", "short", "unsigned short", "unsigned", "long", "unsigned long", "float", "double", "long double",
      "char", "const char *", "void *", "const void *", "union U *", "struct P", "struct P *", "const int (*)[4]",
      "_Complex double", "_Bool", "char *const (*)[4]", "const char **",
    ]
    if model.longSize == 4 { types += ["long long", "unsigned long long"] }
    types.append(model.isCharSigned ? "unsigned char" : "signed char")
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
      let pieces = splitAtTopLevelCommas(parameters)
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
    #expect(signature.swiftType(for: .i386Linux) == "@convention(block) (Int64, Int) -> Int64")
    #expect(signature.swiftType(for: .windowsX64) == "@convention(block) (Int64, Int32) -> Int64")
  }
}
