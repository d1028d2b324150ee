import CBlockSignatureShims
import Foundation
import Testing

@testable import BlockSignatureRuntime

/// This process's reads inside loaded objects' readable segments are copied without a system
/// call; they must give what `process_vm_readv` gives, and leave everything else to it.
@Suite struct LoadedImageReadTests {
  /// A readable mapping of a file (`/proc/self/maps`): where it starts and ends.
  struct Segment {
    var start: UInt
    var end: UInt
  }

  /// Every readable mapping of a file in this process: the loaded objects' segments.
  static func readableSegments() throws -> [Segment] {
    // Read to the end: the file reports no size, and under a sanitizer its shadow mappings
    // come first and fill more than one read.
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps"))
    defer { try? handle.close() }
    let maps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    return maps.split(separator: "\n").compactMap { line in
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 6, fields[1].hasPrefix("r"), fields[5].hasPrefix("/") else { return nil }
      let range = fields[0].split(separator: "-")
      guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
        end - start >= 64
      else { return nil }
      return Segment(start: start, end: end)
    }
  }

  /// The bytes at `address` read by this process's reader and by the reader of another
  /// process (always `process_vm_readv`), or the failure of each.
  func bothReads(_ address: UInt, count: Int) -> (own: [UInt8]?, other: [UInt8]?) {
    let read = { (memory: ProcessMemory) -> [UInt8]? in
      var bytes = [UInt8](repeating: 0, count: count)
      let failure = bytes.withUnsafeMutableBytes { memory.read(address, into: $0) }
      return failure == nil ? bytes : nil
    }
    return (read(ProcessMemory()), read(ProcessMemory(process: getpid())))
  }

  @Test func segmentsReadAlikeAtTheirStartAndEnd() throws {
    // Only mappings of loaded objects: other tests map and unmap files they scan meanwhile.
    var probe: UInt8 = 0
    let segments = try Self.readableSegments().filter { cbs_copy_from_loaded_image($0.start, &probe, 1) == 1 }
    try #require(segments.count > 3)
    for segment in segments {
      let starts = bothReads(segment.start, count: 64)
      #expect(starts.own != nil)
      #expect(starts.own == starts.other, "segment at 0x\(String(segment.start, radix: 16))")
      let ends = bothReads(segment.end - 8, count: 8)
      #expect(ends.own == ends.other)
      // Across the segment's end: not copied from the image; whatever process_vm_readv says.
      let across = bothReads(segment.end - 8, count: 16)
      #expect(across.own == across.other)
    }
  }

  @Test func aStringInAnImageIsReadToItsTerminator() throws {
    let text: StaticString = "a string in the test binary's read-only data"
    let address = UInt(bitPattern: text.utf8Start)
    let read = try ProcessMemory().cString(at: address, limit: 1 << 16).get()
    #expect(read.terminated)
    #expect(String(decoding: read.bytes, as: UTF8.self) == text.description)
    // A limit shorter than the string: cut there, unterminated, as through the system call.
    let cut = try ProcessMemory().cString(at: address, limit: 8).get()
    #expect(cut.bytes == Array(text.description.utf8.prefix(8)))
    #expect(!cut.terminated)
    let other = try ProcessMemory(process: getpid()).cString(at: address, limit: 8).get()
    #expect(other.bytes == cut.bytes && other.terminated == cut.terminated)
  }

  /// The copy without a system call takes bytes inside a loaded object, and only those.
  @Test func onlyBytesInsideALoadedObjectAreCopiedDirectly() throws {
    let text: StaticString = "read-only bytes of the test binary"
    var buffer = [UInt8](repeating: 0, count: 8)
    #expect(cbs_copy_from_loaded_image(UInt(bitPattern: text.utf8Start), &buffer, 8) == 1)
    #expect(buffer == Array(text.description.utf8.prefix(8)))
    let heap = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
    defer { heap.deallocate() }
    #expect(cbs_copy_from_loaded_image(UInt(bitPattern: heap), &buffer, 8) == 0)
    var terminated: Int32 = 0
    #expect(cbs_copy_string_from_loaded_image(UInt(bitPattern: heap), nil, 8, &terminated) == -1)
    #expect(cbs_copy_string_from_loaded_image(UInt(bitPattern: text.utf8Start), nil, 100, &terminated) == 34)
    #expect(terminated == 1)
  }

  @Test func heapMemoryIsLeftToTheSystemCall() throws {
    let heap = UnsafeMutableRawPointer.allocate(byteCount: 32, alignment: 8)
    defer { heap.deallocate() }
    heap.initializeMemory(as: UInt8.self, repeating: 0x41, count: 31)
    heap.storeBytes(of: 0, toByteOffset: 31, as: UInt8.self)
    let read = try ProcessMemory().cString(at: UInt(bitPattern: heap), limit: 64).get()
    #expect(read.bytes == [UInt8](repeating: 0x41, count: 31))
    #expect(read.terminated)
  }
}
