import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// Real binaries (the test executable, the toolchain's libraries) and damaged ones.
@Suite struct BinaryScanRobustnessTests {
  /// The toolchain's runtime library directory, found from `swift` on PATH (symlinks resolved).
  static func toolchainLibrary(_ name: String) throws -> URL {
    let swift = try #require(Toolchain.find("swift"), "swift not found on PATH")
    let binDirectory = swift.resolvingSymlinksInPath().deletingLastPathComponent()
    let url = binDirectory.deletingLastPathComponent().appendingPathComponent("lib/swift/linux/\(name)")
    try #require(FileManager.default.fileExists(atPath: url.path), "\(url.path) missing")
    return url
  }

  @Test(arguments: ["libdispatch.so", "libFoundation.so", "libswiftDispatch.so"])
  func toolchainLibraryScansCleanlyAndStrippedCopyAgrees(_ name: String) throws {
    let library = try Self.toolchainLibrary(name)
    let report = try #require(try BinaryScanner.scan(fileAt: library.path).first)
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    #expect(report.kind == .sharedLibrary)
    #expect(report.blocks.count > 10)
    for block in report.blocks {
      let signature = try #require(block.signature)
      #expect(signature.contains("@?0"))
      #expect(block.size >= 32 && block.size < 4096)
      #expect(block.evidence.contains(.structural), "\(block.descriptor)")
    }
    // Known facts: libdispatch and Foundation have global `void (^)(void)` blocks.
    if name != "libswiftDispatch.so" {
      #expect(report.blocks.contains { $0.kind == .global && $0.signature == "v8@?0" })
    }
    // The structural scan alone finds the same blocks once the symbols are gone.
    let strip = try #require(Toolchain.find(anyOf: ["llvm-strip", "strip"]))
    let directory = try Toolchain.temporaryDirectory("strip")
    defer { try? FileManager.default.removeItem(at: directory) }
    let stripped = directory.appendingPathComponent(name)
    try Toolchain.check(strip, ["--strip-all", "-o", stripped.path, library.path])
    let strippedReport = try #require(try BinaryScanner.scan(fileAt: stripped.path).first)
    #expect(strippedReport.blocks.map(\.signature) == report.blocks.map(\.signature))
    #expect(strippedReport.blocks.map(\.size) == report.blocks.map(\.size))
    #expect(strippedReport.globalLiteralCount == report.globalLiteralCount)
  }

  @Test func testExecutableItselfScans() throws {
    let executable = try #require(Bundle.main.executablePath)
    let reports = try BinaryScanner.scan(fileAt: executable)
    let report = try #require(reports.first)
    #expect(report.warnings.isEmpty, "\(report.warnings)")
    // The fixtures target (clang blocks) is linked into the test executable.
    #expect(report.blocks.count >= 1)
    #expect(report.blocks.allSatisfy { $0.signature?.contains("@?0") ?? true })
  }

  /// Builds a small object once for the damage tests.
  static func sampleObject() throws -> (Data, URL) {
    let clang = try #require(Toolchain.find("clang"))
    let directory = try Toolchain.temporaryDirectory("damage")
    let source = directory.appendingPathComponent("d.c")
    try "int (^g)(int) = ^(int x) { return x; }; void take(void (^)(void)); void f(int k) { take(^{ (void)k; }); }"
      .write(to: source, atomically: true, encoding: .utf8)
    let object = directory.appendingPathComponent("d.o")
    try Toolchain.check(clang, ["-fblocks", "-c", "-o", object.path, source.path])
    return (try Data(contentsOf: object), directory)
  }

  @Test func truncatedFilesNeverCrash() throws {
    let (data, directory) = try Self.sampleObject()
    defer { try? FileManager.default.removeItem(at: directory) }
    var failures = 0
    for length in stride(from: 0, through: data.count, by: 3) {
      data.prefix(length).withUnsafeBytes { bytes in
        do { _ = try BinaryScanner.scan(bytes: bytes, name: "cut") } catch { failures += 1 }
      }
    }
    #expect(failures > 0)
  }

  @Test func corruptedFilesNeverCrash() throws {
    let (data, directory) = try Self.sampleObject()
    defer { try? FileManager.default.removeItem(at: directory) }
    // A fixed seed so any failure replays; BLOCKSIG_SEED overrides it.
    var random = SeededRandom(seed: UInt64(ProcessInfo.processInfo.environment["BLOCKSIG_SEED"] ?? "") ?? 0x5eed)
    var reports = 0
    var errors = 0
    for _ in 0..<300 {
      var copy = [UInt8](data)
      for _ in 0..<8 {
        let index = Int(random.next() % UInt64(copy.count))
        copy[index] = UInt8(truncatingIfNeeded: random.next())
      }
      // Each damaged file gives a report of that file or a typed error that says what is wrong.
      let result = copy.withUnsafeBytes { bytes in
        Result { () throws(BinaryScanError) in
          try BinaryScanner.scan(bytes: bytes, name: "fuzz")
        }
      }
      switch result {
      case .success(let scanned):
        reports += 1
        #expect(!scanned.isEmpty)
        for report in scanned {
          #expect(report.file.hasPrefix("fuzz"))
          #expect(report.warnings.count <= BinaryScanReport.warningLimit + 1)
          #expect(report.warnings.allSatisfy { !$0.description.isEmpty })
        }
      case .failure(let error):
        errors += 1
        #expect(!error.description.isEmpty, "\(error.kind) at \(error.offset.map { "\($0)" } ?? "nil")")
      }
    }
    #expect(reports + errors == 300)
  }

  @Test func damagedSectionTableIsATypedErrorWithOffset() throws {
    let (data, directory) = try Self.sampleObject()
    defer { try? FileManager.default.removeItem(at: directory) }
    var copy = [UInt8](data)
    // e_shoff (offset 0x28, 8 bytes little-endian) far past the end of the file.
    for index in 0..<8 { copy[0x28 + index] = index == 3 ? 0x10 : 0 }
    #expect {
      try copy.withUnsafeBytes { bytes in _ = try BinaryScanner.scan(bytes: bytes, name: "bad") }
    } throws: { error in
      guard let error = error as? BinaryScanError else { return false }
      return error.kind == .malformed && error.offset == 0x1000_0000
        && error.message.hasPrefix("section header table at 0x10000000 ")
    }
  }

  @Test func textIsNotABinary() throws {
    let text = Array("just some text with @?0 in it\n".utf8)
    #expect {
      try text.withUnsafeBytes { bytes in _ = try BinaryScanner.scan(bytes: bytes, name: "t") }
    } throws: { ($0 as? BinaryScanError)?.kind == .unrecognizedFormat }
  }
}
