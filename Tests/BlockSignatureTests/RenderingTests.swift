import BlockSignature
import Testing

@Suite struct RenderingTests {
  static let declarations: [(String, String)] = [
    ("i20@?0i8r*12", "int (^)(int, const char *)"),
    ("v24@?0c8s12B16C20", "void (^)(char, short, bool, unsigned char)"),
    ("{P=dic}24@?0r*8^{P=dic}16", "struct P (^)(const char *, struct P *)"),
    ("v24@?0[3D]8[2[3i]]16", "void (^)(long double[3], int[2][3])"),
    ("v@?@?<i@?i>", "void (^)(int (^)(int))"),
    ("i28@0:8i16r*20", "int (*)(id, SEL, int, const char *)"),
    ("v@?^[4i]^?r^v", "void (^)(int (*)[4], void (*)(), const void *)"),
    ("v@?{?=ib3}@\"NSString\"@\"<P>\"", "void (^)(struct { int f0; int f1 : 3; }, NSString *, id<P>)"),
    ("v@?jdAi^^{S}", "void (^)(_Complex double, _Atomic(int), struct S **)"),
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
  ]

  @Test(arguments: swiftTypes)
  func swiftType(_ input: String, _ expected: String) throws {
    #expect(try SignatureEncoding(parsing: input).swiftType() == expected)
  }

  @Test func dataModelChangesIntegerSpellings() throws {
    let signature = try SignatureEncoding(parsing: "q@?ql")
    #expect(signature.cDeclaration(for: .x86_64SysV) == "long (^)(long, int)")
    #expect(signature.cDeclaration(for: .i386Linux) == "long long (^)(long long, long)")
    #expect(signature.swiftType(for: .i386Linux) == "@convention(block) (Int64, Int32) -> Int64")
  }
}
