// The program headers as the dynamic linker reads them, strictly: any entry it would map or
// read past the end of the file is an error, not a warning (`ELFLoadCheck`).

import BlockSignature

/// The loadable segments and the dynamic segment of a 64-bit ELF file, each checked to lie in
/// the file.
struct ELFLoadSegments {
  /// One `PT_LOAD`: its index in the program header table and its ranges.
  struct Segment {
    var index: UInt64
    var offset: UInt64
    var address: UInt64
    var fileSize: UInt64
    var memorySize: UInt64
  }

  var loads: [Segment] = []
  /// `PT_DYNAMIC`, if there is one.
  var dynamic: Segment?

  /// Reads the program header table; every `PT_LOAD` and `PT_DYNAMIC` must lie in the file.
  init(parsing header: ELFFileHeader) throws(BinaryScanError) {
    let fileSize = hex(header.fileSize)
    guard header.programCount > 0 else {
      throw BinaryScanError(
        .malformed, offset: header.fieldBase + 2, "the file has no program headers: nothing to load")
    }
    guard header.programEntrySize == 56 else {
      throw BinaryScanError(
        .malformed, offset: header.fieldBase,
        "program header entries are \(header.programEntrySize) bytes; ELF64 has 56")
    }
    guard header.bytes.contains(offset: header.programOffset, length: header.programCount * 56) else {
      throw BinaryScanError(
        .malformed, offset: header.programOffset,
        "program header table at \(hex(header.programOffset)) (\(header.programCount) entries of 0x38 bytes) goes past the end of the file (\(fileSize) bytes)"
      )
    }
    var others: [(type: UInt32, segment: Segment)] = []
    for index in 0..<header.programCount {
      let entry = header.programOffset + index * 56
      let type = header.bytes.u32(entry)!
      guard let name = Self.checkedTypes[type] else { continue }
      let segment = Segment(
        index: index, offset: header.word(entry + 8), address: header.word(entry + 16),
        fileSize: header.word(entry + 32), memorySize: header.word(entry + 40))
      let label = type == 1 ? "segment \(index)" : "segment \(index) (\(name))"
      let (end, overflow) = segment.offset.addingReportingOverflow(segment.fileSize)
      guard !overflow, end <= UInt64(header.fileSize) else {
        throw BinaryScanError(
          .malformed, offset: entry,
          "\(label) ends at \(overflow ? "past 2^64" : hex(end)), past the end of the file (\(fileSize) bytes)")
      }
      guard segment.fileSize <= segment.memorySize || type != 1 else {
        throw BinaryScanError(
          .malformed, offset: entry,
          "\(label) holds \(hex(segment.fileSize)) bytes of the file but only \(hex(segment.memorySize)) of memory")
      }
      guard !segment.address.addingReportingOverflow(segment.memorySize).overflow else {
        throw BinaryScanError(.malformed, offset: entry, "\(label) at \(hex(segment.address)) wraps past 2^64")
      }
      if type == 1 { loads.append(segment) } else { others.append((type, segment)) }
    }
    guard !loads.isEmpty else {
      throw BinaryScanError(.malformed, offset: header.programOffset, "the file has no loadable segment (PT_LOAD)")
    }
    // The dynamic linker reads these through their addresses once the loads are mapped.
    for (type, other) in others {
      guard segment(holding: other.address, length: max(other.memorySize, other.fileSize)) != nil else {
        throw BinaryScanError(
          .malformed, offset: header.programOffset + other.index * 56,
          "segment \(other.index) (\(Self.checkedTypes[type]!)) at \(hex(other.address)) lies outside the loadable segments"
        )
      }
      if type == 2 { dynamic = other }
    }
  }

  /// The program header types the dynamic linker maps or reads, by name.
  static let checkedTypes: [UInt32: String] = [
    1: "PT_LOAD", 2: "PT_DYNAMIC", 4: "PT_NOTE", 6: "PT_PHDR", 7: "PT_TLS", 0x6474_e552: "PT_GNU_RELRO",
    0x6474_e553: "PT_GNU_PROPERTY",
  ]

  /// The segment whose memory holds `[address, address + length)`, and whether the whole
  /// range is backed by the file (not only by zero-filled memory).
  func segment(holding address: UInt64, length: UInt64) -> (segment: Segment, inFile: Bool)? {
    let (end, overflow) = address.addingReportingOverflow(length)
    guard !overflow else { return nil }
    for load in loads where address >= load.address && end <= load.address + load.memorySize {
      return (load, end <= load.address + load.fileSize)
    }
    return nil
  }
}
