import BlockSignature
import TestSupport
import Testing

@Suite struct TypeEncodingParsingTests {
  static let roundTrips: [String] = [
    "c", "i", "s", "l", "q", "C", "I", "S", "L", "Q", "f", "d", "D", "B", "v", "*", "@", "#", ":", "?",
    " ", "t", "T", "%", "^i", "^?", "^^{S}", "^{P=dic}", "[4i]", "[0C]", "[2[3i]]", "{S=i}", "{S}",
    "{S=}", "(U=id)", "(U)", "{?=[0i][3c]}", "b3", "b0i3", "{B=b3b5c}", "{G=b0i3b3I5c}", "jd", "jf",
    "Ai", "A{?}", "r*", "r^i", "nr^v", "Vv", "N^i", "o^@", "O@", "R@", "@\"NSString\"", "@\"<P>\"",
    "@\"Foo<P><Q>\"", "@?", "@?<v@?i>", "@?<@?<v@?>@?@?<i@?>>", "{CGPoint=\"x\"d\"y\"d}",
    "{S=\"a\"@\"NSString\"\"b\"i}", "{S=\"a\"@\"b\"i}", "{S=\"a\"@\"Foo\"}",
    "{vector<int, std::allocator<int> >=^i^i^i}", "{pair<int,float>=if}", "{ns::Foo=i}",
    "{N={?=ic}^{N}^{V}^^{V}}", "^{Opaque=}",
  ]

  @Test(arguments: roundTrips)
  func typeRoundTripsByteForByte(_ input: String) throws {
    let type = try TypeEncoding(parsing: input)
    #expect(type.description == input)
    #expect(try TypeEncoding(parsing: type.description) == type)
  }

  @Test func structureWithNamedFieldsAndObjects() throws {
    let type = try TypeEncoding(parsing: "{S=\"a\"@\"b\"i}")
    // "b" names the next field: `a` is a bare object.
    #expect(
      type
        == .structure(
          name: "S",
          fields: [.init(name: "a", type: .object(className: nil)), .init(name: "b", type: .primitive(.int))]))
    let classed = try TypeEncoding(parsing: "{S=\"a\"@\"NSString\"\"b\"i}")
    #expect(
      classed
        == .structure(
          name: "S",
          fields: [.init(name: "a", type: .object(className: "NSString")), .init(name: "b", type: .primitive(.int))]))
  }

  @Test func bitfieldForms() throws {
    #expect(try TypeEncoding(parsing: "b3") == .bitfield(.init(width: 3)))
    #expect(
      try TypeEncoding(parsing: "b0S16") == .bitfield(.init(bitOffset: 0, declaredType: .unsignedShort, width: 16)))
    #expect(try TypeEncoding(parsing: "b12i3") == .bitfield(.init(bitOffset: 12, declaredType: .int, width: 3)))
    let next = try TypeEncoding(parsing: "{S=b3i}")
    #expect(
      next == .structure(name: "S", fields: [.init(type: .bitfield(.init(width: 3))), .init(type: .primitive(.int))]))
  }

  /// A qualified object in a structure with field names stops where the unqualified one does:
  /// `@"b"` followed by a type is the next field's name, with or without `r` before the `@`.
  @Test func qualifiedObjectBeforeAFieldName() throws {
    let plain = try TypeEncoding(parsing: "{S=\"a\"@\"b\"i}")
    let qualified = try TypeEncoding(parsing: "{S=\"a\"r@\"b\"i}")
    #expect(
      plain
        == .structure(
          name: "S",
          fields: [.init(name: "a", type: .object(className: nil)), .init(name: "b", type: .primitive(.int))]))
    #expect(
      qualified
        == .structure(
          name: "S",
          fields: [
            .init(name: "a", type: .qualified(.const, .object(className: nil))),
            .init(name: "b", type: .primitive(.int)),
          ]))
  }

  @Test func debugDescriptionLabelsTheReturnType() throws {
    let type = try TypeEncoding(parsing: "@?<v@?i>")
    #expect(
      type.debugDescription
        == "block\n  return: primitive void 'v'\n  parameter: block\n  parameter: primitive int 'i'\n")
  }

  @Test func nestedBlockSignature() throws {
    let type = try TypeEncoding(parsing: "@?<v@?i>")
    #expect(type == .block(signature: [.primitive(.void), .block(signature: nil), .primitive(.int)]))
  }

  @Test func qualifiersNest() throws {
    #expect(try TypeEncoding(parsing: "nr^v") == .qualified(.in, .qualified(.const, .pointer(.primitive(.void)))))
    #expect(try TypeEncoding(parsing: "nr^v").unqualified == .pointer(.primitive(.void)))
  }

  static let errors: [(String, EncodingError.Kind, Int)] = [
    ("", .emptyInput, 0),
    ("x", .unexpectedByte, 0),
    ("ii", .trailingBytes, 1),
    ("{S=i", .unterminatedStructure, 0),
    ("^{S=i", .unterminatedStructure, 1),
    ("{S", .unterminatedStructure, 0),
    ("(U=i", .unterminatedUnion, 0),
    ("[4i", .unterminatedArray, 0),
    ("[i]", .missingArrayCount, 1),
    ("[4]", .unexpectedByte, 2),
    ("[04i]", .invalidNumber, 1),
    ("[99999999999999999999i]", .countOverflow, 1),
    ("^", .unexpectedEnd, 1),
    ("r", .unexpectedEnd, 1),
    ("b", .unexpectedEnd, 1),
    ("bx", .invalidBitfield, 1),
    ("@\"NSString", .unterminatedString, 1),
    ("{S=\"a", .unterminatedString, 3),
    ("@?<v@?", .unterminatedBlockSignature, 2),
    ("@?<>", .unexpectedByte, 3),
    ("{S=i!}", .unexpectedByte, 4),
    ("j", .unexpectedEnd, 1),
    // Wider than the declared type (clang: "width of bit-field (17 bits) exceeds the width of its
    // type"); at the width.
    ("b0S17", .invalidBitfield, 3),
    ("b0s17", .invalidBitfield, 3),
    ("b0C9", .invalidBitfield, 3),
    // A field name with nothing after it: the structure is unterminated, not the input short.
    ("{S=\"a\"", .unterminatedStructure, 0),
  ]

  @Test(arguments: errors)
  func malformedTypeFailsWithKindAndOffset(_ input: String, _ kind: EncodingError.Kind, _ offset: Int) {
    #expect {
      _ = try TypeEncoding(parsing: input)
    } throws: { error in
      guard let error = error as? EncodingError else { return false }
      return error.kind == kind && error.offset == offset && error.input == input
    }
  }

  @Test func errorDescriptionNamesByteAndOffset() {
    #expect(throws: EncodingError(kind: .unexpectedByte, offset: 4, input: "{S=i!}")) {
      _ = try TypeEncoding(parsing: "{S=i!}")
    }
    let error = EncodingError(kind: .unexpectedByte, offset: 4, input: "{S=i!}")
    #expect(error.description == "unexpected byte '!' at offset 4")
    #expect(
      EncodingError(kind: .unterminatedStructure, offset: 0, input: "{").description
        == "unterminated structure at offset 0")
    // The byte an invalid number starts with is quoted; a byte that is not printable ASCII,
    // DEL among them, is written in hex.
    #expect(
      EncodingError(kind: .invalidNumber, offset: 1, input: "[04i]").description == "invalid number '0' at offset 1")
    #expect(
      EncodingError(kind: .unexpectedByte, offset: 0, input: "\u{7F}").description
        == "unexpected byte 0x7f at offset 0")
    #expect(
      EncodingError(kind: .unexpectedByte, offset: 0, input: "~").description == "unexpected byte '~' at offset 0")
  }

  @Test func nestingDepthIsBounded() throws {
    let deep = String(repeating: "^", count: 100_000) + "i"
    #expect {
      _ = try TypeEncoding(parsing: deep)
    } throws: { ($0 as? EncodingError)?.kind == .nestingTooDeep && ($0 as? EncodingError)?.offset == 100 }
    let braces = String(repeating: "{S=", count: 5000) + String(repeating: "}", count: 5000)
    #expect(throws: EncodingError.self) { _ = try TypeEncoding(parsing: braces) }
    var options = ParseOptions()
    options.maximumNestingDepth = 3
    #expect(try TypeEncoding(parsing: "^^^i", options: options) == .pointer(.pointer(.pointer(.primitive(.int)))))
    #expect(throws: EncodingError.self) { _ = try TypeEncoding(parsing: "^^^^i", options: options) }
  }

  @Test func invalidUTF8InNameIsAnError() throws {
    let bytes: [UInt8] = Array("{S".utf8) + [0xFF] + Array("=i}".utf8)
    #expect {
      try bytes.withUnsafeBufferPointer { buffer in _ = try TypeEncoding(parsingBytes: buffer) }
    } throws: { ($0 as? EncodingError)?.kind == .invalidUTF8 && ($0 as? EncodingError)?.offset == 2 }
  }

  // MARK: Signatures

  static let signatures: [(String, SignatureEncoding.Kind, Int)] = [
    ("i20@?0i8r*12", .block, 3),
    ("v24@?0c8s12B16C20", .block, 5),
    ("i@?ir*", .block, 3),
    ("v@:@", .method, 3),
    ("i28@0:8i16r*20", .method, 4),
    ("Vv16@0:8", .method, 2),
    ("i", .types, 0),
    ("iq", .types, 1),
    ("{P=dic}24@?0r*8^{P=dic}16", .block, 3),
    ("v16@0:4i+8", .method, 3),
    ("v-8@0:4i-4", .method, 3),
    ("v74@?0 8f10q14Q22i30^?34^^i42^^{P}50r^i58^i66", .block, 11),
  ]

  @Test(arguments: signatures)
  func signatureRoundTripsAndKind(_ input: String, _ kind: SignatureEncoding.Kind, _ count: Int) throws {
    let signature = try SignatureEncoding(parsing: input)
    #expect(signature.description == input)
    #expect(signature.kind == kind)
    #expect(signature.arguments.count == count)
  }

  @Test func offsetsAreRead() throws {
    let signature = try SignatureEncoding(parsing: "i20@?0i8r*12")
    #expect(signature.returnType == .primitive(.int))
    #expect(signature.frameLength == 20)
    #expect(signature.arguments.map(\.offset) == [0, 8, 12])
    #expect(signature.arguments[2].type == .qualified(.const, .primitive(.cString)))
    let gcc = try SignatureEncoding(parsing: "v16@0:4i+8")
    #expect(gcc.arguments[2].offset == SignatureEncoding.Offset(8, isRegister: true))
    let negative = try SignatureEncoding(parsing: "v-8@0:4i-4")
    #expect(negative.frameLength == -8)
    #expect(negative.arguments[2].offset == -4)
  }

  static let emptyParameters: [(String, [String], [Int])] = [
    // ^(v4si)
    ("v24@?08", ["@?", ""], [0, 8]),
    // ^(int, v4si)
    ("v28@?0i812", ["@?", "i", ""], [0, 8, 12]),
    // ^(v4si, v4si)
    ("v40@?0824", ["@?", "", ""], [0, 8, 24]),
    // ^(v4si, int)
    ("v28@?08i24", ["@?", "", "i"], [0, 8, 24]),
    // ^(_BitInt(7)): integral, slot 4
    ("v12@?08", ["@?", ""], [0, 8]),
    // Method with a vector argument.
    ("v32@0:816", ["@", ":", ""], [0, 8, 16]),
    // A vector return value: nothing before the frame.
    ("24@?08", ["@?", ""], [0, 8]),
  ]

  @Test(arguments: emptyParameters)
  func emptyParametersAreRecoveredFromOffsets(_ input: String, _ types: [String], _ offsets: [Int]) throws {
    let signature = try SignatureEncoding(parsing: input)
    #expect(signature.arguments.map(\.type.description) == types)
    #expect(signature.arguments.map { $0.offset?.value } == offsets)
    #expect(signature.description == input)
  }

  @Test func inconsistentRunsStillRoundTrip() throws {
    // No reading fits the frame; the digits are kept, split only at forced zeros.
    let signature = try SignatureEncoding(parsing: "*51VNN#5of024IBs5")
    #expect(signature.description == "*51VNN#5of024IBs5")
    let zeros = try SignatureEncoding(parsing: "S 00@:Q")
    #expect(zeros.arguments.map { $0.offset?.value } == [0, 0, nil, nil, nil])
  }

  @Test func unencodableReturn() throws {
    let signature = try SignatureEncoding(parsing: "24@?08")
    #expect(signature.returnType == .unencodable)
    #expect(signature.kind == .block)
  }

  static let signatureErrors: [(String, EncodingError.Kind, Int)] = [
    ("", .emptyInput, 0),
    ("i20@?0i8r*12x", .unexpectedByte, 12),
    ("i20@?0{S=i", .unterminatedStructure, 6),
    ("i20@?0i+", .invalidOffset, 7),
    ("i20@?0i-0", .invalidOffset, 7),
    ("i99999999999999999999@?0", .countOverflow, 1),
    ("i20@?0i99999999999999999999999999999999999999999999999", .countOverflow, 7),
  ]

  @Test(arguments: signatureErrors)
  func malformedSignatureFailsWithKindAndOffset(_ input: String, _ kind: EncodingError.Kind, _ offset: Int) {
    #expect {
      _ = try SignatureEncoding(parsing: input)
    } throws: { error in
      guard let error = error as? EncodingError else { return false }
      return error.kind == kind && error.offset == offset
    }
  }

  @Test func hostileOffsetRunsStayFast() throws {
    // Long digit runs must neither hang nor crash: 10 000 runs of 40 digits.
    var input = "v9999999999@?0"
    for _ in 0..<10_000 { input += "i" + String(repeating: "1", count: 39) + "2" }
    let clock = ContinuousClock()
    let elapsed = clock.measure { _ = try? SignatureEncoding(parsing: input) }
    #expect(elapsed < .seconds(10))
  }
}

@Suite struct TypeEncodingPropertyTests {
  static func randomType(_ rng: inout SeededRandom, depth: Int) -> TypeEncoding {
    let codes: [TypeCode] = TypeCode.allCases.filter { $0 != .void }
    let choice = depth > 3 ? 0 : Int.random(in: 0..<12, using: &rng)
    switch choice {
    case 1: return .pointer(randomType(&rng, depth: depth + 1))
    case 2: return .array(count: UInt64.random(in: 0..<5, using: &rng), element: randomType(&rng, depth: depth + 1))
    case 3, 4:
      let fields = (0..<Int.random(in: 0..<4, using: &rng)).map { _ in
        TypeEncoding.Field(type: randomType(&rng, depth: depth + 1))
      }
      return choice == 3 ? .structure(name: "S\(depth)", fields: fields) : .union(name: "?", fields: fields)
    case 5: return .qualified(.const, .pointer(randomType(&rng, depth: depth + 1)))
    case 6: return .complex(.primitive([.float, .double, .int][Int.random(in: 0..<3, using: &rng)]))
    case 7: return .atomic(.primitive([.int, .char, .longLong][Int.random(in: 0..<3, using: &rng)]))
    case 8: return .object(className: Bool.random(using: &rng) ? nil : "NSString")
    case 9: return .block(signature: nil)
    case 10:
      return .structure(
        name: "B",
        fields: [
          .init(type: .bitfield(.init(width: UInt64.random(in: 1...31, using: &rng)))), .init(type: .primitive(.char)),
        ])
    default: return .primitive(codes[Int.random(in: 0..<codes.count, using: &rng)])
    }
  }

  @Test func printParseRoundTripAndLayoutInvariants() throws {
    var rng = SeededRandom(seed: 0x5EED)
    for _ in 0..<2000 {
      let type = Self.randomType(&rng, depth: 0)
      let text = type.description
      let parsed = try TypeEncoding(parsing: text)
      #expect(parsed == type, "\(text)")
      for model in DataModel.allBuiltIn {
        let layout = try type.layout(for: model)
        #expect(layout.alignment > 0 && layout.size % layout.alignment == 0, "\(text) on \(model)")
        var previous = -1
        for (offset, bits) in zip(layout.offsets, layout.bitOffsets) {
          #expect(bits >= previous || { if case .union = type { return true } else { return false } }(), "\(text)")
          previous = bits
          #expect(offset * 8 <= bits)
        }
      }
    }
  }

  @Test func synthesizedOffsetsIncrease() throws {
    var rng = SeededRandom(seed: 0xB10C)
    for _ in 0..<500 {
      let parameters = (0..<Int.random(in: 0..<6, using: &rng)).map { _ in
        SignatureEncoding.Argument(type: Self.randomType(&rng, depth: 1))
      }
      let signature = SignatureEncoding(
        returnType: .primitive(.int), arguments: [.init(type: .block(signature: nil))] + parameters)
      let synthesized = try signature.synthesizingOffsets(for: .x86_64SysV)
      let offsets = synthesized.arguments.compactMap { $0.offset?.value }
      #expect(offsets.first == 0)
      #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 <= $1 })
      // Printed offsets parse back to the same signature.
      #expect(
        try SignatureEncoding(parsing: synthesized.description).strippingOffsets() == signature.strippingOffsets())
    }
  }

  @Test func arbitraryBytesNeverTrap() {
    var rng = SeededRandom(seed: 42)
    let alphabet = Array("ciqsCISLQfdDBv*@#:?^[]{}()=\"b0123456789jArnNoORV<>+- ".utf8)
    for _ in 0..<20_000 {
      let bytes = (0..<Int.random(in: 0..<24, using: &rng)).map { _ in
        alphabet[Int.random(in: 0..<alphabet.count, using: &rng)]
      }
      let text = String(decoding: bytes, as: UTF8.self)
      if let signature = try? SignatureEncoding(parsing: text) {
        #expect(signature.description == text)
        _ = try? signature.layout(for: .x86_64SysV)
      }
      if let type = try? TypeEncoding(parsing: text) {
        #expect(type.description == text)
      }
    }
  }
}

/// ``EncodingError/range``: the bytes an error covers, which the CLI underlines.
@Suite struct EncodingErrorRangeTests {
  static func error(_ text: String) -> EncodingError? {
    do {
      _ = try SignatureEncoding(parsing: text)
      return nil
    } catch {
      return error
    }
  }

  @Test(arguments: [
    ("{S=ii", 0..<5),  // unterminated: from the brace to the end
    ("i@?i8xyz", 5..<6),  // one unexpected byte
    ("[99999999999999999999999i]", 1..<24),  // the digits of a number too large
    ("i@?(", 3..<4),  // an unterminated union: `(` to the end
    ("", 0..<0),  // empty input: nothing to underline
    ("i@?<", 3..<4),
  ])
  func rangeCoversTheProblem(_ text: String, _ range: Range<Int>) throws {
    let error = try #require(Self.error(text), "\(text) parsed")
    #expect(error.range == range, "\(error.kind) at \(error.offset)")
  }

  @Test func everyKindHasADescription() {
    for kind in EncodingError.Kind.allCases {
      #expect(kind.description != kind.rawValue && !kind.description.isEmpty, "\(kind.rawValue)")
    }
    #expect(EncodingError.Kind.invalidUTF8.description == "invalid UTF-8")
    #expect(EncodingError.Kind(rawValue: "somethingNew") == nil)
  }
}
