import BlockSignature
import BlockSignatureHeaders
import TestSupport
import Testing

/// The header reader's error kinds: `String` enums with a description per case.
@Suite struct HeadersErrorShapeTests {
  @Test func headerReaderErrorKinds() {
    expectErrorKindShape(
      HeaderReaderError.Kind.self,
      rawValues: [
        "invalidName", "unreadableHeader", "compilerNotFound", "unavailable", "compileFailed", "notFound",
        "unsupported", "probeFailed", "timedOut", "interrupted", "mismatch",
      ])
  }

  @Test func parsingErrorKinds() {
    expectErrorKindShape(
      ObjCProtocolDescription.ParsingError.Kind.self,
      rawValues: [
        "unknownDataModel", "invalidProtocolLine", "invalidMethod", "invalidSignature", "duplicateMethod", "missingEnd",
        "textAfterEnd",
      ])
  }

  @Test(arguments: [
    ("@protocol P\n- add: required v20@0:8i16\n- add: required v20@0:8i16\n@end", 3, "duplicateMethod"),
    ("@protocol P\n- add: required v20@0:8i16", 0, "missingEnd"),
    ("@protocol P\n@end\n- x required v16@0:8", 3, "textAfterEnd"),
    ("- x required v16@0:8\n@end", 1, "invalidProtocolLine"),
    ("@protocol P\n- x sometimes v16@0:8\n@end", 2, "invalidMethod"),
    ("@protocol P\n- x required v16@?0\n@end", 2, "invalidSignature"),
  ])
  func parsingErrorsHaveAKind(text: String, line: Int, kind: String) {
    let error = #expect(throws: ObjCProtocolDescription.ParsingError.self) {
      try ObjCProtocolDescription(parsing: text, model: .x86_64SysV)
    }
    #expect(error?.kind.rawValue == kind, "\(error.map { "\($0)" } ?? "")")
    #expect(error?.line == line)
  }
}
