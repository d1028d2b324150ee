import BlockSignature
import Foundation
import TestSupport
import Testing

/// The examples in the DocC comments of `Sources/BlockSignature` and in the DocC catalog, with
/// the results their trailing comments claim. A test names the file the example is in; when
/// an example changes, change its test, and the other way round. Examples whose results are
/// live addresses, or that need files that do not exist (`libfoo.so`), are left out.
@Suite struct DocumentationExampleTests {
  // MARK: Encoding

  /// SignatureEncoding.swift
  @Test func signatureEncoding() throws {
    let signature = try SignatureEncoding(parsing: "i20@?0i8r*12")
    #expect(signature.kind == .block)
    #expect(signature.returnType == .primitive(.int))
    #expect(signature.frameLength?.value == 20)
    #expect(signature.arguments[2].offset?.value == 12)
    #expect(try SignatureEncoding(parsing: "i20@?0i8r*12").strippingOffsets().description == "i@?ir*")
    #expect(SignatureEncoding.Offset(8).description == "8")
    #expect(SignatureEncoding.Offset(8, isRegister: true).description == "+8")
    #expect(SignatureEncoding.Offset(-4).description == "-4")
  }

  /// SignatureEncoding+Parsing.swift: an empty parameter is recovered as unencodable.
  @Test func unencodableParameter() throws {
    let block = try SignatureEncoding(parsing: "v24@?08")
    #expect(block.arguments[1].type == .unencodable)
    #expect(block.arguments[1].offset?.value == 8)
  }

  /// TypeEncoding.swift, TypeEncoding+Description.swift
  @Test func typeEncoding() throws {
    let type = try TypeEncoding(parsing: "^{P=dic}")
    guard case .pointer(.structure(name: "P", fields: let fields?)) = type else {
      Issue.record("not a pointer to a structure P with fields: \(type)")
      return
    }
    #expect(fields.first?.type == .primitive(.double))
    #expect("\(type)" == "^{P=dic}")
    #expect(TypeCode(rawValue: UInt8(ascii: "q")) == .longLong)
    #expect(try TypeEncoding(parsing: "r*") == .qualified(.const, .primitive(.cString)))
    #expect(try TypeEncoding(parsing: "rn^i").unqualified.description == "^i")
    #expect(try TypeEncoding(parsing: "^{S=i}").description == "^{S=i}")
  }

  /// EncodingError.swift
  @Test func encodingError() throws {
    #expect {
      _ = try TypeEncoding(parsing: "{S=i")
    } throws: { error in
      guard let error = error as? EncodingError else { return false }
      return "\(error)" == "unterminated structure at offset 0" && error.kind == .unterminatedStructure
        && error.offset == 0
    }
    #expect {
      _ = try TypeEncoding(parsing: "^^^x")
    } throws: { error in
      "\(error)" == "unexpected byte 'x' at offset 3"
    }
    var options = ParseOptions()
    options.maximumNestingDepth = 20
    #expect(try TypeEncoding(parsing: "^^^^i", options: options).description == "^^^^i")
  }

  // MARK: Layout

  /// TypeLayout.swift, DataModel.swift
  @Test func typeLayout() throws {
    let layout = try TypeEncoding(parsing: "{P=dic}").layout(for: .x86_64SysV)
    #expect(layout.size == 16)
    #expect(layout.alignment == 8)
    #expect(layout.offsets == [0, 8, 12])
    #expect(layout.isExact)
    #expect(try TypeEncoding(parsing: "[3D]").layout(for: .i386Linux).size == 36)
    #expect(try TypeEncoding(parsing: "{?=cD}").layout(for: .i386Linux).size == 16)
    #expect(DataModel(named: "i386") == .i386Linux)
    var model = DataModel.aarch64Linux
    model.name = "aarch64-custom"
    #expect(model.callingConvention == .aapcs64)
    #expect(DataModel.arm64Apple.callingConvention == .appleARM64)
  }

  /// TypeLayout.swift: LayoutError's example parses, then overflows.
  @Test func layoutError() throws {
    let huge = try TypeEncoding(parsing: "[9999999999999999999q]")
    #expect(throws: LayoutError(kind: .sizeOverflow, encoding: "[9999999999999999999q]")) {
      _ = try huge.layout(for: .x86_64SysV)
    }
    #expect(
      LayoutError(kind: .sizeOverflow, encoding: "[9999999999999999999q]").description
        == "size overflow in [9999999999999999999q]")
  }

  /// SignatureLayout.swift
  @Test func signatureLayout() throws {
    let signature = try SignatureEncoding(parsing: "i20@?0i8r*12")
    let layout = try signature.layout(for: .x86_64SysV)
    #expect(layout.arguments.map(\.offset) == [0, 8, 12])
    #expect(layout.frameLength == 20)
    #expect(layout.notes.isEmpty)
    // LayoutNote's message, from a signature that writes argument 2 at 12 after a long long.
    let misplaced = try SignatureEncoding(parsing: "v24@?0q8i12").layout(for: .x86_64SysV)
    #expect(misplaced.notes.first?.message == "argument 2 is at 12; clang would write 16")
    #expect(try TypeEncoding(parsing: "c").parameterSlotSize(for: .x86_64SysV) == 4)
    #expect(try TypeEncoding(parsing: "[4i]").parameterSlotSize(for: .x86_64SysV) == 8)
    let long = try SignatureEncoding(parsing: "i24@?0i8r*12").layout(for: .x86_64SysV)
    #expect(long.notes.map(\.message) == ["frame length is 24; clang would write 20"])
    #expect(
      try SignatureEncoding(parsing: "i@?ir*").synthesizingOffsets(for: .x86_64SysV).description == "i20@?0i8r*12")
    #expect(try SignatureEncoding(parsing: "v12@?0q4").compatibleDataModels() == [.i386Linux])
  }

  /// SignatureFrame.swift, SignatureFrame+Reader.swift
  @Test func signatureFrame() throws {
    // The type's own example is SignatureFrameTests.documentedExample; here the rest.
    #expect(try SignatureFrame(parsing: "v24@0:8@16", for: .x86_64SysV).arguments.count == 3)
    var reader = SignatureFrame.Reader(model: .x86_64SysV)
    var total = 0
    for signature in ["v8@?0", "i20@?0i8r*12"] {
      total += try reader.frame(parsing: signature).frameLength
    }
    #expect(total == 28)
  }

  // MARK: Rendering

  /// TypeEncoding+CDeclaration.swift
  @Test func cDeclarations() throws {
    #expect(try TypeEncoding(parsing: "r*").cDeclaration() == "const char *")
    #expect(try TypeEncoding(parsing: "^[4i]").cDeclaration(name: "p") == "int (*p)[4]")
    #expect(try TypeEncoding(parsing: "B").cDeclaration() == "_Bool")
    #expect(try TypeEncoding(parsing: "r^^i").cDeclaration() == "const int **")
    #expect(try TypeEncoding(parsing: "r^[4*]").cDeclaration() == "char *const (*)[4]")
    #expect(try SignatureEncoding(parsing: "i20@?0i8r*12").cDeclaration() == "int (^)(int, const char *)")
    #expect(try SignatureEncoding(parsing: "i20@0:8i16").cDeclaration() == "int (*)(id, SEL, int)")
    #expect(try SignatureEncoding(parsing: "v16@?0@?<i@?i>8").cDeclaration() == "void (^)(int (^)(int))")
    let signature = try SignatureEncoding(parsing: " 28@?0 8 10 12")
    #expect(signature.cDeclaration(ofArgument: 3) == "__float128")
    #expect(signature.cDeclaration(ofArgument: 1) == "_Float16")
    #expect(signature.cDeclaration() == "_Float16 (^)(_Float16, _Float16, __float128)")
  }

  /// TypeEncoding+SwiftType.swift
  @Test func swiftTypes() throws {
    #expect(try TypeEncoding(parsing: "r*").swiftType() == "UnsafePointer<CChar>?")
    #expect(try TypeEncoding(parsing: "q").swiftType() == "Int")
    #expect(try TypeEncoding(parsing: "r^*").swiftType() == "UnsafeMutablePointer<UnsafePointer<CChar>?>?")
    #expect(try TypeEncoding(parsing: "@?<i@?i>").swiftType() == "((Int32) -> Int32)?")
    #expect(
      try TypeEncoding(parsing: "^@?<i@?i>").swiftType()
        == "UnsafeMutablePointer<(@convention(block) (Int32) -> Int32)?>?")
    #expect(
      try SignatureEncoding(parsing: "i20@?0i8r*12").swiftType()
        == "@convention(block) (Int32, UnsafePointer<CChar>?) -> Int32")
    #expect(
      try SignatureEncoding(parsing: "i20@0:8i16").swiftType()
        == "@convention(c) (AnyObject?, OpaquePointer?, Int32) -> Int32")
    let signature = try SignatureEncoding(parsing: " 28@?0 8 10 12")
    #expect(signature.swiftType() == "@convention(block) (Float16, Float16, /* __float128 */) -> Float16")
    #expect(signature.swiftType(ofArgument: 1) == "Float16")
    #expect(signature.swiftType(ofArgument: 3) == "/* __float128 */")
  }

  // MARK: Method signatures and conversions

  /// MethodSignature.swift
  @Test func methodSignature() throws {
    let signature = try MethodSignature(parsing: "i20@?0i8r*12")
    #expect(signature.isBlock)
    #expect(signature.numberOfArguments == 3)
    #expect(signature.argumentType(at: 2)?.description == "r*")
    #expect(signature.arguments[2].offset == 12)
    #expect(signature.methodReturnLength == 4)
    #expect(signature.frameLength == 20)
    #expect(try signature.converted(to: .method).description == "i28@0:8i16r*20")
    let encoding = try SignatureEncoding(parsing: "v24@0:8@16")
    #expect(try MethodSignature(encoding).numberOfArguments == 3)
    #expect(try MethodSignature(parsing: "v16@?0@8").numberOfArguments == 2)
    let types = [try TypeEncoding(parsing: "i"), try TypeEncoding(parsing: "r*")]
    #expect(
      try MethodSignature(returnType: .primitive(.int), argumentTypes: types, form: .block).description
        == "i20@?0i8r*12")
    #expect(try MethodSignature(parsing: "v24@0:8@16").argumentType(at: 1)?.description == ":")
    #expect(try MethodSignature(parsing: "Vv16@0:8").isOneway)
    #expect(try MethodSignature(parsing: "v16@?0@8").converted(to: .method).description == "v24@0:8@16")
  }

  /// SignatureEncoding+Conversion.swift, SignatureError.swift
  @Test func conversions() throws {
    #expect(SignatureEncoding.hiddenArgumentCount(of: .method) == 2)
    let block = try SignatureEncoding(parsing: "i20@?0i8r*12")
    #expect(try block.converted(to: .method).description == "i28@0:8i16r*20")
    #expect(try block.converted(to: .types).description == "i12i0r*4")
    #expect(try SignatureEncoding(parsing: "v24@0:8@16").converted(to: .block).description == "v16@?0@8")
    #expect(try block.methodEncoding().description == "i28@0:8i16r*20")
    #expect(try SignatureEncoding(parsing: "i28@0:8i16r*20").blockEncoding().description == "i20@?0i8r*12")
    #expect(try SignatureEncoding(parsing: "v24@0:8@16").functionEncoding().description == "v8@0")
    #expect {
      _ = try SignatureEncoding(parsing: "v24@0:8@16").converted(from: .block, to: .method)
    } throws: { error in
      "\(error)" == "cannot convert v24@0:8@16 from block form: argument 0 is @, not a block (@?)"
    }
  }

  // MARK: Compatibility

  /// CompatibilityChecker.swift, Diagnostic.swift, CompatibilityMessages.swift
  @Test func compatibility() throws {
    let checker = try CompatibilityChecker(level: .abi)
    #expect(checker.model == DataModel.host)
    #expect(CompatibilityChecker(level: .abi, model: .aarch64Linux).model.name == "aarch64-linux")
    let report = checker.check(
      try SignatureEncoding(parsing: "v20@?0q8i16"),
      against: try SignatureEncoding(parsing: "v24@0:8i16i20"))
    #expect(!report.isCompatible)
    #expect(report.diagnostics.first?.message == "argument 1: size 8 does not match size 4 (q vs i)")
    #expect(try !CompatibilityChecker(level: .blocksKit).check("v@?i", against: "v@:d").isCompatible)
    let type = try SwiftFunctionType(parsing: "(Int32, UnsafePointer<CChar>?) -> Int32")
    #expect(
      try CompatibilityChecker().check(try SignatureEncoding(parsing: "i20@?0i8r*12"), against: type).isCompatible)
    // TypeEncoding+Equivalence.swift: an unexpanded structure is equivalent to its expansion.
    #expect(try CompatibilityChecker(level: .equivalent).check("v@?^^{S}", against: "v@?^^{S=dd}").isCompatible)

    let blocks = try CompatibilityChecker(level: .abi).check(
      try SignatureEncoding(parsing: "v20@?0q8i16"), against: try SignatureEncoding(parsing: "v16@?0i8i12"))
    let diagnostic = try #require(blocks.diagnostics.first)
    #expect(diagnostic.severity == .error)
    #expect(diagnostic.message == "argument 1: size 8 does not match size 4 (q vs i)")
    #expect(diagnostic.location.position == .argument(1))
    #expect(diagnostic.fixIts.first?.replacement == "i")
    #expect(diagnostic.fixIts.first?.message == "replace q with i")
    #expect(diagnostic.description == "error: argument 1: size 8 does not match size 4 (q vs i)")
    #expect(
      CompatibilityMessages.sizeMismatch(.argument(2), 8, 4, "q", "i").message
        == "argument 2: size 8 does not match size 4 (q vs i)")
  }

  /// CompatibilityLevel.swift: the abi level's stack places.
  @Test func abiLevelStackPlaces() throws {
    let checker = CompatibilityChecker(level: .abi, model: .x86_64SysV)
    #expect(try checker.check("v@?qqqqqt", against: "v@?qqqqq{?=qq}").isCompatible)
    #expect(
      try checker.check("v@?qqqqqqt", against: "v@?qqqqqq{?=qq}").diagnostics[0].message
        == "argument 7: once the argument registers are used up, t takes 16 stack bytes aligned to 16 but {?=qq} takes 16 aligned to 8, so it is at stack offset 16 in the candidate and 8 in the expected signature"
    )
  }

  /// ArgumentPlacement.swift
  @Test func argumentPlacement() throws {
    let signature = try SignatureEncoding(parsing: "q@?qqqqqqt")
    let placement = signature.argumentPlacement(for: .x86_64SysV)
    #expect(placement.arguments[5] == .registers(general: 5..<6, floatingPoint: 0..<0))
    #expect(placement.arguments[6] == .stack(offset: 0, size: 8))
    #expect(placement.arguments[7] == .stack(offset: 16, size: 16))
    #expect(
      Array(try SignatureEncoding(parsing: "s@?qqqqqqqsc").argumentPlacement(for: .arm64Apple).arguments[8...])
        == [.stack(offset: 0, size: 2), .stack(offset: 2, size: 1)])
    #expect(
      ArgumentPlacement.Place.split(general: 5..<6, floatingPoint: 0..<0, stackOffset: 0, stackSize: 8).description
        == "general-purpose register 5 and 8 stack bytes at offset 0")
    #expect(
      ArgumentPlacement.Place.split(general: 5..<6, floatingPoint: 0..<0, stackOffset: 0, stackSize: 8)
        .locations(for: .x86_64SysV) == "r9, stack+0")
    #expect(
      ArgumentPlacement.Place.registers(general: 1..<2, floatingPoint: 0..<1).registerNames(for: .aarch64Linux)
        == ["x1", "v0"])
    #expect(
      try SignatureEncoding(parsing: "{?=qqq}@?").argumentPlacement(for: .aarch64Linux).returnBufferLocation == "x8")
    #expect(try TypeEncoding(parsing: "{?=qd}").returnLocation(for: .x86_64SysV) == "rax, xmm0")
  }

  /// SwiftFunctionType.swift
  @Test func swiftFunctionType() throws {
    let type = try SwiftFunctionType(parsing: "(Int32, UnsafePointer<CChar>?) -> Int32")
    #expect(type.returnType.description == "i")
    #expect(type.parameterTypes.map(\.description) == ["i", "r*"])
    #expect(type.blockEncoding.description == "i20@?0i8r*12")
    #expect(
      try SwiftFunctionType(parsing: "(((Int32) -> Int32)?) -> Void").blockEncoding.description == "v16@?0@?<i@?i>8")
    #expect {
      _ = try SwiftFunctionType(parsing: "(String) -> Void")
    } throws: { error in
      "\(error)" == "type String has no C encoding at offset 1"
    }
  }

  // MARK: Block descriptors

  /// BlockFlags.swift, ExtendedLayout.swift
  @Test func flagsAndExtendedLayout() throws {
    let flags = BlockFlags(rawValue: 0x5000_0000)
    #expect(flags.contains(.hasSignature))
    #expect(flags.contains(.isGlobal))
    #expect(flags.names == ["BLOCK_IS_GLOBAL", "BLOCK_HAS_SIGNATURE"])
    #expect(BlockKind(flags: flags) == .global)
    #expect(ExtendedLayout(inlineValue: 0x210).strongCount == 2)
    let bytes = try ExtendedLayout(decoding: [0x30, 0x41, 0x00])
    #expect("\(bytes.instructions)" == "[strong × 1, byref × 2]")
    #expect(bytes.description == "bytes: strong × 1, byref × 2")
    #expect(ExtendedLayout(inlineValue: 0).description == "inline (empty)")
  }

  // MARK: DocC catalog

  /// BlockSignature.md, the landing page.
  @Test func landingPage() throws {
    let signature = try SignatureEncoding(parsing: "i20@?0i8r*12")
    #expect(signature.cDeclaration() == "int (^)(int, const char *)")
    #expect(try signature.layout(for: .x86_64SysV).frameLength == 20)
  }
}
