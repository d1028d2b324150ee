import BlockSignature
import Testing

/// Checkers and Swift function types made without a model use this machine's
/// (`DataModel.host`), and a named model is kept as given.
@Suite struct HostModelDefaultTests {
  @Test func aCheckerWithoutAModelChecksForThisMachine() throws {
    let host = try #require(DataModel.host)
    #expect(try CompatibilityChecker().model == host)
    #expect(try CompatibilityChecker(level: .abi).model == host)
    #expect(try CompatibilityChecker(level: .abi).check("v@?l", against: "v@?q").model == host)
  }

  @Test func aCheckerForANamedModelKeepsIt() throws {
    for model in DataModel.allBuiltIn {
      #expect(CompatibilityChecker(level: .abi, model: model).model == model)
    }
    // A pointer has the size of an `int` on i386 only: the verdict follows the model.
    #expect(try CompatibilityChecker(level: .abi, model: .i386Linux).check("v@?^v", against: "v@?i").isCompatible)
    #expect(try !CompatibilityChecker(level: .abi, model: .x86_64SysV).check("v@?^v", against: "v@?i").isCompatible)
  }

  @Test func aSwiftFunctionTypeWithoutAModelMapsForThisMachine() throws {
    let host = try #require(DataModel.host)
    let type = try SwiftFunctionType(parsing: "(CChar, Int) -> CLong")
    #expect(type.model == host)
    #expect(type == (try SwiftFunctionType(parsing: "(CChar, Int) -> CLong", model: host)))
  }

  /// `char` is unsigned on AArch64 Linux and signed on x86-64: the mapping differs, so a
  /// default that is not this machine's shows.
  @Test func aNamedModelDecidesCChar() throws {
    #expect(
      try SwiftFunctionType(parsing: "(CChar) -> Int", model: .aarch64Linux).blockEncoding.description == "q12@?0C8")
    #expect(
      try SwiftFunctionType(parsing: "(CChar) -> Int", model: .x86_64SysV).blockEncoding.description == "q12@?0c8")
    #expect(try SwiftFunctionType(parsing: "(Int) -> Int", model: .i386Linux).blockEncoding.description == "i8@?0i4")
  }

  @Test func noModelIsATypedError() throws {
    let error = try #require(throws: SwiftTypeError.self) { try SwiftFunctionType(parsing: "() -> Void", model: nil) }
    #expect(error.kind == .unknownDataModel)
    #expect(error.offset == 0)
    #expect(error.description == "no data model describes this machine: pass one at offset 0")
    #expect(SwiftTypeError.Kind.unknownDataModel.description == "unknown data model")
  }
}
