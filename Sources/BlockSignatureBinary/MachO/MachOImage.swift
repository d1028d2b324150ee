// Loading a 64-bit Mach-O file (objects and linked images) into the scanner's `BinaryImage`.

import BlockSignature

enum MachOLoader {
  static let magic64: UInt32 = 0xfeed_facf
  static let segment64Command: UInt32 = 0x19
  static let symtabCommand: UInt32 = 0x2
  static let chainedFixupsCommand: UInt32 = 0x8000_0034
  static let dyldInfoCommands: Set<UInt32> = [0x22, 0x8000_0022]

  /// Whether `bytes` starts with a Mach-O magic (either byte order, 32 or 64 bits).
  static func isMachO(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard bytes.count >= 4 else { return false }
    let value = bytes.loadUnaligned(as: UInt32.self)
    let little = UInt32(littleEndian: value)
    let big = UInt32(bigEndian: value)
    return [0xfeed_facf, 0xfeed_face].contains(little) || [0xfeed_facf, 0xfeed_face].contains(big)
  }

  // swiftlint:disable:next function_body_length cyclomatic_complexity
  static func load(_ raw: UnsafeRawBufferPointer) throws(BinaryScanError) -> BinaryImage {
    guard raw.count >= 4 else { throw BinaryScanError(.unrecognizedFormat, offset: 0, "not a Mach-O file") }
    let first = raw.loadUnaligned(as: UInt32.self)
    let order: ByteOrder
    if UInt32(littleEndian: first) == magic64 {
      order = .little
    } else if UInt32(bigEndian: first) == magic64 {
      order = .big
    } else {
      throw BinaryScanError(.unsupportedVariant, offset: 0, "32-bit Mach-O files are not supported")
    }
    let bytes = ByteView(base: raw, order: order)
    guard bytes.contains(offset: 0, length: 32) else {
      throw BinaryScanError(
        .malformed, offset: 0, "file is too small for a Mach-O header (size \(hex(raw.count)), need 0x20)")
    }
    let cpuType = bytes.u32(4)!
    let fileType = bytes.u32(12)!
    let commandCount = UInt64(bytes.u32(16)!)
    let commandsSize = UInt64(bytes.u32(20)!)
    guard bytes.contains(offset: 32, length: commandsSize) else {
      throw BinaryScanError(
        .malformed, offset: 32,
        "load commands at 0x20 (size \(hex(commandsSize))) go past end of file (size \(hex(raw.count)))")
    }
    let architecture: String
    switch cpuType {
    case 0x0100_0007: architecture = "x86_64"
    case 0x0100_000c: architecture = "arm64"
    default: architecture = "cputype-\(cpuType)"
    }
    let kind: BinaryKind
    switch fileType {
    case 1: kind = .relocatable
    case 2: kind = .positionIndependentExecutable
    case 6, 8: kind = .sharedLibrary
    default: throw BinaryScanError(.unsupportedVariant, offset: 12, "unsupported Mach-O file type \(fileType)")
    }
    var warnings = ScanWarnings()
    var sections: [ImageSection] = []
    /// Mach-O section ordinal (1-based) → (image section, relocation offset, count).
    var ordinals: [(section: ImageSection?, relocationOffset: UInt64, relocationCount: UInt64)] = []
    var symtab: (offset: UInt64, count: UInt64, stringOffset: UInt64, stringSize: UInt64)?
    var segments: [MachOSegment] = []
    var chainedFixups: (offset: UInt64, size: UInt64)?
    var dyldInfo: [UInt64] = []

    func fixedString(_ offset: UInt64) -> String {
      var end = offset
      while end < offset + 16, let byte = bytes.u8(end), byte != 0 { end += 1 }
      return bytes.string(Int(offset)..<Int(end))
    }

    var at: UInt64 = 32
    let commandsEnd = 32 + commandsSize
    for _ in 0..<commandCount {
      guard at + 8 <= commandsEnd, let command = bytes.u32(at), let size = bytes.u32(at + 4).map(UInt64.init),
        size >= 8, at + size <= commandsEnd
      else {
        throw BinaryScanError(
          .malformed, offset: at,
          "load command at \(hex(at)) goes past end of the load commands (size \(hex(commandsSize)))")
      }
      switch command {
      case segment64Command:
        guard size >= 72 else {
          throw BinaryScanError(
            .malformed, offset: at, "segment command at \(hex(at)) is too small (size \(hex(size)))")
        }
        let sectionCount = UInt64(bytes.u32(at + 64)!)
        let initialProtection = bytes.u32(at + 60)!
        let segment = MachOSegment(
          name: fixedString(at + 8), address: bytes.u64(at + 24)!, size: bytes.u64(at + 32)!,
          fileOffset: bytes.u64(at + 40)!, fileSize: bytes.u64(at + 48)!)
        // Like LLVM: a segment whose contents the file does not hold means a truncated file.
        guard bytes.contains(offset: segment.fileOffset, length: segment.fileSize) else {
          throw BinaryScanError(
            .malformed, offset: segment.fileOffset,
            "segment \(segment.name.isEmpty ? "" : segment.name + " ")(load command at \(hex(at))) at \(hex(segment.fileOffset)) (size \(hex(segment.fileSize))) goes past end of file (size \(hex(raw.count)))"
          )
        }
        segments.append(segment)
        guard sectionCount <= (size - 72) / 80 else {
          throw BinaryScanError(
            .malformed, offset: at,
            "segment command at \(hex(at)) claims \(sectionCount) sections but has room for \((size - 72) / 80)")
        }
        for index in 0..<sectionCount {
          let header = at + 72 + index * 80
          let name = fixedString(header + 16) + "," + fixedString(header)
          let address = bytes.u64(header + 32)!
          let sectionSize = bytes.u64(header + 40)!
          let fileOffset = UInt64(bytes.u32(header + 48)!)
          let relocationOffset = UInt64(bytes.u32(header + 56)!)
          let relocationCount = UInt64(bytes.u32(header + 60)!)
          let flags = bytes.u32(header + 64)!
          let type = flags & 0xff
          let zeroFill = type == 0x1 || type == 0xc || type == 0x12
          let threadLocal = type == 0x11 || type == 0x12 || type == 0x13 || type == 0x14 || type == 0x15
          let debug = flags & 0x0200_0000 != 0
          var section: ImageSection?
          if !threadLocal && !debug && sectionSize > 0 {
            if !zeroFill && !bytes.contains(offset: fileOffset, length: sectionSize) {
              warnings.append(
                BinaryScanWarning(
                  offset: fileOffset,
                  message:
                    "section \(name) at \(hex(fileOffset)) (size \(hex(sectionSize))) goes past end of file (size \(hex(raw.count)))"
                ))
            } else if address.addingReportingOverflow(sectionSize).overflow {
              warnings.append(
                BinaryScanWarning(
                  offset: header,
                  message:
                    "section \(name) at address \(hex(address)) with size \(hex(sectionSize)) wraps around the address space"
                ))
            } else {
              section = ImageSection(
                name: name, address: address, size: sectionSize, fileOffset: zeroFill ? nil : fileOffset,
                isExecutable: flags & 0x8000_0400 != 0,
                isWritable: initialProtection & 2 != 0,
                isIndirectPointerTable: type == 0x6 || type == 0x7 || type == 0x8)
              sections.append(section!)
            }
          }
          ordinals.append((section, relocationOffset, relocationCount))
        }
      case symtabCommand:
        guard size >= 24 else {
          throw BinaryScanError(.malformed, offset: at, "symtab command at \(hex(at)) is too small")
        }
        let table = (
          offset: UInt64(bytes.u32(at + 8)!), count: UInt64(bytes.u32(at + 12)!),
          stringOffset: UInt64(bytes.u32(at + 16)!), stringSize: UInt64(bytes.u32(at + 20)!)
        )
        // Tables the file does not hold mean a truncated file, not a stripped one.
        guard bytes.contains(offset: table.offset, length: table.count * 16) else {
          throw BinaryScanError(
            .malformed, offset: table.offset,
            "symbol table (load command at \(hex(at))) at \(hex(table.offset)) (\(table.count) entries) goes past end of file (size \(hex(raw.count)))"
          )
        }
        guard bytes.contains(offset: table.stringOffset, length: table.stringSize) else {
          throw BinaryScanError(
            .malformed, offset: table.stringOffset,
            "string table (load command at \(hex(at))) at \(hex(table.stringOffset)) (size \(hex(table.stringSize))) goes past end of file (size \(hex(raw.count)))"
          )
        }
        symtab = table
      case chainedFixupsCommand:
        guard size >= 16 else {
          throw BinaryScanError(.malformed, offset: at, "chained fixups command at \(hex(at)) is too small")
        }
        chainedFixups = (UInt64(bytes.u32(at + 8)!), UInt64(bytes.u32(at + 12)!))
      case _ where dyldInfoCommands.contains(command):
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

    // Symbols, every index kept (relocations refer to them by index).
    var symbols: [ImageSymbol] = []
    if let table = symtab {
      symbols.reserveCapacity(Int(table.count))
      let stringEnd = table.stringOffset + table.stringSize
      for index in 0..<table.count {
        let entry = table.offset + index * 16
        let nameOffset = UInt64(bytes.u32(entry)!)
        let type = bytes.u8(entry + 4)!
        let sectionOrdinal = Int(bytes.u8(entry + 5)!)
        let value = bytes.u64(entry + 8)!
        var nameRange = 0..<0
        if nameOffset > 0, nameOffset < table.stringSize,
          let range = bytes.cStringRange(at: table.stringOffset + nameOffset, end: stringEnd, limit: 65536)
        {
          nameRange = range
        }
        let isStab = type & 0xe0 != 0
        let typeBits = type & 0x0e
        let defined = !isStab && (typeBits == 0x0e || typeBits == 0x02)
        var executable = false
        if typeBits == 0x0e, sectionOrdinal >= 1, sectionOrdinal <= ordinals.count,
          let section = ordinals[sectionOrdinal - 1].section
        {
          executable = section.isExecutable
        }
        symbols.append(
          ImageSymbol(
            nameRange: isStab ? 0..<0 : nameRange, address: value, size: 0, isDefined: defined,
            isFunction: defined && executable, isObject: defined && !executable))
      }
    }

    // Section relocations of objects: pointer-sized UNSIGNED ones; in code, those of the
    // instructions that load an address (for construction sites).
    var fixups: [PointerFixup] = []
    var codeFixups: [CodeFixup] = []
    let isARM64 = cpuType == 0x0100_000c
    let subtractorType: UInt32 = isARM64 ? 1 : 5
    for ordinal in ordinals where ordinal.relocationCount > 0 {
      guard let section = ordinal.section else { continue }
      let (tableSize, overflow) = ordinal.relocationCount.multipliedReportingOverflow(by: 8)
      guard !overflow, bytes.contains(offset: ordinal.relocationOffset, length: tableSize) else {
        warnings.append(
          BinaryScanWarning(
            offset: ordinal.relocationOffset,
            message:
              "relocations of section \(section.name) at \(hex(ordinal.relocationOffset)) (\(ordinal.relocationCount) entries) go past end of file (size \(hex(raw.count)))"
          ))
        continue
      }
      var previousWasSubtractor = false
      var pendingAddend: Int64 = 0  // ARM64_RELOC_ADDEND, for the relocation after it
      for index in 0..<ordinal.relocationCount {
        let entry = ordinal.relocationOffset + index * 8
        let address = bytes.u32(entry)!
        let info = bytes.u32(entry + 4)!
        defer { previousWasSubtractor = address & 0x8000_0000 == 0 && info >> 28 == subtractorType }
        guard address & 0x8000_0000 == 0 else { continue }  // scattered: not on 64-bit targets
        let symbolNumber = Int(info & 0x00ff_ffff)
        let pcRelative = (info >> 24) & 1 == 1
        let length = (info >> 25) & 3
        let isExtern = (info >> 27) & 1 == 1
        let type = info >> 28
        let addend = pendingAddend
        pendingAddend = 0
        if section.isExecutable {
          if isARM64, type == 10 {
            pendingAddend = (Int64(symbolNumber) << 40) >> 40  // 24 bits, signed
          } else if length == 2, isExtern, symbolNumber < symbols.count, UInt64(address) + 4 <= section.size,
            let fileOffset = section.fileOffset
          {
            let slot = section.address &+ UInt64(address)
            let symbol = symbols[symbolNumber]
            let target = symbol.isDefined ? symbol.address : BinaryImage.externalAddress(ofSymbol: symbolNumber)
            switch (isARM64, type, pcRelative) {
            case (true, 3, true):  // ARM64_RELOC_PAGE21 (adrp)
              codeFixups.append(CodeFixup(slot: slot, kind: .page21, target: target &+ UInt64(bitPattern: addend)))
            case (true, 4, false):  // ARM64_RELOC_PAGEOFF12 (add, ldr)
              codeFixups.append(CodeFixup(slot: slot, kind: .low12, target: target &+ UInt64(bitPattern: addend)))
            case (false, 1, true):  // X86_64_RELOC_SIGNED: the addend is the field's value
              let inPlace = Int64(Int32(bitPattern: bytes.u32(fileOffset + UInt64(address)) ?? 0))
              codeFixups.append(
                CodeFixup(slot: slot, kind: .pcRelative32, target: target &+ UInt64(bitPattern: inPlace)))
            default:
              break
            }
          }
          continue
        }
        // UNSIGNED, or arm64e's AUTHENTICATED_POINTER (11): a signed pointer whose word holds
        // the signing schema above bit 32 and the addend below.
        let authenticated = isARM64 && type == 11
        guard type == 0 || authenticated, length == 3, !pcRelative, !previousWasSubtractor else { continue }
        let slot = section.address &+ UInt64(address)
        guard UInt64(address) + 8 <= section.size, let fileOffset = section.fileOffset,
          let word = bytes.u64(fileOffset + UInt64(address))
        else {
          warnings.append(
            BinaryScanWarning(
              offset: entry,
              message:
                "relocation at \(hex(entry)) points past end of section \(section.name) (size \(hex(section.size)))"))
          continue
        }
        let inPlace = authenticated ? UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: word))) : word
        if isExtern {
          guard symbolNumber < symbols.count else {
            warnings.append(
              BinaryScanWarning(
                offset: entry,
                message: "relocation at \(hex(entry)) refers to symbol \(symbolNumber) past end of symbol table"))
            continue
          }
          let symbol = symbols[symbolNumber]
          fixups.append(
            PointerFixup(
              slot: slot,
              value: symbol.isDefined
                ? .address(symbol.address &+ inPlace) : .symbol(symbolNumber, Int64(bitPattern: inPlace))))
        } else {
          fixups.append(PointerFixup(slot: slot, value: .address(inPlace)))
        }
      }
    }
    let hasSymbols = !symbols.isEmpty
    var rawWordsAreAddresses = kind != .relocatable
    if kind != .relocatable && (chainedFixups != nil || !dyldInfo.isEmpty) {
      var decoder = MachOFixupDecoder(bytes: bytes, segments: segments, symbols: symbols)
      if let chained = chainedFixups {
        decoder.decodeChainedFixups(dataOffset: chained.offset, dataSize: chained.size)
        // Words in chained segments are encoded chain entries, not addresses.
        rawWordsAreAddresses = false
      }
      if dyldInfo.count == 10 {
        decoder.decodeRebases(offset: dyldInfo[0], size: dyldInfo[1])
        decoder.decodeBinds(offset: dyldInfo[2], size: dyldInfo[3], lazy: false)
        decoder.decodeBinds(offset: dyldInfo[4], size: dyldInfo[5], lazy: false)
        decoder.decodeBinds(offset: dyldInfo[6], size: dyldInfo[7], lazy: true)
      }
      symbols = decoder.symbols
      fixups.append(contentsOf: decoder.fixups)
      warnings.append(contentsOf: decoder.warnings)
    }
    // One fixup per slot: a bind wins over a rebase of the same slot. Classic images rebase and
    // lazily bind the same `__la_symbol_ptr` slots, and weak binds override binds, so duplicates
    // are normal there; in chained fixups a slot visited twice means damaged starts (warned).
    fixups.sort { $0.slot < $1.slot }
    var unique: [PointerFixup] = []
    unique.reserveCapacity(fixups.count)
    var duplicateCount = 0
    for fixup in fixups {
      if let last = unique.last, last.slot == fixup.slot {
        duplicateCount += 1
        if case .symbol = fixup.value { unique[unique.count - 1] = fixup }
        continue
      }
      unique.append(fixup)
    }
    if duplicateCount > 0, chainedFixups != nil, kind != .relocatable {
      warnings.append(
        BinaryScanWarning(
          offset: nil,
          message:
            "\(duplicateCount) pointer slots are fixed up more than once (chains overlap); a bind is kept over a rebase, else the first fixup"
        ))
    }
    fixups = unique
    return BinaryImage(
      bytes: bytes, format: .machO64, architecture: architecture, kind: kind,
      hasSymbols: hasSymbols, pointerSize: 8,
      rawWordsAreAddresses: rawWordsAreAddresses, hasFinalAddresses: kind != .relocatable,
      symbolPrefix: "_", sections: sections, symbols: symbols, fixups: fixups,
      codeFixups: codeFixups.sorted { $0.slot < $1.slot }, warnings: warnings)
  }
}
