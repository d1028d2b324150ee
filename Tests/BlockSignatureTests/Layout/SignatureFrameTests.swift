import BlockSignature
import Foundation
import TestSupport
import Testing

/// `SignatureFrame` (one pass over the bytes) against `SignatureEncoding` + `layout(for:)` (tree):
/// the same numbers, the same errors, on every input we have.
@Suite struct SignatureFrameTests {
  @Test func documentedExample() throws {
    let frame = try SignatureFrame(parsing: "i20@?0i8r*12")
    #expect(frame.kind == .block)
    #expect(frame.returnValue.size == 4)
    #expect(frame.arguments.map(\.offset) == [0, 8, 12])
    #expect(frame.arguments.map(\.slotSize) == [8, 4, 8])
    #expect(frame.frameLength == 20)
    #expect(frame.offsetsMatch)
    #expect(try SignatureFrame(parsing: "v24@0:8@16").kind == .method)
    #expect(try SignatureFrame(parsing: "v12@?0q4", for: .i386Linux).offsetsMatch)
    #expect(try !SignatureFrame(parsing: "i24@?0i8r*12").offsetsMatch)
  }

  @Test func errorsMatchTheParser() throws {
    #expect(throws: SignatureError.self) { try SignatureFrame(parsing: "i20@?0{S=i") }
    do {
      _ = try SignatureFrame(parsing: "i20@?0i8r*12x")
      Issue.record("no error")
    } catch {
      #expect(error.kind == .malformedEncoding)
      #expect(error.encodingError?.kind == .unexpectedByte)
      #expect(error.encodingError?.offset == 12)
    }
    do {
      _ = try SignatureFrame(parsing: "v@?[9999999999999999999[9999999999q]]")
      Issue.record("no error")
    } catch {
      #expect(error.kind == .layoutOverflow)
    }
  }

  /// Hand-picked inputs: the parsing and layout tests' tables, hidden layouts, unencodable
  /// parameters, overflows, every model.
  static let handPicked: [String] = [
    "i20@?0i8r*12", "v24@?08", "v28@?0i812", "v40@?0824", "v28@?08i24", "v12@?08", "v32@0:816", "24@?08",
    "B80@?0{S3758=[0s]}88{S3761=*b4[4^v]*}24", "i24@?0{S=[0s]}8{S=[0s]}88", "i40@?0{S=[0s]}8824",
    "*51VNN#5of024IBs5", "S 00@:Q", "v16@0:4i+8", "v-8@0:4i-4", "i@?ir*", "v@:@", "iq", "{P=dic}24@?0r*8^{P=dic}16",
    "v13@?0{Pk=ci}8", "{Pk=ci}13@?0{Pk=ci}8", "v24@?0 8", "v40@?0 8", "v12@?0q4", "v16@?0D4", "v32@?0D8",
    "v@?{S}", "v16@?0{S}8", "v@?A{?}", "v@?t", "v@?{S=b2i3c}", "v@?{S=b0i3b3c5}", "v@?(U=b3b40)",
    "@?<v@?i>16@?0@?<i@?@\"NSString\">8", "v@?@\"NSString\"", "v@?{S=\"a\"@\"b\"i}", "v@?{S=\"a\"@\"b\"}",
    "v@?[9999999999999999999[9999999999q]]", "v@?{S=b9223372036854775807i1b9223372036854775807i1}",
    "v@?j[9223372036854775807c]", "v@?^[9999999999999999999[9999999999q]]",
    "[9999999999999999999[9999999999q]]@?{S=[9999999999999999999[9999999999q]]}",
    "v9223372036854775807@?0q9223372036854775806", "v@?ri", "v@?rb3", "v@?{S=rb3i}", "v@?Aq", "v@?A{S=ccc}",
    "v@?j D", "", "i20@?0{S=i", "i20@?0i+", "i20@?0i-0", "i99999999999999999999@?0", "v@?{S=\"x", "v@?@?<",
    "v@?@?<>", "v@?[", "v@?[3", "v@?[i]", "v@?b", "v@?b300", "v@?b0i40", "v@?{S=\u{FF}}", "v@?@\"\u{E9}\"",
    // Records without bytes (4 bytes in Microsoft layout) and zero-width bitfields, as clang
    // writes them (`-fblocks -S -emit-llvm`) for x86_64-windows, x86_64-linux and aarch64-linux.
    "v16@?0{E=}8i12", "v12@?0{E=}8i8", "v16@?0(UE=)8i12", "v20@?0{A=cb0c}8{B=b0c}10{C=cb0}11{F=b4b0c}12",
    "v40@?0{A=Cb0C}8{Y=Cb0C}16(K=b0Cb0)32",
  ]

  @Test(arguments: DataModel.allBuiltIn.map(\.name))
  func handPickedInputsAgree(modelName: String) throws {
    let model = try #require(DataModel(named: modelName))
    for text in Self.handPicked { expectFrameAgreement(Array(text.utf8), model: model) }
    for bytes in nestingLimitInputs { expectFrameAgreement(bytes, model: model) }
  }

  /// A run of offsets split after a zero-size structure nested deeper than the default limit,
  /// on Microsoft layout (where that structure takes 4 bytes, so the scanners ask the parser's
  /// model-free rule): the caller's limit applies to that question too.
  @Test func zeroSizeQuestionUsesTheCallersDepthLimit() throws {
    let depth = 120
    let deep = String(repeating: "{A=", count: depth) + "[0i]" + String(repeating: "}", count: depth)
    // The offsets clang writes for `int (^)(struct S, v4, v4)` with `struct S { short a[0]; }`
    // (hand-picked above); the 120-deep nesting of S is made up for the limit.
    let text = "i40@?0" + deep + "8824"
    let options = ParseOptions(maximumNestingDepth: 200)
    let signature = try SignatureEncoding(parsing: text, options: options)
    #expect(signature.arguments.map { $0.offset?.value } == [0, 8, 8, 24])
    for model in DataModel.allBuiltIn {
      let frame = try SignatureFrame(parsing: text, for: model, options: options)
      #expect(frame.arguments.map(\.writtenOffset) == [0, 8, 8, 24], "\(model)")
    }
  }

  /// The benchmark corpus (3000 block and 1200 method signatures written by clang).
  @Test func benchmarkCorpusAgrees() throws {
    let signatures = try benchmarkCorpusSignatures()
    for signature in signatures { #expect(expectFrameAgreement(Array(signature.utf8))) }
    #expect(signatures.count >= 4000)
  }

  /// Inside a pointer or a nested signature the fast path reads the types but does not lay them
  /// out, as the tree's layout never measures them: a size that overflows only there does not
  /// make it give up, and both paths still agree.
  @Test func fastPathReadsPointeesWithoutLayingThemOut() {
    let inputs = [
      "v16@?0^[9999999999999999999[9999999999q]]8",
      "v16@?0^{S=[9999999999999999999c][9999999999999999999c]}8",
      "v16@?0^{S=b9223372036854775807i1b9223372036854775807i1}8",
      "v16@?0^(U={T=jA[9223372036854775807c]}^{V=[2[9223372036854775807s]]})8",
      "v16@?0@?<v@?{S=[9999999999999999999c][9999999999999999999c]}>8",
      "v16@?0^{P=^{Q=[9999999999999999999c][9999999999999999999c]}[4{R=}]}8",
    ]
    for text in inputs {
      let bytes = Array(text.utf8)
      #expect(expectFrameAgreement(bytes), "\(text) is valid")
      let taken = bytes.withUnsafeBufferPointer { SignatureFrame.scanningFastPathOnly($0) }
      #expect(taken?.arguments.map(\.size) == [8, 8], "the fast path takes \(text)")
    }
    // The same sizes outside a pointer overflow: the tree's layout reports them.
    #expect(throws: SignatureError.self) {
      try SignatureFrame(parsing: "v16@?0{S=[9999999999999999999c][9999999999999999999c]}8")
    }
  }

  /// The fast path reads a record's name eight bytes at a time: names of every length, ended
  /// by `=`, `}` or `)` at every position of a word, near the end of the input or not, and with
  /// a byte the name check looks at (0, not ASCII, a quote, the other closing byte) anywhere,
  /// read as the tree parser reads them.
  @Test func recordNamesOfEveryLengthAgree() {
    let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz0123456789".utf8)
    for length in 0...26 {
      let name = (0..<length).map { letters[($0 * 7 + length) % letters.count] }
      var inputs: [[UInt8]] = []
      for (open, close) in [(UInt8(ascii: "{"), UInt8(ascii: "}")), (UInt8(ascii: "("), UInt8(ascii: ")"))] {
        let record = [open] + name + Array("=i".utf8) + [close]
        let opaque = [open] + name + [close]
        inputs.append(Array("v16@?0".utf8) + record + Array("8".utf8))
        inputs.append(Array("v16@?0^".utf8) + opaque + Array("8".utf8))
        inputs.append(record)
        inputs.append(Array("v@?".utf8) + [open] + name)
        inputs.append(Array("v@?".utf8) + [open] + name + Array("=".utf8))
        for position in 0..<length {
          let odds: [[UInt8]] = [
            [0], [0xC3, 0xA9], [0xFF], [UInt8(ascii: "\"")], [UInt8(ascii: "}")], [UInt8(ascii: ")")],
          ]
          for odd in odds {
            var changed = name
            changed.replaceSubrange(position..<(position + 1), with: odd)
            inputs.append(Array("v16@?0".utf8) + [open] + changed + Array("=i".utf8) + [close] + Array("8".utf8))
          }
        }
      }
      for input in inputs {
        let valid = expectFrameAgreement(input)
        let text = String(decoding: input, as: UTF8.self)
        if valid, input.allSatisfy({ $0 != 0 && $0 < 0x80 && $0 != UInt8(ascii: "\"") }) {
          let taken = input.withUnsafeBufferPointer { SignatureFrame.scanningFastPathOnly($0) != nil }
          #expect(taken, "the fast path takes \(text)")
        }
      }
    }
  }

  /// The fast path settles in one pass every signature whose written offsets are clang's running
  /// sums — nothing to reconcile — and hands the others, from the first offset that is not, to
  /// the two passes; both give the tree's numbers (`expectFrameAgreement`).
  @Test func onePassTakesRunningSumOffsets() throws {
    // Written by clang (-fblocks -S -emit-llvm) unless said otherwise.
    let cases: [(String, Bool)] = [
      ("v24@0:8@16", false),
      ("i20@?0i8r*12", false),
      ("v@:@", false),  // no offsets: nothing to disagree with
      ("v24@?0@8q16", false),
      ("v17@?0{?=c}8{S3=cs}9S13", false),
      ("v22@?0i8 12q14", false),  // `_Float16`: the 2-byte guess is right
      ("v24@?08", true),  // `^(v4si)`: the vector's empty encoding leaves the digit run "08"
      ("v24@?0 8", true),  // `__float128`: 16 bytes of frame for the 2-byte guess
      ("v21@?0{P=ic}8q13", true),  // a packed structure: 5 bytes where 8 were computed
      ("v48@?0{A=ic}8q40", true),  // over-aligned: handed over at `q`, two arguments read
      ("i20@?0i8r*13", true),  // not clang's: a frame length that is not the sum
      // Not clang's: an offset above the frame length is split by the two passes ("16" as 1
      // and 6), so the one pass must not keep it (FailCases/FuzzSignature/offset-above-frame-handed-over).
      ("8@?0@q16", true),
    ]
    for (text, twoPasses) in cases {
      let bytes = Array(text.utf8)
      let used = bytes.withUnsafeBufferPointer { SignatureFrame.fastPathUsesTwoPasses($0) }
      #expect(used == twoPasses, "\(text)")
      #expect(expectFrameAgreement(bytes), "\(text)")
    }

    var plain = 0
    var onePass = 0
    for signature in try benchmarkCorpusSignatures() {
      let bytes = Array(signature.utf8)
      let frame = try SignatureFrame(parsing: signature)
      let used = bytes.withUnsafeBufferPointer { SignatureFrame.fastPathUsesTwoPasses($0) }
      // Offsets that agree, and no argument whose slot the offsets decide: the running sums.
      let reconciled: LayoutCaveats = [.unknownSize, .fieldsNotEncoded, .ambiguousFloatingPoint, .layoutHidden]
      if frame.offsetsMatch, frame.arguments.allSatisfy({ $0.caveats.isDisjoint(with: reconciled) }) {
        plain += 1
        #expect(used == false, "one pass for \(signature)")
      }
      if used == false {
        onePass += 1
        #expect(frame.offsetsMatch, "\(signature)")
      }
    }
    #expect(plain >= 3000)
    #expect(onePass >= plain)
    // 3 488 of the 4 200 when this was written: the rest have unencodable parameters, packed
    // structures or `__float128` behind a space. Fewer means the one pass lost ground.
    #expect(onePass >= 3400)
  }

  /// `SignatureFrame.Reader` gives what `init(parsingBytes:)` gives, on the corpus and on random
  /// inputs (errors included); frames it returned keep their values; and once a frame is gone
  /// the next one with as many arguments is written into the same buffer (no allocation).
  @Test func readerMatchesAndReusesItsStorage() throws {
    var inputs = try benchmarkCorpusSignatures().map { Array($0.utf8) }
    var rng = SeededRandom(seed: 7)
    let alphabet = Array("0123456789@?:^[]{}()=\"<>bjAricdqQ*#v ".utf8)
    for _ in 0..<2000 {
      inputs.append((0..<Int.random(in: 1...16, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    }
    for model in [DataModel.x86_64SysV, .i386Linux] {
      var reader = SignatureFrame.Reader(model: model)
      for bytes in inputs {
        let expected = bytes.withUnsafeBufferPointer { buffer in
          Result { () throws(SignatureError) in try SignatureFrame(parsingBytes: buffer, for: model) }
        }
        let actual = bytes.withUnsafeBufferPointer { buffer in
          Result { () throws(SignatureError) in try reader.frame(parsingBytes: buffer) }
        }
        #expect(actual == expected, "\(String(decoding: bytes, as: UTF8.self))")
      }
    }

    var reader = SignatureFrame.Reader()
    let kept = try reader.frame(parsing: "i20@?0i8r*12")
    let other = try reader.frame(parsing: "v24@?0d8{S=ic}16")
    #expect(kept == (try SignatureFrame(parsing: "i20@?0i8r*12")))
    #expect(other == (try SignatureFrame(parsing: "v24@?0d8{S=ic}16")))
    // Frames not kept: a frame with as many arguments as an earlier one lands where it was.
    func address(_ frame: SignatureFrame) -> Int {
      frame.arguments.withUnsafeBufferPointer { Int(bitPattern: $0.baseAddress) }
    }
    let first = address(try reader.frame(parsing: "v16@?0@8"))
    // An allocation of the same size in between: a freed buffer would be handed to it, so
    // the next frame could only land at the same address if the reader kept the buffer.
    let blocker = [SignatureFrame.Argument](
      repeating: SignatureFrame.Argument(size: 0, alignment: 1, slotSize: 0, offset: 0), count: 2)
    let second = address(try reader.frame(parsing: "q12@?0i8"))
    withExtendedLifetime(blocker) { #expect(first == second) }
    // Another argument count has a buffer of its own, kept in turn; the first is still there.
    let third = address(try reader.frame(parsing: "q24@?0q8d16"))
    let fourth = address(try reader.frame(parsing: "v24@?0i8^v16"))
    let fifth = address(try reader.frame(parsing: "v16@?0@8"))
    withExtendedLifetime(blocker) {
      #expect(third == fourth)
      #expect(third != first)
      #expect(fifth == first)
    }
    // A kept frame with as many arguments as the next one is not overwritten.
    let held = try reader.frame(parsing: "v24@?0i8^v16")
    let next = try reader.frame(parsing: "d24@?0d8f16")
    #expect(held == (try SignatureFrame(parsing: "v24@?0i8^v16")))
    #expect(next == (try SignatureFrame(parsing: "d24@?0d8f16")))
    #expect(try reader.frame(parsing: "i20@?0i8r*12").frameLength == 20)
  }

  /// Random byte strings over the grammar's alphabet: both paths accept and reject the same
  /// inputs, with the same error kind and offset, and agree on every number.
  @Test func randomInputsAgree() throws {
    let seed = ProcessInfo.processInfo.environment["BLOCKSIG_FRAME_SEED"].flatMap(UInt64.init) ?? 20_261_123
    print("SignatureFrameTests.randomInputsAgree seed \(seed) (BLOCKSIG_FRAME_SEED to replay)")
    var rng = SeededRandom(seed: seed)
    var valid = 0
    for bytes in randomSignatureInputs(count: 20_000, using: &rng) where expectFrameAgreement(bytes) { valid += 1 }
    #expect(valid > 100)
  }
}

extension SignatureFrameTests {
  /// The fast path's inlined byte-to-code switch is the synthesized `init(rawValue:)`.
  @Test func primitiveCodeSwitchMatchesRawValues() {
    for byte in UInt8.min...UInt8.max { #expect(TypeCode(byte: byte) == TypeCode(rawValue: byte), "byte \(byte)") }
  }
}

extension SignatureFrameTests {
  /// The fast path reads digit runs without per-digit overflow checks: an offset of more than 18
  /// digits, or a count or bitfield width of more than 19, is handed to the checked readers. At
  /// and around those lengths, and past `Int` and `UInt64`, both paths must still agree.
  @Test func longDigitRunsAgree() {
    let inputs = [
      "v999999999999999999@?0", "v9223372036854775807@?0", "v9223372036854775808@?0",
      "v92233720368547758070@?0", "v24@?0i999999999999999999", "v24@?0i9223372036854775807",
      "v24@?0i99999999999999999999", "v16@?08123456789012345678901",
      "v24@?0[9999999999999999999c]8", "v24@?0[18446744073709551615c]8", "v24@?0[18446744073709551616c]8",
      "v24@?0[100000000000000000000c]8", "v24@?0[0c]8", "v24@?0{S=b9999999999999999999}8",
      "v24@?0{S=b18446744073709551616}8", "v24@?0{S=b0i99999999999999999999}8",
      "v24@?0{S=b99999999999999999999i3}8",
    ]
    for input in inputs { _ = expectFrameAgreement(Array(input.utf8)) }
    // The limits themselves: 18 offset digits stay on the fast path, 19 leave it.
    Array("v999999999999999999@?0".utf8).withUnsafeBufferPointer {
      #expect(SignatureFrame.scanningFastPathOnly($0) != nil)
    }
    Array("v1000000000000000000@?0".utf8).withUnsafeBufferPointer {
      #expect(SignatureFrame.scanningFastPathOnly($0) == nil)
    }
  }

  /// Signed offsets reach ±Int.max, so two of them can be further apart than `Int` holds: the
  /// gap between an argument's offset and the next one (or the frame) is then no slot size, not
  /// an overflow trap (`v16@?0{S=ii}-9223372036854775807` crashed every layout path).
  @Test func extremeSignedOffsetsDoNotTrap() throws {
    let maximum = Int.max
    let inputs = [
      "v16@?0{S=ii}-\(maximum)", "v16@?-\(maximum)", "v16@?0i-\(maximum)", "v-\(maximum)@?0",
      "v-\(maximum)@?-\(maximum)i\(maximum)", "v16@?-\(maximum)@?\(maximum)",
      "{S=ii}16@?0{S=ii}-\(maximum)@\(maximum)", "v\(maximum)@?-\(maximum)", "v16@?0i+\(maximum)",
    ]
    for input in inputs {
      #expect(expectFrameAgreement(Array(input.utf8)), "\(input)")
      let signature = try SignatureEncoding(parsing: input)
      for model in DataModel.allBuiltIn {
        let layout = try signature.layout(for: model)
        #expect(!layout.offsetsMatch, "\(input)")
        _ = try? signature.methodEncoding(for: model)
        _ = try? MethodSignature(signature, model: model)
        _ = CompatibilityChecker(level: .abi, model: model).check(signature, against: signature)
      }
      runSignatureHarness(Array(input.utf8))
    }
    // A gap that fits is still read: from -16 to the frame's 24, the structure takes 40 bytes.
    let fits = try SignatureEncoding(parsing: "v24@?0{S=ii}-16").layout()
    #expect(fits.arguments[1].slotSize == 40)
    #expect(fits.arguments[1].layout.caveats.contains(.layoutHidden))
  }

  /// Microsoft bitfields open a storage unit whose end was added unchecked later: a unit opened
  /// just below Int.max bits trapped (x86_64-windows only). It is a size overflow, the same
  /// error on both scanners.
  @Test func microsoftBitfieldUnitAtTheEdgeIsASizeOverflow() throws {
    let model = try #require(DataModel(named: "x86_64-windows"))
    for type in [
      "{S=[1152921504606846972c]b1}", "{S=[1152921504606846972c]b1i}", "{S=[1152921504606846972c]b1b1}",
      "{S=[1152921504606846972c]b1b33}", "{S=[1152921504606846968c]b33}",
    ] {
      let input = "v16@?0" + type + "8"
      #expect(!expectFrameAgreement(Array(input.utf8), model: model), "\(input)")
      let error = try #require(throws: SignatureError.self) { try SignatureFrame(parsing: input, for: model) }
      #expect("\(error)".contains("size overflow"), "\(input): \(error)")
      _ = try SignatureEncoding(parsing: input).compatibleDataModels()
    }
  }
}
