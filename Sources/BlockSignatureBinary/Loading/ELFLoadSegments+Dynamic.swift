// The dynamic section as the dynamic linker follows it: each table it names lies in a loaded
// segment, every string it names is inside the string table, and every relocation writes
// inside a segment and names a symbol inside the symbol table.

import BlockSignature

extension ELFLoadSegments {
  /// The `DT_*` tags the check follows.
  private enum Tag {
    static let needed: UInt64 = 1, pltRelocationSize: UInt64 = 2, hash: UInt64 = 4, stringTable: UInt64 = 5
    static let symbolTable: UInt64 = 6, rela: UInt64 = 7, relaSize: UInt64 = 8, relaEntry: UInt64 = 9
    static let stringSize: UInt64 = 10, soname: UInt64 = 14, rpath: UInt64 = 15, rel: UInt64 = 17
    static let relSize: UInt64 = 18, pltRelocationKind: UInt64 = 20, jumpRelocations: UInt64 = 23
    static let initArray: UInt64 = 25, finiArray: UInt64 = 26, initArraySize: UInt64 = 27
    static let finiArraySize: UInt64 = 28, runpath: UInt64 = 29, relrSize: UInt64 = 35, relr: UInt64 = 36
    static let gnuHash: UInt64 = 0x6fff_fef5
  }

  /// Checks the dynamic section and what it names (a file without one has nothing to check).
  func checkDynamic(in header: ELFFileHeader) throws(BinaryScanError) {
    guard let dynamic else { return }
    var values: [UInt64: UInt64] = [:]
    var strings: [(tag: UInt64, offset: UInt64)] = []
    var entry = dynamic.offset
    let end = dynamic.offset + dynamic.fileSize
    while entry + 16 <= end {
      let tag = header.bytes.u64(entry)!
      let value = header.bytes.u64(entry + 8)!
      if tag == 0 { break }
      if [Tag.needed, Tag.soname, Tag.rpath, Tag.runpath].contains(tag) {
        strings.append((tag, value))
      } else if values[tag] == nil {
        values[tag] = value
      }
      entry += 16
    }
    let stringSize = values[Tag.stringTable] == nil ? 0 : (values[Tag.stringSize] ?? 0)
    try requireTable(values[Tag.stringTable], size: stringSize, "string table (DT_STRTAB)", header)
    for (tag, offset) in strings where offset >= stringSize {
      throw BinaryScanError(
        .malformed, offset: dynamic.offset,
        "the dynamic section names string \(hex(offset)) (tag \(tag)), past the end of its string table (\(hex(stringSize)) bytes)"
      )
    }
    try requireTable(values[Tag.symbolTable], size: 24, "symbol table (DT_SYMTAB)", header)
    try checkHashTables(values, header)
    try requireTable(
      values[Tag.initArray], size: values[Tag.initArraySize] ?? 0, "DT_INIT_ARRAY", header, inFile: false)
    try requireTable(
      values[Tag.finiArray], size: values[Tag.finiArraySize] ?? 0, "DT_FINI_ARRAY", header, inFile: false)
    try requireTable(values[Tag.rel], size: values[Tag.relSize] ?? 0, "relocation table (DT_REL)", header)
    let symbols = values[Tag.symbolTable].map { symbolCount(at: $0) } ?? 0
    if let table = values[Tag.rela] {
      try checkRelocations(at: table, size: values[Tag.relaSize] ?? 0, "DT_RELA", symbols: symbols, header)
    }
    if let table = values[Tag.jumpRelocations] {
      let rela = (values[Tag.pltRelocationKind] ?? Tag.rela) == Tag.rela
      let size = values[Tag.pltRelocationSize] ?? 0
      if rela {
        try checkRelocations(at: table, size: size, "DT_JMPREL", symbols: symbols, header)
      } else {
        try requireTable(table, size: size, "relocation table (DT_JMPREL)", header)
      }
    }
    if let table = values[Tag.relr] {
      try checkRelativeRelocations(at: table, size: values[Tag.relrSize] ?? 0, header)
    }
  }

  /// A table the linker reads, `size` bytes at `address`, lies in one segment (in its file
  /// bytes, unless `inFile` is false).
  private func requireTable(
    _ address: UInt64?, size: UInt64, _ name: String, _ header: ELFFileHeader, inFile: Bool = true
  ) throws(BinaryScanError) {
    guard let address else { return }
    guard let (_, backed) = segment(holding: address, length: size), backed || !inFile else {
      throw BinaryScanError(
        .malformed, offset: dynamic?.offset,
        "the \(name) at \(hex(address)) (\(hex(size)) bytes) lies outside the file's loaded segments")
    }
  }

  /// How many symbols fit between `address` and the end of its segment's file bytes: the
  /// bound on a relocation's symbol index.
  private func symbolCount(at address: UInt64) -> UInt64 {
    guard let (load, _) = segment(holding: address, length: 0) else { return 0 }
    let fileEnd = load.address + load.fileSize
    return address < fileEnd ? (fileEnd - address) / 24 : 0
  }

  /// `DT_HASH` and `DT_GNU_HASH`: their headers, and the arrays whose lengths the headers give.
  private func checkHashTables(_ values: [UInt64: UInt64], _ header: ELFFileHeader) throws(BinaryScanError) {
    if let table = values[Tag.hash] {
      try requireTable(table, size: 8, "symbol hash table (DT_HASH)", header)
      let offset = fileOffset(of: table)
      let buckets = UInt64(header.bytes.u32(offset)!), chains = UInt64(header.bytes.u32(offset + 4)!)
      try requireTable(table, size: 8 + (buckets + chains) * 4, "symbol hash table (DT_HASH)", header)
    }
    if let table = values[Tag.gnuHash] {
      try requireTable(table, size: 16, "GNU hash table (DT_GNU_HASH)", header)
      let offset = fileOffset(of: table)
      let buckets = UInt64(header.bytes.u32(offset)!), bloom = UInt64(header.bytes.u32(offset + 8)!)
      try requireTable(table, size: 16 + bloom * 8 + buckets * 4, "GNU hash table (DT_GNU_HASH)", header)
    }
  }

  /// The file offset of an address that `requireTable` found in a segment's file bytes.
  private func fileOffset(of address: UInt64) -> UInt64 {
    guard let (load, _) = segment(holding: address, length: 0) else { return 0 }
    return load.offset + (address - load.address)
  }

  /// Every `Elf64_Rela` writes its 8 bytes inside a segment and names a symbol in the table.
  private func checkRelocations(
    at address: UInt64, size: UInt64, _ name: String, symbols: UInt64, _ header: ELFFileHeader
  ) throws(BinaryScanError) {
    try requireTable(address, size: size, "relocation table (\(name))", header)
    let start = fileOffset(of: address)
    for index in 0..<(size / 24) {
      let entry = start + index * 24
      let target = header.bytes.u64(entry)!
      let info = header.bytes.u64(entry + 8)!
      guard info & 0xffff_ffff != 0 else { continue }  // R_*_NONE writes nothing
      guard segment(holding: target, length: 8) != nil else {
        throw BinaryScanError(
          .malformed, offset: entry,
          "relocation \(index) of \(name) writes at \(hex(target)), outside the file's loaded segments")
      }
      let symbol = info >> 32
      guard symbol < max(symbols, 1) else {
        throw BinaryScanError(
          .malformed, offset: entry,
          "relocation \(index) of \(name) names symbol \(symbol), past the end of the symbol table")
      }
    }
  }

  /// `DT_RELR`: each address entry, and the words each bitmap marks, lie in a segment.
  private func checkRelativeRelocations(at address: UInt64, size: UInt64, _ header: ELFFileHeader)
    throws(BinaryScanError)
  {
    try requireTable(address, size: size, "relocation table (DT_RELR)", header)
    let start = fileOffset(of: address)
    var next: UInt64 = 0
    for index in 0..<(size / 8) {
      let entry = header.bytes.u64(start + index * 8)!
      let (target, span): (UInt64, UInt64)
      if entry & 1 == 0 {
        (target, span) = (entry, 8)
        next = entry &+ 8
      } else {
        // Bit i (1...63) relocates the word at next + (i - 1) * 8: up to the highest bit set.
        (target, span) = (next, UInt64(63 - entry.leadingZeroBitCount) * 8)
        next = next &+ 63 * 8
      }
      guard segment(holding: target, length: span) != nil else {
        throw BinaryScanError(
          .malformed, offset: start + index * 8,
          "entry \(index) of DT_RELR writes at \(hex(target)), outside the file's loaded segments")
      }
    }
  }
}
