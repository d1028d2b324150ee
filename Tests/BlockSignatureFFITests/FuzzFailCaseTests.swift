import BlockSignature
import BlockSignatureBinary
import BlockSignatureFFI
import BlockSignatureRuntime
import Foundation
import TestSupport
import Testing

/// Every input libFuzzer found (kept in FuzzTesting/FailCases/<target>/), replayed as a byte
/// array through the same calls as its harness (swift-protobuf's `Test_FuzzTests`). With the
/// FFI's tests: the highest library a harness calls (the typed-call harness makes blocks).
@Suite struct FuzzFailCaseTests {
  /// FailCases/FuzzSignature/complex-tuple-blowup: `?@?` then 65 `j` and a space. Each
  /// `_Complex` doubles the Swift tuple (`(T, T)`), so spelled out, the Swift type would need
  /// 2^65 copies of `Float16`; `SwiftRenderer.render` keeps it short.
  static let complexTupleBlowup: [UInt8] =
    [0x3f, 0x40, 0x3f] + [UInt8](repeating: 0x6a, count: 65) + [0x20]

  @Test func complexTupleBlowup() throws {
    let rendered = runSignatureHarness(Self.complexTupleBlowup)
    #expect(rendered > 0 && rendered < 100_000)
    let signature = try Self.complexTupleBlowup.withUnsafeBufferPointer { try SignatureEncoding(parsingBytes: $0) }
    let swift = signature.swiftType()
    #expect(swift.utf8.count < 10_000)
    #expect(swift.hasPrefix("@convention(block) (/* _Complex "))
  }

  /// The same blowup through arrays, found by reading the renderer after the fuzzer's hint:
  /// `[16[16[16…i]]]` nested eight deep spelled 16^8 `Int32`s.
  @Test func nestedArrayTupleBlowup() throws {
    let nested = String(repeating: "[16", count: 8) + "i" + String(repeating: "]", count: 8)
    let type = try TypeEncoding(parsing: nested)
    let swift = type.swiftType()
    #expect(swift.utf8.count < 10_000)
    #expect(swift.hasPrefix("UnsafeMutablePointer</* [16 x /* [16 x "))
    // Small tuples are still spelled out, as the importer does.
    #expect(
      try TypeEncoding(parsing: "^[2[3i]]").swiftType()
        == "UnsafeMutablePointer<((Int32, Int32, Int32), (Int32, Int32, Int32))>?")
    #expect(try TypeEncoding(parsing: "jf").swiftType() == "(Float, Float) /* _Complex */")
    #expect(runSignatureHarness(Array(("v@?" + nested).utf8)) < 1_000_000)
  }

  /// FuzzTesting/Sources/FuzzTypedCall's first steps: the block made for the signature before
  /// the NUL byte, the invocation that calls it, and the JSON array after the NUL byte read as
  /// the harness reads it (`CValue(json:)`, then each value as the return type and the
  /// parameters' types in turn). A refusal is an `InvocationError`.
  @discardableResult
  static func runTypedCallHarness(_ bytes: [UInt8]) -> Result<Int, InvocationError> {
    let signature = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    return Result { () throws(InvocationError) in
      let block = try DynamicBlock(signature: signature, failure: .returnZero) { _ in .void }
      let invocation = try BlockInvocation(block: block.unsafeBlock)
      if let split = bytes.firstIndex(of: 0),
        case .aggregate(let items)? = try? CValue(json: String(decoding: bytes[(split + 1)...], as: UTF8.self))
      {
        let encoding = invocation.signature.encoding
        for (item, type) in zip(items, [encoding.returnType] + encoding.arguments.dropFirst().map(\.type)) {
          _ = try? item.converted(to: type, model: invocation.signature.model)
        }
      }
      return invocation.argumentCount
    }
  }

  /// FailCases/FuzzTypedCall/ffi-prep-cif-refuses-empty-structure: `i{q,Bgqq=}8@?0{S=dd}`. The
  /// structure named `q,Bgqq` has no members, so libffi refuses the call interface
  /// (`ffi_prep_cif` fails). `CallInterface`'s buffers are freed once, by its deinit, which
  /// runs when an initializer that has set every property throws; the block is refused with
  /// libffi's status.
  @Test func preparedInterfaceRefusedByLibffiIsFreedOnce() throws {
    let bytes = Array("i{q,Bgqq=}8@?0{S=dd}".utf8) + [0] + Array("[[1, 2, 3]]".utf8)
    guard case .failure(let error) = Self.runTypedCallHarness(bytes) else {
      Issue.record("the block was made")
      return
    }
    #expect(error.kind == .preparationFailed)
    #expect(error.message.hasPrefix("ffi_prep_cif returned status"), "\(error)")
  }

  /// What FuzzTesting/Sources/FuzzBinaryScanner does with one input; nil when it throws.
  /// FuzzTesting/FailCases, found next to this file.
  static let failCases = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("FuzzTesting/FailCases")

  static func runScannerHarness(_ bytes: [UInt8]) -> Result<[BinaryScanReport], BinaryScanError> {
    bytes.withUnsafeBytes { raw in
      Result { () throws(BinaryScanError) in try BinaryScanner.scan(bytes: raw, name: "fuzz") }
    }
  }

  /// FailCases/FuzzBinaryScanner/archive-member-offset-overflow, reduced by hand: an archive
  /// whose member is an ELF header with `e_shoff` = 0xfffffffffffffff0. The member's error
  /// offset plus the member's position in the archive overflows UInt64, so
  /// `BinaryScanner.scan(bytes:name:options:)` gives such an error no archive offset.
  static let archiveMemberOffsetOverflow: [UInt8] = {
    var member: [UInt8] = [0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01] + [UInt8](repeating: 0, count: 57)
    member[16] = 1  // ET_REL
    member[18] = 0x3e  // EM_X86_64
    member[20] = 1  // EV_CURRENT
    for (index, byte) in [0xf0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff].enumerated() {
      member[0x28 + index] = UInt8(byte)
    }
    member[0x34] = 64  // e_ehsize
    member[0x3a] = 64  // e_shentsize
    member[0x3c] = 1  // e_shnum
    let header = "d.o/            0           0     0     644     64        `\n"
    return Array("!<arch>\n".utf8) + Array(header.utf8) + member
  }()

  @Test func archiveMemberOffsetOverflow() throws {
    #expect(Self.archiveMemberOffsetOverflow.count == 8 + 60 + 64)
    guard case .failure(let error) = Self.runScannerHarness(Self.archiveMemberOffsetOverflow) else {
      Issue.record("scanned without error")
      return
    }
    #expect(error.kind == .malformed)
    #expect(error.offset == nil)
    #expect(
      error.message.hasPrefix("archive member d.o at 0x44: section header table at 0xfffffffffffffff0 "),
      "\(error.message)")
    // A member error whose offset fits is still moved to the archive's coordinates.
    var small = Self.archiveMemberOffsetOverflow
    small[68 + 0x28..<68 + 0x30] = [0x00, 0x10, 0, 0, 0, 0, 0, 0][...]
    guard case .failure(let rebased) = Self.runScannerHarness(small) else {
      Issue.record("scanned without error")
      return
    }
    #expect(try #require(rebased.offset) == 0x1000 + 68)
  }

  /// Classic dyld info opcodes whose work is not bounded by the file: a bind repeated 2^60
  /// times over a segment of 2^64 bytes with none in the file (the fixups grew until memory
  /// ran out), and 400 rebase opcodes over the same 512 slots (fixups grow with the square of
  /// the file). Both stop at a budget of 4 096 plus a quarter of the file's size, with one warning.
  @Test func fixupsAreBoundedByTheFileSize() throws {
    let directory = Self.failCases.appendingPathComponent("FuzzBinaryScanner")
    for name in ["macho-bind-count-2-to-the-60", "macho-rebase-same-slots-400-times"] {
      let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
      let report = try #require(try Self.runScannerHarness(bytes).get().first)
      #expect(
        report.warnings.contains {
          $0.message.contains("(4096 plus a quarter of the file's \(bytes.count) bytes)")
            && $0.message.hasSuffix("not decoded")
        },
        "\(name): \(report.warnings)")
    }
  }

  /// ELF section headers that name the same symbol table or relocation entries again and
  /// again (150 times here; 2 000 times in 190 KB took over 120 s and 440 MB): headers with the
  /// same bytes share one reading, and tables that overlap stop being read once the tables read
  /// add up to the file's size, with one warning.
  @Test func repeatedELFTablesAreReadOnce() throws {
    let directory = Self.failCases.appendingPathComponent("FuzzBinaryScanner")
    for (name, expected) in [
      ("elf-symbol-table-repeated-150-times", nil),
      ("elf-relocation-section-repeated-150-times", nil),
      ("elf-symbol-tables-overlapping-150-times", "147 symbol tables not read (first: .symtab at 0x88)"),
      ("elf-relocation-sections-overlapping-150-times", "147 relocation sections not read (first: .rela.dyn at 0x88)"),
    ] {
      let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
      let report = try #require(try Self.runScannerHarness(bytes).get().first)
      let notRead = report.warnings.map(\.message).filter { $0.contains(" not read (first: ") }
      if let expected {
        #expect(notRead.count == 1 && notRead[0].hasPrefix(expected), "\(name): \(notRead)")
      } else {
        #expect(notRead.isEmpty, "\(name): \(notRead)")
      }
    }
  }

  /// Every kept input, replayed from FuzzTesting/FailCases/<target>/ (found next to this file,
  /// so new findings are covered as soon as they are kept): none may trap, nor run for long
  /// (FuzzCompatibility/nested-complex-classification-timeout took 13 s: see
  /// `CompatibilityTests.nestedTypesWithoutBytesAreClassifiedOnce`).
  @Test func everyKeptFailCaseReplays() throws {
    let failCases = Self.failCases
    var isDirectory: ObjCBool = false
    try #require(
      FileManager.default.fileExists(atPath: failCases.path, isDirectory: &isDirectory) && isDirectory.boolValue,
      "\(failCases.path) is not a folder")
    // Every regular file under FailCases, counted apart from the replay below.
    let enumerator = try #require(FileManager.default.enumerator(atPath: failCases.path))
    var kept = 0
    while let path = enumerator.nextObject() as? String {
      if enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular,
        !(path as NSString).lastPathComponent.hasPrefix(".")
      {
        kept += 1
      }
    }
    var replayed = 0
    let targets = try FileManager.default.contentsOfDirectory(atPath: failCases.path).filter { !$0.hasPrefix(".") }
    for target in targets.sorted() {
      let directory = failCases.appendingPathComponent(target)
      let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
      for file in files.sorted() where !file.hasPrefix(".") {
        let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(file)))
        switch target {
        case "FuzzTypeEncoding":
          _ = bytes.withUnsafeBufferPointer { try? TypeEncoding(parsingBytes: $0) }
        case "FuzzBinaryScanner":
          _ = Self.runScannerHarness(bytes)
        case "FuzzExtendedLayout":
          _ = try? ExtendedLayout(decoding: bytes)
        case "FuzzSwiftType":
          let text = String(decoding: bytes, as: UTF8.self)
          for model in DataModel.allBuiltIn { _ = try? SwiftFunctionType(parsing: text, model: model) }
        case "FuzzCompatibility":
          let parts = bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false).map(Array.init)
          let candidate = parts[0].withUnsafeBufferPointer { try? SignatureEncoding(parsingBytes: $0) }
          let expected = (parts.count > 1 ? parts[1] : parts[0]).withUnsafeBufferPointer {
            try? SignatureEncoding(parsingBytes: $0)
          }
          if let candidate, let expected {
            for model in DataModel.allBuiltIn {
              for level in CompatibilityLevel.allCases {
                _ = CompatibilityChecker(level: level, model: model).check(candidate, against: expected)
              }
            }
          }
        case "FuzzSignature":
          runSignatureHarness(bytes)
          // The harness's differential half: the single pass gives the tree's numbers.
          for model in DataModel.allBuiltIn {
            expectFrameAgreement(bytes, model: model, sourceLocation: #_sourceLocation)
          }
        case "FuzzTypedCall":
          Self.runTypedCallHarness(bytes)
        case "FuzzCallbackTable":
          let text = String(decoding: bytes, as: UTF8.self)
          for model in DataModel.allBuiltIn {
            guard let table = try? CallbackTable(parsing: text, name: "fuzz", model: model), model == .host else {
              continue
            }
            _ = try? DynamicDelegate(table, unimplementedMembers: .returnZero)
          }
        default:
          Issue.record("\(target)/\(file): no harness for \(target)")
          continue
        }
        replayed += 1
      }
    }
    #expect(kept > 0)
    #expect(replayed == kept, "replayed \(replayed) of the \(kept) files under \(failCases.path)")
  }
}
