import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

@testable import BlockSignatureRuntime

/// Where an image file is loaded in a process, from its segments and the process's mappings.
@Suite struct LoadedImageTests {
  /// The toolchain's libBlocksRuntime.so as `readelf -l` shows it: code at 0, data at 0x2da8
  /// (file offset 0x1da8) with a `.bss` tail.
  static let segments = [
    LoadSegment(address: 0, fileOffset: 0, fileSize: 0x1738, memorySize: 0x1738),
    LoadSegment(address: 0x2da8, fileOffset: 0x1da8, fileSize: 0x2a0, memorySize: 0x8b8),
  ]
  static let base: UInt = 0x7f00_0000_0000

  static func region(_ start: UInt, _ end: UInt, _ offset: UInt, executable: Bool = false) -> MemoryMap.Region {
    MemoryMap.Region(
      range: start..<end, protection: .init(readable: true, executable: executable), fileOffset: offset,
      path: "/lib/libBlocksRuntime.so")
  }

  /// What the dynamic linker maps: code, the read-only part of the data (`RELRO`), the rest.
  static let loaded = [
    region(base, base + 0x2000, 0, executable: true), region(base + 0x2000, base + 0x3000, 0x1000),
    region(base + 0x3000, base + 0x4000, 0x2000),
  ]
  /// The same file mapped as data, below the image.
  static let asData = region(0x1000_0000, 0x1001_0000, 0)

  @Test func theLoadIsWhereMostMappingsAgree() throws {
    for mappings in [Self.loaded, [Self.asData] + Self.loaded, [Self.asData] + Self.loaded.dropFirst()] {
      let image = try #require(LoadedImage(segments: Self.segments, mappings: mappings, pageSize: 0x1000))
      #expect(image.bias == Self.base, "\(mappings)")
      #expect(image.base == Self.base)
      #expect(image.extent == Self.base..<Self.base + 0x3660)
    }
  }

  /// One mapping each: the executable one is the image's code.
  @Test func aTieGoesToTheExecutableMapping() throws {
    let image = try #require(
      LoadedImage(segments: Self.segments, mappings: [Self.asData, Self.loaded[0]], pageSize: 0x1000))
    #expect(image.bias == Self.base)
  }

  /// An executable that is not position independent is where its addresses say: no bias, its
  /// base its first page (as `dladdr` has it).
  @Test func aFixedExecutableHasNoBias() throws {
    let segments = [
      LoadSegment(address: 0x40_0000, fileOffset: 0, fileSize: 0x800, memorySize: 0x800),
      LoadSegment(address: 0x40_1000, fileOffset: 0x1000, fileSize: 0x300, memorySize: 0x300),
    ]
    let mappings = [
      Self.region(0x40_0000, 0x40_1000, 0), Self.region(0x40_1000, 0x40_2000, 0x1000, executable: true),
    ]
    let image = try #require(LoadedImage(segments: segments, mappings: mappings, pageSize: 0x1000))
    #expect(image.bias == 0)
    #expect(image.base == 0x40_0000)
    #expect(image.extent == 0x40_0000..<0x40_1300)
  }

  /// Mappings no segment has a page at (another file under the same name) place nothing.
  @Test func mappingsOfNoSegmentPlaceNothing() {
    #expect(
      LoadedImage(segments: Self.segments, mappings: [Self.region(0x1000, 0x2000, 0x5000)], pageSize: 0x1000) == nil)
    #expect(LoadedImage(segments: [], mappings: Self.loaded, pageSize: 0x1000) == nil)
  }

  /// A segment whose mapping does not start at a page boundary of its own: the first page of
  /// the data segment starts in the code's last page of the file.
  @Test func aSegmentsFirstPageMayHoldItsNeighbour() {
    let data = Self.segments[1]
    #expect(data.address(ofMappingAt: 0x1000, pageSize: 0x1000) == 0x2000)
    #expect(data.address(ofMappingAt: 0x2000, pageSize: 0x1000) == 0x3000)
    #expect(data.address(ofMappingAt: 0x3000, pageSize: 0x1000) == nil)
    #expect(data.address(ofMappingAt: 0x1800, pageSize: 0x1000) == nil)
    #expect(data.address(ofMappingAt: 0, pageSize: 0x1000) == nil)
  }

  /// A `.bss` past the file's last page is anonymous memory, in no mapping of the file; its
  /// variables are still named from the image before it.
  @Test func variablesOfALongBssAreNamed() throws {
    let (folder, product) = try Toolchain.compileC(
      "char big_bss[16 * 4096];\nint small_data = 1;\n", fileName: "bss.c", arguments: ["-shared", "-fPIC"],
      output: "libbss.so")
    defer { try? FileManager.default.removeItem(at: folder) }
    let handle = try #require(dlopen(product.path, RTLD_NOW | RTLD_LOCAL))
    defer { dlclose(handle) }
    let start = try #require(dlsym(handle, "big_bss").map { UInt(bitPattern: $0) })
    let offset: UInt = 12 * 4096
    let tail = start + offset
    let images = ProcessImages(pid: getpid())
    #expect(!images.mappings.contains { $0.range.contains(tail) }, "the tail is anonymous memory")
    let symbol = try #require(images.symbol(at: tail))
    #expect(symbol.nearestName == "big_bss")
    #expect(symbol.nearestOffset == offset)
    #expect(symbol.imagePath == product.resolvingSymlinksInPath().path)
    #expect(images.symbol(at: start)?.name == "big_bss")
  }
}
