import BlockSignature
import TestSupport
import Testing

/// The one reader under the tree and the frame: what the frame path reads without the tree,
/// errors inside what it only checks, and types larger than the reader's first stacks.
@Suite struct EncodingReaderTests {
  /// Named fields, class names that may be the next field's name, and names that are not ASCII
  /// are read by the frame path itself, and agree with the tree.
  @Test func theFramePathReadsNamedFieldsAndUTF8Names() {
    let inputs = [
      #"v16@?0{S="a"i"b"d}8"#, #"v16@?0{S="a"@"X""b"i}8"#, #"v16@?0{S="a"@"X"}8"#,
      #"v16@?0{S="a"@"b"i}8"#, "v16@?0{Sé=ic}8", #"v16@?0(U="é"i"x"c)8"#, #"v16@?0^{S="p"^i}8"#,
    ]
    for input in inputs {
      let bytes = Array(input.utf8)
      #expect(expectFrameAgreement(bytes), "\(input)")
      let taken = bytes.withUnsafeBufferPointer { SignatureFrame.scanningFastPathOnly($0) != nil }
      #expect(taken, "the frame path hands \(input) over")
    }
  }

  /// A pointee and a nested signature are only checked by the frame path: their errors are the
  /// tree's, kind and offset.
  @Test func errorsInsideWhatTheFrameOnlyChecks() throws {
    let cases: [(String, EncodingError.Kind, Int)] = [
      ("v16@?0^{S=i", .unterminatedStructure, 7),
      ("v16@?0^{S=i8", .unexpectedByte, 11),
      ("v16@?0^[4i8", .unexpectedByte, 10),
      ("v16@?0^{S=\"a8", .unterminatedString, 10),
      ("v16@?0@?<v@?", .unterminatedBlockSignature, 8),
      ("v16@?0@?<>8", .unexpectedByte, 9),
      ("v16@?0^{S\u{FF}=i}8", .invalidUTF8, 9),
      ("v16@?0^b129", .invalidBitfield, 8),
    ]
    for (text, kind, offset) in cases {
      var bytes = Array(text.utf8)
      // "\u{FF}" is two bytes in a Swift string: make it the one invalid byte.
      if let index = bytes.firstIndex(of: 0xC3) { bytes.replaceSubrange(index...index + 1, with: [0xFF]) }
      let frameError = try #require(throws: SignatureError.self) {
        try bytes.withUnsafeBufferPointer { try SignatureFrame(parsingBytes: $0) }
      }
      #expect(frameError.encodingError?.kind == kind, "\(text)")
      #expect(frameError.encodingError?.offset == offset, "\(text)")
      #expect(!expectFrameAgreement(bytes), "\(text)")
    }
  }

  /// More fields, nested signature types and nesting than the reader's first stacks hold: the
  /// tree is read again with room for the whole input, and is the one built by hand.
  @Test func typesLargerThanTheFirstStacks() throws {
    let fields = (0..<40).map { $0 % 2 == 0 ? "i" : "d" }.joined()
    let record = try TypeEncoding(parsing: "{Wide=\(fields)}")
    let expected = TypeEncoding.structure(
      name: "Wide",
      fields: (0..<40).map { TypeEncoding.Field(type: .primitive($0 % 2 == 0 ? .int : .double)) })
    #expect(record == expected)

    let depth = 60
    let deep = try TypeEncoding(parsing: String(repeating: "^", count: depth) + "{S=i}")
    var built = TypeEncoding.structure(name: "S", fields: [.init(type: .primitive(.int))])
    for _ in 0..<depth { built = .pointer(built) }
    #expect(deep == built)

    let arguments = String(repeating: "i", count: 30)
    let block = try TypeEncoding(parsing: "@?<v@?\(arguments)>")
    #expect(
      block
        == .block(
          signature: [.primitive(.void), .block(signature: nil)] + Array(repeating: .primitive(.int), count: 30)))

    // Each of the three read as a signature's argument too, by the tree and by the frame.
    for type in [record, deep, block] {
      #expect(expectFrameAgreement(Array("v@?\(type)".utf8)))
    }
  }

  /// The depth limit counts qualifiers, whichever path reads them.
  @Test func qualifiersCountTowardsTheDepthLimit() throws {
    let options = ParseOptions(maximumNestingDepth: 3)
    #expect(throws: EncodingError.self) { try TypeEncoding(parsing: "rrr^i", options: options) }
    let error = try #require(throws: EncodingError.self) { try TypeEncoding(parsing: "rr^^i", options: options) }
    #expect(error.kind == .nestingTooDeep)
    #expect(error.offset == 3)
    #expect(
      try TypeEncoding(parsing: "rr^i", options: options)
        == .qualified(.const, .qualified(.const, .pointer(.primitive(.int)))))
  }

  /// Parsing shares nothing between threads, records without fields included (under
  /// ThreadSanitizer, which `.ci/run` runs, a shared write would be reported).
  @Test func parsingFromManyThreadsAtOnce() async throws {
    let inputs = ["v16@?0{S=}8", "{E=}", "(U=)", "@?<v@?{S=}>", "^{S=ii}", "[2{S=}]"]
    let expected = try inputs.map { try TypeEncodingOrSignature(parsing: $0) }
    try await withThrowingTaskGroup(of: Bool.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<200 {
            for (input, value) in zip(inputs, expected) where try TypeEncodingOrSignature(parsing: input) != value {
              return false
            }
          }
          return true
        }
      }
      for try await agreed in group { #expect(agreed) }
    }
  }
}

/// A type or, where the input is not one type, a signature.
private enum TypeEncodingOrSignature: Equatable {
  case type(TypeEncoding)
  case signature(SignatureEncoding)

  init(parsing input: String) throws {
    if let type = try? TypeEncoding(parsing: input) {
      self = .type(type)
    } else {
      self = .signature(try SignatureEncoding(parsing: input))
    }
  }
}
