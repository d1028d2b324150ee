// Where each allocated section lies in memory: its own address in linked files; in relocatable
// objects, which have none, synthetic addresses one after another.

import BlockSignature

extension ELFSectionTable {
  /// The allocated sections that fit in the file, sorted by address, and each header's base
  /// address (nil for sections not placed).
  func placedSections(in header: ELFFileHeader, relocatable: Bool, warnings: inout ScanWarnings)
    -> (sections: [ImageSection], bases: [UInt64?])
  {
    var bases = [UInt64?](repeating: nil, count: headers.count)
    var sections: [ImageSection] = []
    var cursor: UInt64 = 0x10000
    for (index, section) in headers.enumerated() {
      guard section.flags & ELFSectionHeader.flagAlloc != 0, section.type != 0 else { continue }
      if section.flags & ELFSectionHeader.flagTLS != 0 && !section.hasContents { continue }
      if section.hasContents && !header.bytes.contains(offset: section.offset, length: section.size) {
        warnings.append(
          .pastEndOfFile("section \(names[index])", at: section.offset, size: section.size, fileSize: header.fileSize))
        continue
      }
      var address = section.address
      if relocatable {
        let alignment = max(16, min(section.alignment, 0x10000))
        let (aligned, o1) = cursor.addingReportingOverflow(alignment - 1)
        let base = aligned & ~(alignment - 1)
        let (next, o2) = base.addingReportingOverflow(section.size)
        guard !o1, !o2, next < UInt64.max - 0x20 else {
          warnings.append(.impossibleSize(section: names[index], size: section.size, offset: section.offset))
          continue
        }
        address = base
        cursor = next + 16
      } else if address.addingReportingOverflow(section.size).overflow {
        warnings.append(
          .wrapsAround(section: names[index], address: address, size: section.size, offset: section.offset))
        continue
      }
      bases[index] = address
      sections.append(
        ImageSection(
          name: names[index], address: address, size: section.size,
          fileOffset: section.hasContents ? section.offset : nil,
          isExecutable: section.flags & ELFSectionHeader.flagExec != 0,
          isWritable: section.flags & ELFSectionHeader.flagWrite != 0,
          isIndirectPointerTable: names[index].hasPrefix(".got"),
          holdsProgramData: [1, 8, 14, 15, 16].contains(section.type)))
    }
    sections.sort { $0.address < $1.address }
    return (sections, bases)
  }
}
