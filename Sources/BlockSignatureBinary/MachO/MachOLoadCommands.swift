import BlockSignature

/// A section header by its Mach-O ordinal (1-based): the image section it became (nil when
/// it was left out) and where its relocations are.
struct MachOSectionOrdinal {
  var section: ImageSection?
  var relocationOffset: UInt64
  var relocationCount: UInt64
}

/// Where the symbol table (`LC_SYMTAB`) and its strings are.
struct MachOSymtab {
  var offset: UInt64
  var count: UInt64
  var stringOffset: UInt64
  var stringSize: UInt64
}

/// What the load commands say: segments and their sections, the symbol table, and where the
/// linked image's fixups are (chained fixups, or dyld info opcodes).
struct MachOLoadCommands {
  static let segment64Command: UInt32 = 0x19
  static let symtabCommand: UInt32 = 0x2
  static let chainedFixupsCommand: UInt32 = 0x8000_0034
  static let dyldInfoCommands: Set<UInt32> = [0x22, 0x8000_0022]

  /// The sections kept, sorted by address.
  var sections: [ImageSection] = []
  var ordinals: [MachOSectionOrdinal] = []
  var symtab: MachOSymtab?
  var segments: [MachOSegment] = []
  var chainedFixups: (offset: UInt64, size: UInt64)?
  /// `LC_DYLD_INFO(_ONLY)`'s ten words (rebase, bind, weak bind, lazy bind, export: offset, size).
  var dyldInfo: [UInt64] = []

  /// Reads every load command. A command, segment or table that does not fit means a
  /// truncated file (an error); a section that does not fit is left out with a warning.
  init(parsing header: MachOHeader, warnings: inout ScanWarnings) throws(BinaryScanError) {
    let bytes = header.bytes
    var at: UInt64 = 32
    let commandsEnd = 32 + header.commandsSize
    for _ in 0..<header.commandCount {
      guard at + 8 <= commandsEnd, let command = bytes.u32(at), let size = bytes.u32(at + 4).map(UInt64.init),
        size >= 8, at + size <= commandsEnd
      else {
        throw BinaryScanError(
          .malformed, offset: at,
          "load command at \(hex(at)) goes past end of the load commands (size \(hex(header.commandsSize)))")
      }
      switch command {
      case Self.segment64Command:
        try readSegment(at: at, size: size, header: header, warnings: &warnings)
      case Self.symtabCommand:
        symtab = try Self.symtab(at: at, size: size, header: header)
      case Self.chainedFixupsCommand:
        guard size >= 16 else {
          throw BinaryScanError(.malformed, offset: at, "chained fixups command at \(hex(at)) is too small")
        }
        chainedFixups = (UInt64(bytes.u32(at + 8)!), UInt64(bytes.u32(at + 12)!))
      case _ where Self.dyldInfoCommands.contains(command):
        guard size >= 48 else {
          throw BinaryScanError(.malformed, offset: at, "dyld info command at \(hex(at)) is too small")
        }
        dyldInfo = (0..<10).map { UInt64(bytes.u32(at + 8 + 4 * $0)!) }
      default:
        break
      }
      at += size
    }
    sections.sort { $0.address < $1.address }
  }

  /// `LC_SEGMENT_64` at `at`: the segment and each of its sections.
  private mutating func readSegment(at: UInt64, size: UInt64, header: MachOHeader, warnings: inout ScanWarnings)
    throws(BinaryScanError)
  {
    let bytes = header.bytes
    guard size >= 72 else {
      throw BinaryScanError(.malformed, offset: at, "segment command at \(hex(at)) is too small (size \(hex(size)))")
    }
    let sectionCount = UInt64(bytes.u32(at + 64)!)
    let initialProtection = bytes.u32(at + 60)!
    let segment = MachOSegment(
      name: header.fixedString(at + 8), address: bytes.u64(at + 24)!, size: bytes.u64(at + 32)!,
      fileOffset: bytes.u64(at + 40)!, fileSize: bytes.u64(at + 48)!)
    // Like LLVM: a segment whose contents the file does not hold means a truncated file.
    guard bytes.contains(offset: segment.fileOffset, length: segment.fileSize) else {
      throw BinaryScanError(
        .malformed, offset: segment.fileOffset,
        "segment \(segment.name.isEmpty ? "" : segment.name + " ")(load command at \(hex(at))) at \(hex(segment.fileOffset)) (size \(hex(segment.fileSize))) goes past end of file (size \(hex(header.fileSize)))"
      )
    }
    segments.append(segment)
    guard sectionCount <= (size - 72) / 80 else {
      throw BinaryScanError(
        .malformed, offset: at,
        "segment command at \(hex(at)) claims \(sectionCount) sections but has room for \((size - 72) / 80)")
    }
    for index in 0..<sectionCount {
      let section = Self.section(
        at: at + 72 + index * 80, writable: initialProtection & 2 != 0, header: header, warnings: &warnings)
      if let section { sections.append(section) }
      let entry = at + 72 + index * 80
      ordinals.append(
        MachOSectionOrdinal(
          section: section, relocationOffset: UInt64(bytes.u32(entry + 56)!),
          relocationCount: UInt64(bytes.u32(entry + 60)!)))
    }
  }

  /// The `section_64` at `entry` as an image section; nil for thread-local, debug and empty
  /// sections, and (with a warning) for one the file does not hold.
  private static func section(at entry: UInt64, writable: Bool, header: MachOHeader, warnings: inout ScanWarnings)
    -> ImageSection?
  {
    let bytes = header.bytes
    let name = header.fixedString(entry + 16) + "," + header.fixedString(entry)
    let address = bytes.u64(entry + 32)!
    let sectionSize = bytes.u64(entry + 40)!
    let fileOffset = UInt64(bytes.u32(entry + 48)!)
    let flags = bytes.u32(entry + 64)!
    let type = flags & 0xff
    let zeroFill = type == 0x1 || type == 0xc || type == 0x12
    let threadLocal = type == 0x11 || type == 0x12 || type == 0x13 || type == 0x14 || type == 0x15
    let debug = flags & 0x0200_0000 != 0
    guard !threadLocal && !debug && sectionSize > 0 else { return nil }
    if !zeroFill && !bytes.contains(offset: fileOffset, length: sectionSize) {
      warnings.append(.pastEndOfFile("section \(name)", at: fileOffset, size: sectionSize, fileSize: header.fileSize))
      return nil
    }
    if address.addingReportingOverflow(sectionSize).overflow {
      warnings.append(.wrapsAround(section: name, address: address, size: sectionSize, offset: entry))
      return nil
    }
    return ImageSection(
      name: name, address: address, size: sectionSize, fileOffset: zeroFill ? nil : fileOffset,
      isExecutable: flags & 0x8000_0400 != 0, isWritable: writable,
      isIndirectPointerTable: type == 0x6 || type == 0x7 || type == 0x8)
  }

  /// `LC_SYMTAB` at `at`; tables the file does not hold mean a truncated file, not a stripped one.
  private static func symtab(at: UInt64, size: UInt64, header: MachOHeader) throws(BinaryScanError) -> MachOSymtab {
    let bytes = header.bytes
    guard size >= 24 else {
      throw BinaryScanError(.malformed, offset: at, "symtab command at \(hex(at)) is too small")
    }
    let table = MachOSymtab(
      offset: UInt64(bytes.u32(at + 8)!), count: UInt64(bytes.u32(at + 12)!),
      stringOffset: UInt64(bytes.u32(at + 16)!), stringSize: UInt64(bytes.u32(at + 20)!))
    guard bytes.contains(offset: table.offset, length: table.count * 16) else {
      throw BinaryScanError(
        .malformed, offset: table.offset,
        "symbol table (load command at \(hex(at))) at \(hex(table.offset)) (\(table.count) entries) goes past end of file (size \(hex(header.fileSize)))"
      )
    }
    guard bytes.contains(offset: table.stringOffset, length: table.stringSize) else {
      throw BinaryScanError(
        .malformed, offset: table.stringOffset,
        "string table (load command at \(hex(at))) at \(hex(table.stringOffset)) (size \(hex(table.stringSize))) goes past end of file (size \(hex(header.fileSize)))"
      )
    }
    return table
  }
}
