import BlockSignature

/// The section header table and each section's name (from the section name string table).
struct ELFSectionTable {
  var headers: [ELFSectionHeader]
  /// One per header; empty where the name cannot be read.
  var names: [String]

  var count: Int { headers.count }

  /// Reads the table `header` points at. Throws when there is none or it does not fit in the
  /// file; a name table that cannot be read is warned about and leaves names empty.
  init(parsing header: ELFFileHeader, warnings: inout ScanWarnings) throws(BinaryScanError) {
    let is64 = header.is64
    let bytes = header.bytes
    let sectionOffset = header.sectionOffset
    let entrySize = header.sectionEntrySize
    if sectionOffset == 0 {
      throw BinaryScanError(.malformed, offset: is64 ? 40 : 32, "file has no section header table")
    }
    let minimum = ELFSectionHeader.minimumSize(is64: is64)
    guard entrySize >= minimum else {
      throw BinaryScanError(
        .malformed, offset: header.fieldBase + 4,
        "section header entry size \(hex(entrySize)) is smaller than \(hex(minimum))")
    }
    func readSection(_ index: UInt64) -> ELFSectionHeader? {
      let (delta, o1) = index.multipliedReportingOverflow(by: entrySize)
      let (at, o2) = sectionOffset.addingReportingOverflow(delta)
      guard !o1, !o2 else { return nil }
      return ELFSectionHeader(parsing: bytes, at: at, is64: is64)
    }
    // Files with 0xff00 sections or more keep the count and name index in section 0.
    var sectionCount = header.sectionCount
    var stringIndex = header.stringIndex
    if sectionCount == 0 || stringIndex == 0xffff {
      guard let first = readSection(0) else {
        throw BinaryScanError(
          .malformed, offset: sectionOffset,
          "section header table at \(hex(sectionOffset)) goes past end of file (size \(hex(header.fileSize)))")
      }
      if sectionCount == 0 { sectionCount = first.size }
      if stringIndex == 0xffff { stringIndex = UInt64(first.link) }
    }
    let (tableSize, tableOverflow) = sectionCount.multipliedReportingOverflow(by: entrySize)
    guard !tableOverflow, bytes.contains(offset: sectionOffset, length: tableSize) else {
      throw BinaryScanError(
        .malformed, offset: sectionOffset,
        "section header table at \(hex(sectionOffset)) (\(sectionCount) entries of \(hex(entrySize)) bytes) goes past end of file (size \(hex(header.fileSize)))"
      )
    }
    var headers: [ELFSectionHeader] = []
    headers.reserveCapacity(Int(sectionCount))
    for index in 0..<sectionCount { headers.append(readSection(index)!) }
    self.headers = headers
    names = Self.names(of: headers, stringIndex: stringIndex, file: header, warnings: &warnings)
  }

  /// Each section's name from the name table at `stringIndex`.
  private static func names(
    of headers: [ELFSectionHeader], stringIndex: UInt64, file header: ELFFileHeader, warnings: inout ScanWarnings
  ) -> [String] {
    var names = [String](repeating: "", count: headers.count)
    let bytes = header.bytes
    if stringIndex < UInt64(headers.count) {
      let table = headers[Int(stringIndex)]
      if bytes.contains(offset: table.offset, length: table.size) {
        let end = table.offset + table.size
        for (index, section) in headers.enumerated() where UInt64(section.nameOffset) < table.size {
          if let range = bytes.cStringRange(at: table.offset + UInt64(section.nameOffset), end: end, limit: 4096) {
            names[index] = bytes.string(range)
          }
        }
      } else {
        warnings.append(
          .pastEndOfFile("section name table", at: table.offset, size: table.size, fileSize: header.fileSize))
      }
    } else if stringIndex != 0 {
      warnings.append(
        .nameTableIndexPastSections(index: stringIndex, sectionCount: headers.count, offset: header.fieldBase + 8))
    }
    return names
  }
}
