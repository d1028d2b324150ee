import BlockSignature
import Testing

/// Hostile and malformed encodings: every one is a typed `EncodingError` whose kind
/// and byte offset are exact, and deep or huge input is cut off at the depth limit, so the work
/// done is bounded by the limit, not by the input.
@Suite struct EncodingHardeningTests {
  /// Parses `bytes` as one type and returns the error, or nil when it parses.
  static func typeError(_ bytes: [UInt8], options: ParseOptions = ParseOptions()) -> EncodingError? {
    do {
      _ = try bytes.withUnsafeBufferPointer { (buffer) throws(EncodingError) in
        try TypeEncoding(parsingBytes: buffer, options: options)
      }
      return nil
    } catch {
      return error
    }
  }

  static func signatureError(_ bytes: [UInt8]) -> EncodingError? {
    do {
      _ = try bytes.withUnsafeBufferPointer { (buffer) throws(EncodingError) in
        try SignatureEncoding(parsingBytes: buffer)
      }
      return nil
    } catch {
      return error
    }
  }

  /// (input bytes, kind, offset): one row per hostile shape.
  static let typeErrors: [([UInt8], EncodingError.Kind, Int)] = [
    // Empty.
    ([], .emptyInput, 0),
    // Unterminated `{ ( [ <` and `"`.
    (Array("{".utf8), .unterminatedStructure, 0),
    (Array("{S".utf8), .unterminatedStructure, 0),
    (Array("^{S=i".utf8), .unterminatedStructure, 1),
    (Array("(".utf8), .unterminatedUnion, 0),
    (Array("(U=ic".utf8), .unterminatedUnion, 0),
    (Array("[".utf8), .unterminatedArray, 0),
    (Array("[4".utf8), .unterminatedArray, 0),
    (Array("[4i".utf8), .unterminatedArray, 0),
    (Array("@?<".utf8), .unterminatedBlockSignature, 2),
    (Array("^@?<i@?".utf8), .unterminatedBlockSignature, 3),
    (Array("@\"NSObject".utf8), .unterminatedString, 1),
    (Array("{S=\"x\"i\"y".utf8), .unterminatedString, 7),
    // Array counts beyond UInt64 (and so beyond Int).
    (Array("[18446744073709551616i]".utf8), .countOverflow, 1),
    (Array("[99999999999999999999999999999999i]".utf8), .countOverflow, 1),
    // Bitfield widths out of range: beyond 64 bits of text, beyond the widest integer
    // (128 bits), and GNU widths beyond their declared type.
    (Array("b18446744073709551616".utf8), .countOverflow, 1),
    (Array("b129".utf8), .invalidBitfield, 1),
    (Array("{S=b4294967296}".utf8), .invalidBitfield, 4),
    (Array("b0i33".utf8), .invalidBitfield, 3),
    (Array("{S=b8c9}".utf8), .invalidBitfield, 6),
    (Array("{S=b0q65}".utf8), .invalidBitfield, 6),
    // Stray bytes: NUL, 0xFF, UTF-8 multi-byte sequences outside names.
    ([0x00], .unexpectedByte, 0),
    (Array("i".utf8) + [0x00], .trailingBytes, 1),
    ([0xFF], .unexpectedByte, 0),
    (Array("{S=i".utf8) + [0xFF] + Array("}".utf8), .unexpectedByte, 4),
    (Array("é".utf8), .unexpectedByte, 0),
    (Array("{S=iπ}".utf8), .unexpectedByte, 4),
    (Array("[2😀]".utf8), .unexpectedByte, 2),
    ([0x7B, 0xC3, 0x3D, 0x69, 0x7D], .invalidUTF8, 1),  // `{` + a truncated 2-byte sequence + `=i}`
    (Array("@\"".utf8) + [0xE2, 0x82] + Array("\"".utf8), .invalidUTF8, 2),
    // Digits with no type.
    (Array("8".utf8), .unexpectedByte, 0),
    (Array("{S=i8}".utf8), .unexpectedByte, 4),
    (Array("[4]".utf8), .unexpectedByte, 2),
    (Array("^".utf8), .unexpectedEnd, 1),
  ]

  @Test(arguments: typeErrors)
  func hostileTypeFailsWithKindAndOffset(_ bytes: [UInt8], _ kind: EncodingError.Kind, _ offset: Int) throws {
    let error = try #require(Self.typeError(bytes), "\(bytes) parsed")
    #expect(error.kind == kind, "\(error)")
    #expect(error.offset == offset, "\(error)")
    _ = error.description  // the message names the byte without trapping on any byte value
  }

  /// A number too large says which number and why, not just the byte where it starts.
  @Test(arguments: [
    ("b99999999999", "bitfield width 99999999999 is wider than 128 bits"),
    ("{S=b0i33}", "bitfield width 33 is wider than its type 'i'"),
    ("v99999999999999999999@?0", "number 99999999999999999999 is too large"),
    ("v8@?0i-9223372036854775809", "number -9223372036854775809 is too large"),
    ("[\(String(repeating: "9", count: 40))i]", "number 999999999999999999999999… is too large"),
    ("bx", "invalid bitfield 'x'"),
  ])
  func numbersTooLargeAreNamed(_ input: String, _ message: String) throws {
    let error = try #require(throws: EncodingError.self) { try SignatureEncoding(parsing: input) }
    #expect(error.message == message)
  }

  @Test func strayByteMessagesNameTheByteInHex() throws {
    #expect(try #require(Self.typeError([0xFF])).description == "unexpected byte 0xff at offset 0")
    #expect(try #require(Self.typeError([0x00])).description == "unexpected byte 0x00 at offset 0")
  }

  /// (signature bytes, kind, offset).
  static let signatureErrors: [([UInt8], EncodingError.Kind, Int)] = [
    ([], .emptyInput, 0),
    // Offsets overflowing Int: the frame length, a single signed offset, a whole run.
    (Array("v99999999999999999999@?0".utf8), .countOverflow, 1),
    (Array("v9223372036854775808@?0".utf8), .countOverflow, 1),
    (Array("v8@?0i+9223372036854775808".utf8), .countOverflow, 6),
    (Array("v8@?0i-9223372036854775808".utf8), .countOverflow, 6),
    // A sign with no digits, and a sign where a type must follow a digit run.
    (Array("v16@?0i-".utf8), .invalidOffset, 7),
    (Array("v16@?0i+x".utf8), .invalidOffset, 7),
    (Array("v16@?0+".utf8), .unexpectedByte, 6),
    // Stray bytes between arguments.
    (Array("v16@?0".utf8) + [0x00] + Array("8".utf8), .unexpectedByte, 6),
    (Array("v16@?0".utf8) + [0xFF], .unexpectedByte, 6),
    // Unterminated aggregates inside a signature.
    (Array("v16@?0{S=i".utf8), .unterminatedStructure, 6),
    (Array("v16@?0{S=i8".utf8), .unexpectedByte, 10),
    (Array("v16@?0[2i8".utf8), .unexpectedByte, 9),
  ]

  @Test(arguments: signatureErrors)
  func hostileSignatureFailsWithKindAndOffset(_ bytes: [UInt8], _ kind: EncodingError.Kind, _ offset: Int) throws {
    let error = try #require(Self.signatureError(bytes), "\(bytes) parsed")
    #expect(error.kind == kind, "\(error)")
    #expect(error.offset == offset, "\(error)")
  }

  /// 10^5-deep nesting of every nesting construct fails at the byte that exceeds the default
  /// depth of 100: the parser stops there instead of recursing 10^5 times.
  static let deepNesting: [(unit: String, count: Int, offset: Int)] = [
    ("{S=", 100_000, 300),
    ("(U=", 100_000, 300),
    ("[1", 100_000, 200),
    ("@?<", 100_000, 300),
    ("^", 100_000, 100),
    ("r", 100_000, 100),
    ("j", 100_000, 100),
    ("A", 100_000, 100),
    // Three levels per 6-byte unit: level 101 is the `[` of the 34th unit.
    ("^[1{S=", 100_000, 33 * 6 + 1),
  ]

  @Test(arguments: deepNesting)
  func deepNestingFailsAtTheDepthLimit(_ unit: String, _ count: Int, _ offset: Int) throws {
    let input = Array(String(repeating: unit, count: count).utf8)
    let error = try #require(Self.typeError(input))
    #expect(error.kind == .nestingTooDeep)
    #expect(error.offset == offset)
  }

  /// `^` repeated 10^6 times: the failure offset is the depth limit whatever the length, so the
  /// bytes after it are never looked at (bounded work, checked without a clock).
  @Test func millionPointersStopAtTheLimit() throws {
    for length in [1_000, 100_000, 1_000_000] {
      let input = [UInt8](repeating: UInt8(ascii: "^"), count: length) + [UInt8(ascii: "i")]
      let error = try #require(Self.typeError(input))
      #expect(error.kind == .nestingTooDeep)
      #expect(error.offset == 100)
      for limit in [1, 10, 500] {
        let limited = try #require(Self.typeError(input, options: ParseOptions(maximumNestingDepth: limit)))
        #expect(limited.kind == .nestingTooDeep)
        #expect(limited.offset == limit)
      }
    }
    // Exactly at the limit still parses, and the depth counter unwinds between siblings.
    let atLimit = [UInt8](repeating: UInt8(ascii: "^"), count: 100) + [UInt8(ascii: "i")]
    #expect(Self.typeError(atLimit) == nil)
    let siblings = Array(("{S=" + String(repeating: "^^^^^^^^^i", count: 10_000) + "}").utf8)
    #expect(Self.typeError(siblings) == nil)
  }

  /// Wide but shallow input is fine at any size: 10^5 fields, one level deep.
  @Test func wideInputParses() throws {
    let fields = 100_000
    let input = "{S=" + String(repeating: "i", count: fields) + "}"
    let type = try TypeEncoding(parsing: input)
    guard case .structure(_, let parsed?) = type else {
      Issue.record("not a structure: \(type.description.prefix(20))")
      return
    }
    #expect(parsed.count == fields)
    #expect(try type.layout(for: .x86_64SysV).size == 4 * fields)
  }

  /// Counts beyond `Int` parse (they are valid text) but have no layout; counts beyond memory
  /// have a layout, computed without allocating anything of that size.
  @Test func hugeArrayCounts() throws {
    let beyondInt = try TypeEncoding(parsing: "[9223372036854775808c]")
    #expect(throws: LayoutError.self) { _ = try beyondInt.layout(for: .x86_64SysV) }
    let overflowingSize = try TypeEncoding(parsing: "[1152921504606846976q]")  // 2^60 × 8 bytes
    #expect(throws: LayoutError(kind: .sizeOverflow, encoding: "[1152921504606846976q]")) {
      _ = try overflowingSize.layout(for: .x86_64SysV)
    }
    let nested = try TypeEncoding(parsing: "{S=c[4611686018427387904[4q]]}")
    #expect(throws: LayoutError.self) { _ = try nested.layout(for: .aarch64Linux) }
    let beyondMemory = try TypeEncoding(parsing: "[1000000000000000000q]")
    #expect(try beyondMemory.layout(for: .x86_64SysV).size == 8_000_000_000_000_000_000)
    #expect(beyondMemory.description == "[1000000000000000000q]")
    // As a parameter it decays to a pointer.
    #expect(try beyondMemory.parameterSlotSize(for: .x86_64SysV) == 8)
  }

  /// Bitfields at the edge of the valid range still parse and lay out.
  @Test func bitfieldWidthsInRange() throws {
    #expect(try TypeEncoding(parsing: "{S=b128}").layout(for: .x86_64SysV).size == 16)
    #expect(try TypeEncoding(parsing: "{S=b0q64}").layout(for: .x86_64SysV).size == 8)
    #expect(try TypeEncoding(parsing: "{S=b0c8b8C8}").layout(for: .x86_64SysV).size == 2)
    #expect(try TypeEncoding(parsing: "{S=b0}").layout(for: .x86_64SysV).size == 0)
  }

  /// A huge GNU bit offset is valid text; its layout fails with a typed error.
  @Test func overflowingBitOffsetIsALayoutError() throws {
    let type = try TypeEncoding(parsing: "{S=b9223372036854775807i1}")
    #expect(throws: LayoutError.self) { _ = try type.layout(for: .x86_64SysV) }
  }

  /// A type without an offset in an otherwise offset-carrying signature: the parser keeps it
  /// (GNU and hand-written signatures omit offsets), and the layout reports the gap.
  @Test func typeWithNoOffsetIsKeptAndReported() throws {
    let signature = try SignatureEncoding(parsing: "v16@?0i8c")
    #expect(signature.arguments.map(\.offset) == [0, 8, nil])
    #expect(signature.description == "v16@?0i8c")
    let layout = try signature.layout(for: .x86_64SysV)
    #expect(layout.arguments.count == 3)
  }
}
