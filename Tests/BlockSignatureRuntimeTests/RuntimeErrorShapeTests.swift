import BlockSignatureRuntime
import Foundation
import TestSupport
import Testing

/// The runtime's error kinds: `String` enums with a description per case, encoded as their raw
/// values.
@Suite struct RuntimeErrorShapeTests {
  @Test func blockInspectionErrorKinds() {
    expectErrorKindShape(
      BlockInspectionError.Kind.self,
      rawValues: [
        "nullPointer", "misaligned", "unreadableMemory", "nullDescriptor", "implausibleSize",
        "unterminatedSignature", "malformedLayout", "notABlock", "processNotReadable", "unsupportedProcess",
      ])
  }

  @Test func loadedLibraryErrorKinds() {
    expectErrorKindShape(
      LoadedLibraryError.Kind.self,
      rawValues: [
        "noSuchFile", "cannotLoad", "notLoadable", "noSuchSymbol", "notAFunction", "notAVariable", "nullBlock",
      ])
  }

  @Test func kindsEncodeAsTheirRawValues() throws {
    let kinds = [BlockInspectionError.Kind.processNotReadable, .nullPointer]
    let text = String(decoding: try JSONEncoder().encode(kinds), as: UTF8.self)
    #expect(text == #"["processNotReadable","nullPointer"]"#)
    #expect(try JSONDecoder().decode([BlockInspectionError.Kind].self, from: Data(text.utf8)) == kinds)
    let library = String(decoding: try JSONEncoder().encode([LoadedLibraryError.Kind.cannotLoad]), as: UTF8.self)
    #expect(library == #"["cannotLoad"]"#)
  }

  @Test func blockInspectionErrorMessage() {
    let error = BlockInspectionError(kind: .nullPointer, address: 0, message: "null block pointer")
    #expect(error.message == "null block pointer")
    #expect(error.description == "block at 0x0: null block pointer")
  }
}
