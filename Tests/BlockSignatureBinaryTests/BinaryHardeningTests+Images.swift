import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

// The images the hardening tests damage: objects and libraries clang builds, and ELF fields
// to overwrite in them.

extension BinaryHardeningTests {
  static let source = """
    struct P { double x; int y; char c; };
    void take(void (^)(void));
    int (^global_int)(int, long) = ^(int a, long b) { return a + (int)b; };
    struct P (^global_struct)(const char *, struct P *) = ^(const char *s, struct P *p) { return *p; };
    void f(int k) {
      __block int counter = k;
      take(^{ counter++; });
      take(^{ (void)k; });
    }
    """

  /// Compiles the sample with `arguments` (after `-fblocks -O1`) and returns the output's bytes.
  static func build(_ name: String, _ arguments: [String]) throws -> [UInt8] {
    let clang = try #require(Toolchain.find("clang"))
    let directory = try Toolchain.temporaryDirectory("hardening")
    defer { try? FileManager.default.removeItem(at: directory) }
    let sourceFile = directory.appendingPathComponent("b.c")
    try source.write(to: sourceFile, atomically: true, encoding: .utf8)
    let output = directory.appendingPathComponent(name)
    try Toolchain.check(clang, ["-fblocks", "-O1"] + arguments + ["-o", output.path, sourceFile.path])
    return [UInt8](try Data(contentsOf: output))
  }

  static func object() throws -> [UInt8] { try build("b.o", ["-c"]) }
  static func sharedLibrary() throws -> [UInt8] {
    try build("b.so", ["-shared", "-fPIC", "-nostdlib", "-Wl,--unresolved-symbols=ignore-all"])
  }
  /// A static non-PIE executable: descriptor words are plain addresses in the file.
  static func staticExecutable() throws -> [UInt8] {
    try build("b", ["-static", "-nostdlib", "-Wl,--unresolved-symbols=ignore-all", "-Wl,-e,0"])
  }
  static func machOObject() throws -> [UInt8] { try build("b.o", ["-target", "arm64-apple-macos11", "-c"]) }

  enum Outcome {
    case report(BinaryScanReport)
    case failure(BinaryScanError)

    var report: BinaryScanReport? { if case .report(let r) = self { r } else { nil } }
    var error: BinaryScanError? { if case .failure(let e) = self { e } else { nil } }
    /// Warnings or a typed error: the scanner noticed.
    var noticedDamage: Bool { error != nil || !(report?.warnings.isEmpty ?? true) }
  }

  static func scan(_ bytes: [UInt8]) -> Outcome {
    bytes.withUnsafeBytes { raw -> Outcome in
      do throws(BinaryScanError) {
        let reports = try BinaryScanner.scan(bytes: raw, name: "hostile")
        return .report(reports[0])
      } catch {
        return .failure(error)
      }
    }
  }

  // MARK: Reading and writing ELF64 little-endian fields

  struct ELF {
    var bytes: [UInt8]

    func read(_ offset: Int, _ size: Int) -> UInt64 {
      var value: UInt64 = 0
      for index in 0..<size { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
      return value
    }
    mutating func write(_ offset: Int, _ size: Int, _ value: UInt64) {
      for index in 0..<size { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
    }
    var programOffset: Int { Int(read(0x20, 8)) }
    var programCount: Int { Int(read(0x38, 2)) }
    var sectionOffset: Int { Int(read(0x28, 8)) }
    var sectionCount: Int { Int(read(0x3C, 2)) }
    var sectionNameIndex: Int { Int(read(0x3E, 2)) }
    func header(_ index: Int) -> Int { sectionOffset + 64 * index }
    func sectionType(_ index: Int) -> UInt64 { read(header(index) + 4, 4) }
    func sectionFileRange(_ index: Int) -> Range<Int> {
      let start = Int(read(header(index) + 0x18, 8))
      return start..<(start + Int(read(header(index) + 0x20, 8)))
    }
    func name(_ index: Int) -> String {
      let table = sectionFileRange(sectionNameIndex).lowerBound
      var at = table + Int(read(header(index), 4))
      var result: [UInt8] = []
      while bytes[at] != 0 { result.append(bytes[at]); at += 1 }
      return String(decoding: result, as: UTF8.self)
    }
    func index(named name: String) -> Int? { (0..<sectionCount).first { self.name($0) == name } }
    func indices(ofType type: UInt64) -> [Int] { (0..<sectionCount).filter { sectionType($0) == type } }

    /// Every offset where a header, a table entry or a section starts or ends.
    var boundaries: Set<Int> {
      var result: Set<Int> = [0, 1, 4, 5, 6, 16, 18, 20, 24, 0x20, 0x28, 0x30, 0x34, 0x38, 0x3C, 0x3E, 0x40]
      for index in 0...programCount { result.insert(programOffset + 56 * index) }
      for index in 0...sectionCount { result.insert(sectionOffset + 64 * index) }
      for index in 1..<sectionCount where sectionType(index) != 8 {
        let range = sectionFileRange(index)
        result.formUnion([range.lowerBound, range.upperBound])
      }
      return result.filter { $0 < bytes.count }
    }
  }

  // MARK: Truncation
}
