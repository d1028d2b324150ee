import BlockSignature
import Foundation
import TestSupport
import Testing

@Suite struct CompatibilityTests {
  @Test(arguments: cases)
  func table(_ row: CompatibilityCase) throws {
    let report = try CompatibilityChecker(level: row.level, model: row.model).check(
      row.candidate, against: row.expected)
    #expect(report.isCompatible == row.compatible)
    #expect(report.diagnostics.map(\.description) == row.diagnostics)
    #expect(report.level == row.level)
    for diagnostic in report.diagnostics {
      #expect(diagnostic.id.domain == "BlockSignature")
      if diagnostic.severity == .error, diagnostic.location.position != .signature || row.level != .blocksKit {
        // Errors carry the encoding that would match, except where nothing would.
        if diagnostic.id.id != "aspectsFirstArgumentNotObject"
          && diagnostic.id.id != "aspectsTooManyArguments"
        {
          #expect(!diagnostic.fixIts.isEmpty, "\(diagnostic)")
        }
      }
    }
  }

  @Test func locationsNameBothEncodingsAndTheirBytes() throws {
    let report = try CompatibilityChecker(level: .identical).check(
      "v16@?0@\"NSString\"8", against: "v16@?0@8")
    let diagnostic = try #require(report.diagnostics.first)
    #expect(diagnostic.location.position == .argument(1))
    #expect(diagnostic.location.candidate == "@\"NSString\"")
    #expect(diagnostic.location.expected == "@")
    #expect(diagnostic.location.candidateRange == 6..<17)
    #expect(diagnostic.location.expectedRange == 6..<7)
    #expect(diagnostic.id == MessageID(domain: "BlockSignature", id: "typeMismatch"))
    let fixIt = try #require(diagnostic.fixIts.first)
    #expect(fixIt.replacement == "@")
    #expect(fixIt.range == 6..<17)
    #expect(fixIt.message == "replace @\"NSString\" with @")
  }

  /// The byte ranges of an argument after a nested block signature and after a GNU bitfield
  /// (whose bit offset and type are part of its encoding): where the type sits in the input.
  @Test func rangesAfterNestedSignaturesAndBitfields() throws {
    for (candidate, expected) in [
      ("v24@?0@?<v@?>8i16", "v24@?0@?<v@?>8q16"), ("v20@?0{S=b0i3}8i16", "v20@?0{S=b0i3}8f16"),
    ] {
      let report = try CompatibilityChecker(level: .identical).check(candidate, against: expected)
      let diagnostic = try #require(report.diagnostics.first)
      let start = Array(candidate.utf8).lastIndex(of: UInt8(ascii: "i"))!
      #expect(diagnostic.location.candidateRange == start..<start + 1, "\(candidate)")
      #expect(diagnostic.location.expectedRange == start..<start + 1, "\(expected)")
    }
  }

  /// The byte ranges of an argument after numbers with one more digit than the one before
  /// (9 → 10, 99 → 100): each range is where the type sits in the input.
  @Test func rangesAfterNumbersOfEveryLength() throws {
    for count in [9, 10, 99, 100, 999, 1000] {
      let candidate = "v20@?0[\(count)i]8I16"
      let expected = "v20@?0[\(count)i]8i16"
      let report = try CompatibilityChecker(level: .identical).check(candidate, against: expected)
      let diagnostic = try #require(report.diagnostics.first)
      let start = Array(candidate.utf8).firstIndex(of: UInt8(ascii: "I"))!
      #expect(diagnostic.location.candidateRange == start..<start + 1, "\(candidate)")
      #expect(diagnostic.location.expectedRange == start..<start + 1, "\(expected)")
      #expect(diagnostic.fixIts.first?.range == start..<start + 1, "\(candidate)")
    }
  }

  /// The notes and fix-its say which argument of which form meets which, and name the
  /// function form (`.types`) as a function.
  @Test func notesAndFixItsNameTheForms() throws {
    func first(_ level: CompatibilityLevel, _ candidate: String, _ expected: String) throws -> Diagnostic {
      try #require(try CompatibilityChecker(level: level).check(candidate, against: expected).diagnostics.first)
    }
    #expect(
      try first(.blocksKit, "v@:ii", "v@?").notes.map(\.message) == [
        "blockskit takes the longer signature (candidate, 4 arguments) as the method"
      ])
    #expect(
      try first(.aspects, "v@?@i", "v@?d").notes.map(\.message) == [
        "candidate argument 2 is argument 1 of the expected block"
      ])
    #expect(
      try first(.identical, "v16@?0I8", "v4i0").notes.map(\.message) == [
        "candidate argument 1 is argument 0 of the expected function"
      ])
    #expect(
      try first(.equivalent, "v4i0", "v16@?0i8i12").fixIts.map(\.message) == [
        "use the expected signature in function form: v8i0i4"
      ])
  }

  @Test func blockAgainstMethodMapsArguments() throws {
    let report = try CompatibilityChecker(level: .abi).check("v20@?0i8q12", against: "v24@0:8i16i20")
    let diagnostic = try #require(report.diagnostics.first)
    #expect(diagnostic.message == "argument 2: size 8 does not match size 4 (q vs i)")
    #expect(diagnostic.location.expectedRange == 10..<11)
    #expect(diagnostic.notes.map(\.message) == ["candidate argument 2 is argument 3 of the expected method"])
    #expect(diagnostic.fixIts.first?.replacement == "i")
  }

  @Test func countMismatchOffersTheWholeSignature() throws {
    let report = try CompatibilityChecker(level: .equivalent).check("v16@?0i8", against: "v24@0:8i16i20")
    let diagnostic = try #require(report.diagnostics.first)
    #expect(diagnostic.location.position == .signature)
    #expect(diagnostic.fixIts.first?.replacement == "v16@?0i8i12")
  }

  @Test func malformedInputThrowsWithItsOffset() throws {
    let error = try #require(throws: SignatureError.self) {
      try CompatibilityChecker().check("v16@?0i8", against: "v16@?0[4i8")
    }
    #expect(error.kind == .malformedEncoding)
    #expect(error.encodingError?.offset == 9)  // the `8` inside `[4i8`
  }

  @Test func everyLevelHasADistinctCLIName() {
    #expect(
      CompatibilityLevel.allCases.map(\.rawValue) == [
        "identical", "equivalent", "abi", "blockskit", "aspects",
      ])
  }
}
