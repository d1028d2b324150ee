import BlockSignature

/// The symbols of every symbol table (`.symtab` and `.dynsym`, in header order) in one array,
/// with where each table starts in it: relocations name symbols by their table's index.
struct ELFSymbolTables {
  var symbols: [ImageSymbol] = []
  /// The first index in `symbols` of each symbol table, by section index.
  var tableBase: [Int: Int] = [:]
  /// Whether the file has a static symbol table (is not stripped), even one that cannot be read.
  var hasStaticSymbols = false

  /// Reads every symbol table of `sections`. Tables that do not overlap fit in the file
  /// together: past that, section headers repeat the same bytes, and reading them again would
  /// cost headers × symbols. A table with the same bytes and strings as one read already
  /// shares its symbols; any other is skipped once the tables read add up to the file's size.
  init(
    parsing sections: ELFSectionTable, file header: ELFFileHeader, sectionBases: [UInt64?], relocatable: Bool,
    warnings: inout ScanWarnings
  ) {
    let entrySize: UInt64 = header.is64 ? 24 : 16
    var bytesLeft = UInt64(header.fileSize)
    var tablesRead: [ELFTableKey: Int] = [:]
    var skipped: (count: Int, first: (name: String, offset: UInt64)) = (0, ("", 0))
    for (index, table) in sections.headers.enumerated()
    where table.type == ELFSectionHeader.typeSymtab || table.type == ELFSectionHeader.typeDynsym {
      // A static symbol table makes the file unstripped even when it cannot be read: a damaged
      // one is warned about below, not reported as "stripped".
      if table.type == ELFSectionHeader.typeSymtab && table.size > entrySize { hasStaticSymbols = true }
      guard let strings = Self.strings(of: index, in: sections, file: header, warnings: &warnings) else { continue }
      let key = ELFTableKey(offset: table.offset, size: table.size, refersTo: strings.offset, detail: strings.size)
      if let base = tablesRead[key] {
        tableBase[index] = base
        continue
      }
      guard table.size <= bytesLeft else {
        if skipped.count == 0 { skipped.first = (sections.names[index], table.offset) }
        skipped.count += 1
        continue
      }
      bytesLeft -= table.size
      tablesRead[key] = symbols.count
      tableBase[index] = symbols.count
      read(
        table: index, strings: strings, entrySize: entrySize, sections: sections, file: header,
        sectionBases: sectionBases, relocatable: relocatable, warnings: &warnings)
    }
    if skipped.count > 0 {
      warnings.append(
        .notRead(
          skipped.count, "symbol tables", first: skipped.first.name, at: skipped.first.offset, fileSize: header.fileSize
        ))
    }
  }

  /// The string table of symbol table `index`, when both fit in the file.
  private static func strings(
    of index: Int, in sections: ELFSectionTable, file header: ELFFileHeader, warnings: inout ScanWarnings
  ) -> ELFSectionHeader? {
    let table = sections.headers[index]
    let name = sections.names[index]
    guard header.bytes.contains(offset: table.offset, length: table.size) else {
      warnings.append(
        .pastEndOfFile("symbol table \(name)", at: table.offset, size: table.size, fileSize: header.fileSize))
      return nil
    }
    guard Int(table.link) < sections.count else {
      warnings.append(
        .stringTableIndexPastSections(table: name, link: table.link, sectionCount: sections.count, offset: table.offset)
      )
      return nil
    }
    let strings = sections.headers[Int(table.link)]
    guard header.bytes.contains(offset: strings.offset, length: strings.size) else {
      warnings.append(
        .pastEndOfFile(
          "string table \(sections.names[Int(table.link)])", at: strings.offset, size: strings.size,
          fileSize: header.fileSize))
      return nil
    }
    return strings
  }

  /// Appends the entries of symbol table `index`. Out-of-range name and section indices are
  /// counted and reported once per table (LLVM warns per symbol).
  private mutating func read(
    table index: Int, strings: ELFSectionHeader, entrySize: UInt64, sections: ELFSectionTable,
    file header: ELFFileHeader, sectionBases: [UInt64?], relocatable: Bool, warnings: inout ScanWarnings
  ) {
    let table = sections.headers[index]
    let bytes = header.bytes
    let count = table.size / entrySize
    symbols.reserveCapacity(symbols.count + Int(count))
    let stringEnd = strings.offset + strings.size
    var badName: (count: Int, first: UInt64) = (0, 0)
    var badSection: (count: Int, first: UInt64) = (0, 0)
    for entry in 0..<count {
      let at = table.offset + entry * entrySize
      let nameOffset = UInt64(bytes.u32(at)!)
      let info: UInt8, sectionIndex: UInt16, value: UInt64, size: UInt64
      if header.is64 {
        info = bytes.u8(at + 4)!
        sectionIndex = bytes.u16(at + 6)!
        value = bytes.u64(at + 8)!
        size = bytes.u64(at + 16)!
      } else {
        value = UInt64(bytes.u32(at + 4)!)
        size = UInt64(bytes.u32(at + 8)!)
        info = bytes.u8(at + 12)!
        sectionIndex = bytes.u16(at + 14)!
      }
      var nameRange = 0..<0
      if nameOffset >= strings.size {
        if badName.count == 0 { badName.first = entry }
        badName.count += 1
      } else if nameOffset > 0,
        let range = bytes.cStringRange(at: strings.offset + nameOffset, end: stringEnd, limit: 65536)
      {
        nameRange = range
      }
      let symbolType = info & 0xf
      var defined = false
      var address = value
      if sectionIndex == 0xfff1 {
        defined = true  // SHN_ABS
      } else if sectionIndex != 0 && sectionIndex < 0xff00 {
        if Int(sectionIndex) < sections.count, let base = sectionBases[Int(sectionIndex)] {
          defined = true
          if relocatable { address = base &+ value }
        } else if Int(sectionIndex) >= sections.count {
          if badSection.count == 0 { badSection.first = entry }
          badSection.count += 1
        }
      }
      symbols.append(
        ImageSymbol(
          nameRange: symbolType == 3 || symbolType == 4 ? 0..<0 : nameRange,
          address: address, size: size, isDefined: defined,
          isFunction: symbolType == 2 || symbolType == 10,
          isObject: symbolType == 1))
    }
    let name = sections.names[index]
    if badName.count > 0 {
      warnings.append(
        .symbolNamesPastStrings(count: badName.count, table: name, first: badName.first, offset: table.offset))
    }
    if badSection.count > 0 {
      warnings.append(
        .symbolSectionsPastSections(count: badSection.count, table: name, first: badSection.first, offset: table.offset)
      )
    }
  }
}
