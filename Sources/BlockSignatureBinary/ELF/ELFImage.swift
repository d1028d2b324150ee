// Loading an ELF file (32/64-bit, either byte order) into the scanner's `BinaryImage`.
//
// Class and byte order are parameters read from `e_ident`, never taken from the host. Every
// table offset and size from the file is checked with overflow-safe arithmetic before use.

import BlockSignature

/// The ELF class and byte order, LLVM's `ELFType<endianness, Is64>` as a value.
struct ELFVariant: Hashable, Sendable {
  var is64: Bool
  var order: ByteOrder
  var wordSize: Int { is64 ? 8 : 4 }
}

/// Relocation type numbers that matter for pointer slots, per machine.
struct ELFRelocationKinds {
  /// Absolute pointer-sized relocations (`R_X86_64_64`, `R_AARCH64_ABS64`, `R_386_32`, `R_ARM_ABS32`).
  var absolute: Set<UInt32>
  /// GOT entry relocations (`GLOB_DAT`): pointer-sized, symbol-valued.
  var globalData: Set<UInt32>
  /// Base-relative relocations (`RELATIVE`).
  var relative: Set<UInt32>
  var architecture: String
  /// Relocations of instructions that load an address, in relocatable objects: what the
  /// construction-site reader needs to know where code points (`R_X86_64_PC32`/`PLT32`;
  /// AArch64 `ADR_PREL_LO21`, `ADR_PREL_PG_HI21(_NC)`, `ADD_ABS_LO12_NC`).
  var code: [UInt32: CodeFixup.Kind] = [:]

  init(machine: UInt16, is64: Bool) {
    switch machine {
    case 62:
      self.init(absolute: [1], globalData: [6], relative: [8], architecture: "x86_64")
      code = [2: .pcRelative32, 4: .pcRelative32]
    case 3: self.init(absolute: [1], globalData: [6], relative: [8], architecture: "i386")
    case 183:
      self.init(absolute: [257], globalData: [1025], relative: [1027], architecture: "aarch64")
      code = [274: .adr21, 275: .page21, 276: .page21, 277: .low12]
    case 40: self.init(absolute: [2], globalData: [21], relative: [23], architecture: "arm")
    case 243:
      self.init(absolute: is64 ? [2] : [1], globalData: [], relative: [3], architecture: is64 ? "riscv64" : "riscv32")
    default: self.init(absolute: [], globalData: [], relative: [], architecture: "machine-\(machine)")
    }
  }

  init(absolute: Set<UInt32>, globalData: Set<UInt32>, relative: Set<UInt32>, architecture: String) {
    self.absolute = absolute
    self.globalData = globalData
    self.relative = relative
    self.architecture = architecture
  }
}

/// One ELF section header, already widened to 64 bits.
struct ELFSectionHeader {
  var nameOffset: UInt32
  var type: UInt32
  var flags: UInt64
  var address: UInt64
  var offset: UInt64
  var size: UInt64
  var link: UInt32
  var info: UInt32
  var alignment: UInt64
  var entrySize: UInt64

  static let typeSymtab: UInt32 = 2
  static let typeRela: UInt32 = 4
  static let typeNobits: UInt32 = 8
  static let typeRel: UInt32 = 9
  static let typeDynsym: UInt32 = 11
  static let flagWrite: UInt64 = 0x1
  static let flagAlloc: UInt64 = 0x2
  static let flagExec: UInt64 = 0x4
  static let flagTLS: UInt64 = 0x400

  var hasContents: Bool { type != Self.typeNobits }
}

package enum ELFLoader {
  static let magic: [UInt8] = [0x7f, 0x45, 0x4c, 0x46]

  package static func isELF(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.count >= 4 && bytes[0] == 0x7f && bytes[1] == 0x45 && bytes[2] == 0x4c && bytes[3] == 0x46
  }

  // swiftlint:disable:next function_body_length cyclomatic_complexity
  /// Reads the headers, sections, symbols and (unless `readingRelocations` is false: symbol
  /// lookups need none) the relocations of the ELF file in `raw`.
  package static func load(_ raw: UnsafeRawBufferPointer, readingRelocations: Bool = true) throws(BinaryScanError)
    -> BinaryImage
  {
    guard raw.count >= 16, isELF(raw) else {
      throw BinaryScanError(.unrecognizedFormat, offset: 0, "not an ELF file")
    }
    let is64: Bool
    switch raw[4] {
    case 1: is64 = false
    case 2: is64 = true
    default: throw BinaryScanError(.unsupportedVariant, offset: 4, "unknown ELF class \(raw[4])")
    }
    let order: ByteOrder
    switch raw[5] {
    case 1: order = .little
    case 2: order = .big
    default: throw BinaryScanError(.unsupportedVariant, offset: 5, "unknown ELF data encoding \(raw[5])")
    }
    let variant = ELFVariant(is64: is64, order: order)
    let bytes = ByteView(base: raw, order: order)
    let headerSize: UInt64 = is64 ? 64 : 52
    guard bytes.contains(offset: 0, length: headerSize) else {
      throw BinaryScanError(
        .malformed, offset: 0,
        "file is too small for an ELF header (size \(hex(raw.count)), need \(hex(headerSize)))")
    }
    let w = UInt64(variant.wordSize)
    func word(_ offset: UInt64) -> UInt64 { bytes.word(offset, size: variant.wordSize) ?? 0 }
    let type = bytes.u16(16)!
    let machine = bytes.u16(18)!
    let programOffset = word(is64 ? 32 : 28)
    let sectionOffset = word(is64 ? 40 : 32)
    let fieldBase: UInt64 = is64 ? 54 : 42
    let programEntrySize = UInt64(bytes.u16(fieldBase)!)
    let programCount = UInt64(bytes.u16(fieldBase + 2)!)
    let sectionEntrySize = UInt64(bytes.u16(fieldBase + 4)!)
    var sectionCount = UInt64(bytes.u16(fieldBase + 6)!)
    var stringIndex = UInt64(bytes.u16(fieldBase + 8)!)
    let relocationKinds = ELFRelocationKinds(machine: machine, is64: is64)
    var warnings = ScanWarnings()

    // Program headers: only the interpreter and dynamic segment matter (for the kind).
    var hasInterpreter = false
    var hasDynamic = false
    if programCount > 0 {
      let minimum: UInt64 = is64 ? 56 : 32
      let (tableSize, overflow) = programCount.multipliedReportingOverflow(by: programEntrySize)
      if programEntrySize < minimum || overflow || !bytes.contains(offset: programOffset, length: tableSize) {
        warnings.append(
          BinaryScanWarning(
            offset: programOffset,
            message:
              "program header table at \(hex(programOffset)) (\(programCount) entries of \(hex(programEntrySize)) bytes) goes past end of file (size \(hex(raw.count)))"
          ))
      } else {
        for index in 0..<programCount {
          switch bytes.u32(programOffset + index * programEntrySize)! {
          case 3: hasInterpreter = true
          case 2: hasDynamic = true
          default: break
          }
        }
      }
    }
    let kind: BinaryKind
    switch type {
    case 1: kind = .relocatable
    case 2: kind = hasInterpreter || hasDynamic ? .executable : .staticExecutable
    case 3: kind = hasInterpreter ? .positionIndependentExecutable : .sharedLibrary
    default:
      throw BinaryScanError(.unsupportedVariant, offset: 16, "unsupported ELF file type \(type)")
    }

    // Section headers.
    let minimumSectionEntry: UInt64 = is64 ? 64 : 40
    if sectionOffset == 0 {
      throw BinaryScanError(.malformed, offset: is64 ? 40 : 32, "file has no section header table")
    }
    guard sectionEntrySize >= minimumSectionEntry else {
      throw BinaryScanError(
        .malformed, offset: fieldBase + 4,
        "section header entry size \(hex(sectionEntrySize)) is smaller than \(hex(minimumSectionEntry))")
    }
    func readSection(_ index: UInt64) -> ELFSectionHeader? {
      let (delta, o1) = index.multipliedReportingOverflow(by: sectionEntrySize)
      let (at, o2) = sectionOffset.addingReportingOverflow(delta)
      guard !o1, !o2, bytes.contains(offset: at, length: minimumSectionEntry) else { return nil }
      if is64 {
        return ELFSectionHeader(
          nameOffset: bytes.u32(at)!, type: bytes.u32(at + 4)!, flags: bytes.u64(at + 8)!,
          address: bytes.u64(at + 16)!, offset: bytes.u64(at + 24)!, size: bytes.u64(at + 32)!,
          link: bytes.u32(at + 40)!, info: bytes.u32(at + 44)!, alignment: bytes.u64(at + 48)!,
          entrySize: bytes.u64(at + 56)!)
      }
      return ELFSectionHeader(
        nameOffset: bytes.u32(at)!, type: bytes.u32(at + 4)!, flags: UInt64(bytes.u32(at + 8)!),
        address: UInt64(bytes.u32(at + 12)!), offset: UInt64(bytes.u32(at + 16)!),
        size: UInt64(bytes.u32(at + 20)!), link: bytes.u32(at + 24)!, info: bytes.u32(at + 28)!,
        alignment: UInt64(bytes.u32(at + 32)!), entrySize: UInt64(bytes.u32(at + 36)!))
    }
    if sectionCount == 0 || stringIndex == 0xffff {
      guard let first = readSection(0) else {
        throw BinaryScanError(
          .malformed, offset: sectionOffset,
          "section header table at \(hex(sectionOffset)) goes past end of file (size \(hex(raw.count)))")
      }
      if sectionCount == 0 { sectionCount = first.size }
      if stringIndex == 0xffff { stringIndex = UInt64(first.link) }
    }
    let (tableSize, tableOverflow) = sectionCount.multipliedReportingOverflow(by: sectionEntrySize)
    guard !tableOverflow, bytes.contains(offset: sectionOffset, length: tableSize) else {
      throw BinaryScanError(
        .malformed, offset: sectionOffset,
        "section header table at \(hex(sectionOffset)) (\(sectionCount) entries of \(hex(sectionEntrySize)) bytes) goes past end of file (size \(hex(raw.count)))"
      )
    }
    var headers: [ELFSectionHeader] = []
    headers.reserveCapacity(Int(sectionCount))
    for index in 0..<sectionCount { headers.append(readSection(index)!) }

    // Section names.
    var names = [String](repeating: "", count: headers.count)
    if stringIndex < UInt64(headers.count) {
      let table = headers[Int(stringIndex)]
      if bytes.contains(offset: table.offset, length: table.size) {
        let end = table.offset + table.size
        for (index, header) in headers.enumerated() where UInt64(header.nameOffset) < table.size {
          if let range = bytes.cStringRange(at: table.offset + UInt64(header.nameOffset), end: end, limit: 4096) {
            names[index] = bytes.string(range)
          }
        }
      } else {
        warnings.append(
          BinaryScanWarning(
            offset: table.offset,
            message:
              "section name table at \(hex(table.offset)) (size \(hex(table.size))) goes past end of file (size \(hex(raw.count)))"
          ))
      }
    } else if stringIndex != 0 {
      warnings.append(
        BinaryScanWarning(
          offset: fieldBase + 8,
          message:
            "section name table index \(stringIndex) is past the section header table (\(headers.count) sections)"))
    }

    // Place allocated sections: their own addresses, or synthetic ones in relocatable files.
    let relocatable = kind == .relocatable
    var sectionBase = [UInt64?](repeating: nil, count: headers.count)
    var sections: [ImageSection] = []
    var cursor: UInt64 = 0x10000
    for (index, header) in headers.enumerated() {
      guard header.flags & ELFSectionHeader.flagAlloc != 0, header.type != 0 else { continue }
      if header.flags & ELFSectionHeader.flagTLS != 0 && !header.hasContents { continue }
      if header.hasContents && !bytes.contains(offset: header.offset, length: header.size) {
        warnings.append(
          BinaryScanWarning(
            offset: header.offset,
            message:
              "section \(names[index]) at \(hex(header.offset)) (size \(hex(header.size))) goes past end of file (size \(hex(raw.count)))"
          ))
        continue
      }
      var address = header.address
      if relocatable {
        let alignment = max(16, min(header.alignment, 0x10000))
        let (aligned, o1) = cursor.addingReportingOverflow(alignment - 1)
        let base = aligned & ~(alignment - 1)
        let (next, o2) = base.addingReportingOverflow(header.size)
        guard !o1, !o2, next < UInt64.max - 0x20 else {
          warnings.append(
            BinaryScanWarning(
              offset: header.offset, message: "section \(names[index]) has an impossible size \(hex(header.size))"))
          continue
        }
        address = base
        cursor = next + 16
      } else if address.addingReportingOverflow(header.size).overflow {
        warnings.append(
          BinaryScanWarning(
            offset: header.offset,
            message:
              "section \(names[index]) at address \(hex(address)) with size \(hex(header.size)) wraps around the address space"
          ))
        continue
      }
      sectionBase[index] = address
      sections.append(
        ImageSection(
          name: names[index], address: address, size: header.size,
          fileOffset: header.hasContents ? header.offset : nil,
          isExecutable: header.flags & ELFSectionHeader.flagExec != 0,
          isWritable: header.flags & ELFSectionHeader.flagWrite != 0,
          isIndirectPointerTable: names[index].hasPrefix(".got"),
          holdsProgramData: [1, 8, 14, 15, 16].contains(header.type)))
    }
    sections.sort { $0.address < $1.address }

    // Symbols (.symtab then .dynsym), each table's first index remembered for relocations.
    var symbols: [ImageSymbol] = []
    var tableBase: [Int: Int] = [:]
    var hasStaticSymbols = false
    let symbolEntrySize: UInt64 = is64 ? 24 : 16
    // Tables that do not overlap fit in the file together: past that, section headers repeat
    // the same bytes, and reading them again would cost headers × symbols. A table with the
    // same bytes and strings as one read already shares its symbols; any other is skipped
    // once the tables read add up to the file's size.
    var symbolBytesLeft = UInt64(raw.count)
    var tablesRead: [ELFTableKey: Int] = [:]
    var skippedTables: (count: Int, first: (name: String, offset: UInt64)) = (0, ("", 0))
    for (index, header) in headers.enumerated()
    where header.type == ELFSectionHeader.typeSymtab || header.type == ELFSectionHeader.typeDynsym {
      // A static symbol table makes the file unstripped even when it cannot be read: a damaged
      // one is warned about below, not reported as "stripped".
      if header.type == ELFSectionHeader.typeSymtab && header.size > symbolEntrySize { hasStaticSymbols = true }
      guard bytes.contains(offset: header.offset, length: header.size) else {
        warnings.append(
          BinaryScanWarning(
            offset: header.offset,
            message:
              "symbol table \(names[index]) at \(hex(header.offset)) (size \(hex(header.size))) goes past end of file (size \(hex(raw.count)))"
          ))
        continue
      }
      guard Int(header.link) < headers.count else {
        warnings.append(
          BinaryScanWarning(
            offset: header.offset,
            message:
              "symbol table \(names[index]) links to string table section \(header.link), past the section header table (\(headers.count) sections)"
          ))
        continue
      }
      let strings = headers[Int(header.link)]
      guard bytes.contains(offset: strings.offset, length: strings.size) else {
        warnings.append(
          BinaryScanWarning(
            offset: strings.offset,
            message:
              "string table \(names[Int(header.link)]) at \(hex(strings.offset)) (size \(hex(strings.size))) goes past end of file (size \(hex(raw.count)))"
          ))
        continue
      }
      let key = ELFTableKey(offset: header.offset, size: header.size, refersTo: strings.offset, detail: strings.size)
      if let base = tablesRead[key] {
        tableBase[index] = base
        continue
      }
      guard header.size <= symbolBytesLeft else {
        if skippedTables.count == 0 { skippedTables.first = (names[index], header.offset) }
        skippedTables.count += 1
        continue
      }
      symbolBytesLeft -= header.size
      tablesRead[key] = symbols.count
      tableBase[index] = symbols.count
      let count = header.size / symbolEntrySize
      symbols.reserveCapacity(symbols.count + Int(count))
      let stringEnd = strings.offset + strings.size
      // Out-of-range indices are counted and reported once per table (LLVM warns per symbol).
      var badName: (count: Int, first: UInt64) = (0, 0)
      var badSection: (count: Int, first: UInt64) = (0, 0)
      defer {
        if badName.count > 0 {
          warnings.append(
            BinaryScanWarning(
              offset: header.offset,
              message:
                "\(badName.count) symbols in \(names[index]) have a name offset past the end of their string table (first: symbol \(badName.first))"
            ))
        }
        if badSection.count > 0 {
          warnings.append(
            BinaryScanWarning(
              offset: header.offset,
              message:
                "\(badSection.count) symbols in \(names[index]) refer to a section past the section header table (first: symbol \(badSection.first))"
            ))
        }
      }
      for entry in 0..<count {
        let at = header.offset + entry * symbolEntrySize
        let nameOffset = UInt64(bytes.u32(at)!)
        let info: UInt8, sectionIndex: UInt16, value: UInt64, size: UInt64
        if is64 {
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
          if Int(sectionIndex) < headers.count, let base = sectionBase[Int(sectionIndex)] {
            defined = true
            if relocatable { address = base &+ value }
          } else if Int(sectionIndex) >= headers.count {
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
    }

    if skippedTables.count > 0 {
      warnings.append(
        BinaryScanWarning(
          offset: skippedTables.first.offset,
          message:
            "\(skippedTables.count) symbol tables not read (first: \(skippedTables.first.name) at \(hex(skippedTables.first.offset))): they overlap the tables read before them, together larger than the file (size \(hex(raw.count)))"
        ))
    }

    // Relocations: section relocations of objects, dynamic relocations of linked files. As for
    // symbol tables, relocation sections that repeat the same bytes are read once per target.
    var fixups: [PointerFixup] = []
    var codeFixups: [CodeFixup] = []
    var relocationBytesLeft = UInt64(raw.count)
    var relocationsRead: Set<ELFTableKey> = []
    var skippedRelocations: (count: Int, first: (name: String, offset: UInt64)) = (0, ("", 0))
    for (index, header) in headers.enumerated()
    where readingRelocations && (header.type == ELFSectionHeader.typeRela || header.type == ELFSectionHeader.typeRel) {
      let hasAddend = header.type == ELFSectionHeader.typeRela
      var targetBase: UInt64 = 0
      if relocatable {
        guard Int(header.info) < headers.count, let base = sectionBase[Int(header.info)] else { continue }
        targetBase = base
      } else if header.flags & ELFSectionHeader.flagAlloc == 0 {
        continue  // --emit-relocs leftovers: link-time, not load-time.
      }
      let entrySize: UInt64 = (is64 ? 16 : 8) + (hasAddend ? w : 0)
      guard bytes.contains(offset: header.offset, length: header.size) else {
        warnings.append(
          BinaryScanWarning(
            offset: header.offset,
            message:
              "relocation section \(names[index]) at \(hex(header.offset)) (size \(hex(header.size))) goes past end of file (size \(hex(raw.count)))"
          ))
        continue
      }
      let key = ELFTableKey(
        offset: header.offset, size: header.size, refersTo: UInt64(header.link), detail: targetBase)
      guard relocationsRead.insert(key).inserted else { continue }
      guard header.size <= relocationBytesLeft else {
        if skippedRelocations.count == 0 { skippedRelocations.first = (names[index], header.offset) }
        skippedRelocations.count += 1
        continue
      }
      relocationBytesLeft -= header.size
      let symbolBase = tableBase[Int(header.link)]
      var reportedMissingTable = false
      let count = header.size / entrySize
      fixups.reserveCapacity(fixups.count + Int(count))
      for entry in 0..<count {
        let at = header.offset + entry * entrySize
        let offset = word(at)
        let info = word(at + w)
        let symbolIndex = Int(is64 ? info >> 32 : info >> 8)
        let relocationType = UInt32(is64 ? info & 0xffff_ffff : info & 0xff)
        let isRelative = relocationType != 0 && relocationKinds.relative.contains(relocationType)
        let isSymbolic =
          relocationKinds.absolute.contains(relocationType) || relocationKinds.globalData.contains(relocationType)
        let codeKind = relocatable ? relocationKinds.code[relocationType] : nil
        guard isRelative || isSymbolic || codeKind != nil else { continue }
        let (slot, slotOverflow) = targetBase.addingReportingOverflow(offset)
        if slotOverflow { continue }
        var addend: Int64
        if hasAddend {
          let rawAddend = word(at + 2 * w)
          addend = is64 ? Int64(bitPattern: rawAddend) : Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: rawAddend)))
        } else {
          // REL: the addend is the word in place.
          addend = 0
          if let sectionIndex = sections.firstIndex(where: { $0.contains(slot) }),
            let fileOffset = sections[sectionIndex].fileOffset
          {
            let inPlace = bytes.word(fileOffset + (slot - sections[sectionIndex].address), size: variant.wordSize) ?? 0
            addend = is64 ? Int64(bitPattern: inPlace) : Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: inPlace)))
          }
        }
        if let codeKind {
          // An instruction's operand: the place it names (a descriptor or a function of this
          // object; a symbol defined elsewhere stands at its external address) plus the addend.
          if hasAddend, symbolIndex > 0, let base = symbolBase, base + symbolIndex < symbols.count {
            let symbol = symbols[base + symbolIndex]
            let place = symbol.isDefined ? symbol.address : BinaryImage.externalAddress(ofSymbol: base + symbolIndex)
            // What the instruction points at: for a PC-relative field, the symbol plus the
            // addend (measured from the field), plus the 4 bytes to the field's end.
            let target = place &+ UInt64(bitPattern: addend)
            codeFixups.append(
              CodeFixup(slot: slot, kind: codeKind, target: codeKind == .pcRelative32 ? target &+ 4 : target))
          }
          continue
        }
        if isRelative && !isSymbolic {
          fixups.append(
            PointerFixup(slot: slot, value: .address(UInt64(bitPattern: addend) & (is64 ? ~0 : 0xffff_ffff))))
          continue
        }
        guard symbolIndex > 0 else {
          fixups.append(PointerFixup(slot: slot, value: .address(UInt64(bitPattern: addend))))
          continue
        }
        guard let base = symbolBase else {
          // The symbol is in a table that was not read (damaged, or `sh_link` names no symbol
          // table): taking the addend alone as the address would be wrong.
          if !reportedMissingTable {
            reportedMissingTable = true
            warnings.append(
              BinaryScanWarning(
                offset: at,
                message:
                  "relocations in \(names[index]) refer to symbols of section \(header.link), which is not a readable symbol table"
              ))
          }
          continue
        }
        let merged = base + symbolIndex
        guard merged < symbols.count else {
          warnings.append(
            BinaryScanWarning(
              offset: at,
              message:
                "relocation at \(hex(at)) in \(names[index]) refers to symbol \(symbolIndex) past end of symbol table"))
          continue
        }
        let symbol = symbols[merged]
        if symbol.isDefined {
          fixups.append(PointerFixup(slot: slot, value: .address(symbol.address &+ UInt64(bitPattern: addend))))
        } else {
          fixups.append(PointerFixup(slot: slot, value: .symbol(merged, addend)))
        }
      }
    }
    fixups.sort { $0.slot < $1.slot }
    codeFixups.sort { $0.slot < $1.slot }

    if skippedRelocations.count > 0 {
      warnings.append(
        BinaryScanWarning(
          offset: skippedRelocations.first.offset,
          message:
            "\(skippedRelocations.count) relocation sections not read (first: \(skippedRelocations.first.name) at \(hex(skippedRelocations.first.offset))): they overlap the sections read before them, together larger than the file (size \(hex(raw.count)))"
        ))
    }

    return BinaryImage(
      bytes: bytes,
      format: is64 ? .elf64 : .elf32,
      architecture: relocationKinds.architecture,
      kind: kind,
      hasSymbols: hasStaticSymbols,
      pointerSize: variant.wordSize,
      rawWordsAreAddresses: !relocatable,
      hasFinalAddresses: !relocatable,
      symbolPrefix: "",
      sections: sections,
      symbols: symbols,
      fixups: fixups,
      codeFixups: codeFixups,
      warnings: warnings)
  }
}

/// Where a symbol table or relocation section lies and what it refers to: headers with the
/// same key describe the same entries.
private struct ELFTableKey: Hashable {
  var offset: UInt64
  var size: UInt64
  /// A symbol table's string table (its offset), or a relocation section's symbol table (its
  /// section index).
  var refersTo: UInt64
  /// The string table's size, or the address of the section relocated (objects; else 0).
  var detail: UInt64
}
