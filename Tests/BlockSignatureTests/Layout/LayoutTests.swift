import BlockSignature
import Testing

@Suite struct LayoutTests {
  // Signatures clang 21 wrote for x86_64 Linux (see DifferentialLayoutTests for the oracle run).
  static let clangSignatures: [String] = [
    "i20@?0i8r*12",
    "v24@?0c8s12B16C20",
    "{P=dic}24@?0r*8^{P=dic}16",
    "v74@?0 8f10q14Q22i30^?34^^i42^^{P}50r^i58^i66",
    "v12@?0{?=[0i][3c]}8",
    "v24@?0[3D]8[2[3i]]16",
  ]

  @Test(arguments: clangSignatures)
  func strippedSignaturesResynthesizeToClang(_ text: String) throws {
    let signature = try SignatureEncoding(parsing: text)
    #expect(try signature.strippingOffsets().synthesizingOffsets(for: .x86_64SysV).description == text)
  }

  @Test func validationNamesTheNumbers() throws {
    let layout = try SignatureEncoding(parsing: "i24@?0i8r*16").layout(for: .x86_64SysV)
    #expect(layout.notes.map(\.message) == ["argument 2 is at 16; clang would write 12"])
    let frame = try SignatureEncoding(parsing: "i24@?0i8r*12").layout(for: .x86_64SysV)
    #expect(frame.notes.map(\.message) == ["frame length is 24; clang would write 20"])
  }

  @Test func hiddenPackingIsReportedNotGuessed() throws {
    // struct Pk { char c; int i; } __attribute__((packed)) and an aligned(16) struct.
    let layout = try SignatureEncoding(parsing: "v109@?0{B=b3b5c}8{Pk=ci}12{Al=c}17(U=id)33D41jd57Ai73t77[4i]93@?101")
      .layout(for: .x86_64SysV)
    let hidden = layout.notes.filter { $0.kind == .hiddenLayout }
    #expect(hidden.map(\.argument) == [2, 3])
    #expect(
      hidden.first?.message
        == "argument 2 occupies 5 bytes but {Pk=ci} gives 8; the encoding hides packing, over-alignment or unencodable fields"
    )
    #expect(layout.arguments[1].layout.caveats == .bitfieldUnitAssumed)
    #expect(layout.arguments[2].layout.size == 5)
    #expect(layout.arguments[2].layout.caveats == .layoutHidden)
    #expect(layout.offsetsMatch)
    // Without offsets nothing reveals the packing: natural layout, as documented.
    let stripped = try SignatureEncoding(parsing: "v109@?0{B=b3b5c}8{Pk=ci}12{Al=c}17(U=id)33D41jd57Ai73t77[4i]93@?101")
      .strippingOffsets().synthesizingOffsets(for: .x86_64SysV)
    #expect(stripped.arguments[3].offset?.value == 12 + 8)
  }

  @Test func unencodableSlotsComeFromOffsets() throws {
    let layout = try SignatureEncoding(parsing: "v28@?0i812").layout(for: .x86_64SysV)
    #expect(layout.arguments.map(\.slotSize) == [8, 4, 16])
    #expect(layout.frameLength == 28)
    #expect(layout.offsetsMatch)
    #expect(layout.notes.map(\.kind) == [.sizeFromOffsets])
    let half = try SignatureEncoding(parsing: "v74@?0 8f10q14Q22i30^?34^^i42^^{P}50r^i58^i66").layout(for: .x86_64SysV)
    #expect(half.arguments[1].layout.size == 2)
    #expect(half.offsetsMatch)
  }

  /// An unencodable return type has no note of its own (its size is unknown, not an estimate):
  /// only the argument whose slot comes from the offsets has one.
  @Test func unencodableReturnHasNoEstimateNote() throws {
    let layout = try SignatureEncoding(parsing: "24@?08").layout(for: .x86_64SysV)
    #expect(layout.notes.map(\.kind) == [.sizeFromOffsets])
    #expect(layout.notes.map(\.argument) == [1])
  }

  /// Notes come in argument order, the frame's last.
  /// Notes name positions as the signature's form does: a block's or method's arguments from
  /// 0 (the block, `self`), a C function's (`i12i4r*4`) from 1 after the return value, a list
  /// of types by type number.
  @Test func notesNamePositionsAsTheFormDoes() throws {
    #expect(
      try SignatureEncoding(parsing: "i12i4r*4").layout().notes.map(\.message) == [
        "argument 1 is at 4; clang would write 0", "argument 2 is at 4; clang would write 8",
      ])
    #expect(
      try SignatureEncoding(parsing: "v16@?0i4").layout().notes.map(\.message).first
        == "argument 1 is at 4; clang would write 8")
    #expect(
      try SignatureEncoding(parsing: "  i4").layout().notes.map(\.message) == [
        "type 2: ' ' may be _Float16, __bf16 (2 bytes, assumed) or __float128 (16 bytes)",
        "type 3 is at 4; clang would write 2",
        "type 1: ' ' may be _Float16, __bf16 (2 bytes, assumed) or __float128 (16 bytes)",
      ])
  }

  @Test func notesAreInArgumentOrderWithTheFrameLast() throws {
    let layout = try SignatureEncoding(parsing: "v28@?0i8r*16").layout(for: .x86_64SysV)
    #expect(
      layout.notes.map(\.description) == [
        "argument 2 is at 16; clang would write 12", "frame length is 28; clang would write 24",
      ])
  }

  /// A digit run after an argument splits into offsets that stay below the written frame length:
  /// `0816` with a frame of 16 is 0 and 816 (both noted), never 0, 8 and 16 (an argument at the
  /// frame's end).
  @Test func offsetRunsNeverPlaceAnArgumentAtTheFrameEnd() throws {
    let layout = try SignatureEncoding(parsing: "v16@?0816").layout(for: .x86_64SysV)
    #expect(layout.arguments.map(\.writtenOffset) == [0, 816])
    #expect(
      layout.notes.map(\.description) == [
        "argument 1 is at 816; clang would write 8", "frame length is 16; clang would write 816",
      ])
  }

  /// A frame checks structure names as the parser does: a name that is not UTF-8
  /// is an error at its byte, whichever scanner reads it (the fast path hands it over).
  @Test func frameRejectsANameThatIsNotUTF8() throws {
    for (prefix, suffix, offset) in [("v@?{S", "=i}", 5), ("v8@?0{S", "=b3}8", 7)] {
      let bytes = Array(prefix.utf8) + [0xFF] + Array(suffix.utf8)
      let error = try #require(throws: SignatureError.self) {
        try bytes.withUnsafeBufferPointer { try SignatureFrame(parsingBytes: $0) }
      }
      #expect(error.encodingError?.kind == .invalidUTF8, "\(prefix)")
      #expect(error.encodingError?.offset == offset, "\(prefix)")
    }
  }

  /// Every documented name of a built-in model, in any case.
  @Test func dataModelsByName() throws {
    let names: [(String, DataModel)] = [
      ("x86_64", .x86_64SysV), ("X86_64-Linux", .x86_64SysV), ("sysv", .x86_64SysV), ("LP64", .x86_64SysV),
      ("aarch64", .aarch64Linux), ("aarch64-linux", .aarch64Linux), ("arm64", .arm64Apple),
      ("ARM64-apple", .arm64Apple), ("apple", .arm64Apple), ("i386", .i386Linux), ("i686", .i386Linux),
      ("ilp32", .i386Linux), ("windows", .windowsX64), ("x86_64-windows", .windowsX64), ("Win64", .windowsX64),
      ("llp64", .windowsX64),
    ]
    for (name, model) in names {
      #expect(DataModel(named: name)?.name == model.name, "\(name)")
    }
    #expect(DataModel(named: "pdp11") == nil)
  }

  @Test func dataModelInference() throws {
    #expect(
      try SignatureEncoding(parsing: "{?=cDb3}41@?0{?=cDb3}4@?24[3l]28c32l36Ac40").compatibleDataModels() == [
        .i386Linux
      ])
    #expect(
      try SignatureEncoding(parsing: "{?=cDb3}61@?0{?=cDb3}8@?<i@?i>32[3q]40c48q52Ac60").compatibleDataModels() == [
        .arm64Apple, .windowsX64,
      ])
    #expect(try SignatureEncoding(parsing: "i@?i").compatibleDataModels().isEmpty)
  }

  @Test func sizeOverflowIsAnError() throws {
    let huge = try TypeEncoding(parsing: "[9999999999999999999[9999999999q]]")
    #expect(throws: LayoutError.self) { _ = try huge.layout(for: .x86_64SysV) }
    let bits = try TypeEncoding(parsing: "{S=b9223372036854775807i1b9223372036854775807i1}")
    #expect(throws: LayoutError.self) { _ = try bits.layout(for: .x86_64SysV) }
  }

  @Test func undecidableTypesSaySo() throws {
    #expect(try TypeEncoding(parsing: "{S}").layout().caveats == .fieldsNotEncoded)
    #expect(try TypeEncoding(parsing: " ").layout().caveats == .ambiguousFloatingPoint)
    #expect(try TypeEncoding(parsing: "A{?}").layout().caveats == .fieldsNotEncoded)
    #expect(try TypeEncoding(parsing: "t").layout(for: .i386Linux).caveats == .unsupportedOnTarget)
    #expect(try TypeEncoding(parsing: "{S=b2i3c}").layout().isExact)
  }
}
