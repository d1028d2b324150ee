import BlockSignature

/// The section relocations of a Mach-O object: pointer-sized `UNSIGNED` ones (and arm64e's
/// authenticated pointers) give pointer slots; in code, those of the instructions that load an
/// address give the places the code points at (for construction sites).
struct MachOSectionRelocations {
  var fixups: [PointerFixup] = []
  var codeFixups: [CodeFixup] = []

  init(
    parsing header: MachOHeader, ordinals: [MachOSectionOrdinal], symbols: [ImageSymbol], warnings: inout ScanWarnings
  ) {
    for ordinal in ordinals where ordinal.relocationCount > 0 {
      guard let section = ordinal.section else { continue }
      let (tableSize, overflow) = ordinal.relocationCount.multipliedReportingOverflow(by: 8)
      guard !overflow, header.bytes.contains(offset: ordinal.relocationOffset, length: tableSize) else {
        warnings.append(
          .tablePastEndOfFile(
            "relocations of section \(section.name)", at: ordinal.relocationOffset,
            entries: "\(ordinal.relocationCount) entries", plural: true, fileSize: header.fileSize))
        continue
      }
      read(ordinal, of: section, header: header, symbols: symbols, warnings: &warnings)
    }
    codeFixups.sort { $0.slot < $1.slot }
  }

  /// One relocation entry, decoded (`relocation_info`).
  private struct Entry {
    var address: UInt32
    var symbolNumber: Int
    var pcRelative: Bool
    var length: UInt32
    var isExtern: Bool
    var type: UInt32

    init(address: UInt32, info: UInt32) {
      self.address = address
      symbolNumber = Int(info & 0x00ff_ffff)
      pcRelative = (info >> 24) & 1 == 1
      length = (info >> 25) & 3
      isExtern = (info >> 27) & 1 == 1
      type = info >> 28
    }
  }

  /// Reads the relocations of `section`.
  private mutating func read(
    _ ordinal: MachOSectionOrdinal, of section: ImageSection, header: MachOHeader, symbols: [ImageSymbol],
    warnings: inout ScanWarnings
  ) {
    let bytes = header.bytes
    let subtractorType: UInt32 = header.isARM64 ? 1 : 5
    var previousWasSubtractor = false
    var pendingAddend: Int64 = 0  // ARM64_RELOC_ADDEND, for the relocation after it
    for index in 0..<ordinal.relocationCount {
      let at = ordinal.relocationOffset + index * 8
      let address = bytes.u32(at)!
      let info = bytes.u32(at + 4)!
      defer { previousWasSubtractor = address & 0x8000_0000 == 0 && info >> 28 == subtractorType }
      guard address & 0x8000_0000 == 0 else { continue }  // scattered: not on 64-bit targets
      let entry = Entry(address: address, info: info)
      let addend = pendingAddend
      pendingAddend = 0
      if section.isExecutable {
        if header.isARM64, entry.type == 10 {
          pendingAddend = (Int64(entry.symbolNumber) << 40) >> 40  // 24 bits, signed
        } else {
          appendCode(entry, in: section, addend: addend, header: header, symbols: symbols)
        }
        continue
      }
      guard !previousWasSubtractor else { continue }
      appendPointer(entry, at: at, in: section, header: header, symbols: symbols, warnings: &warnings)
    }
  }

  /// An instruction's operand in code: `adrp` and `add`/`ldr` pages and offsets on arm64, a
  /// 32-bit PC-relative field on x86_64 (whose addend is the field's value).
  private mutating func appendCode(
    _ entry: Entry, in section: ImageSection, addend: Int64, header: MachOHeader, symbols: [ImageSymbol]
  ) {
    guard entry.length == 2, entry.isExtern, entry.symbolNumber < symbols.count,
      UInt64(entry.address) + 4 <= section.size, let fileOffset = section.fileOffset
    else { return }
    let slot = section.address &+ UInt64(entry.address)
    let symbol = symbols[entry.symbolNumber]
    let target = symbol.isDefined ? symbol.address : BinaryImage.externalAddress(ofSymbol: entry.symbolNumber)
    switch (header.isARM64, entry.type, entry.pcRelative) {
    case (true, 3, true):  // ARM64_RELOC_PAGE21 (adrp)
      codeFixups.append(CodeFixup(slot: slot, kind: .page21, target: target &+ UInt64(bitPattern: addend)))
    case (true, 4, false):  // ARM64_RELOC_PAGEOFF12 (add, ldr)
      codeFixups.append(CodeFixup(slot: slot, kind: .low12, target: target &+ UInt64(bitPattern: addend)))
    case (false, 1, true):  // X86_64_RELOC_SIGNED: the addend is the field's value
      let inPlace = Int64(Int32(bitPattern: header.bytes.u32(fileOffset + UInt64(entry.address)) ?? 0))
      codeFixups.append(CodeFixup(slot: slot, kind: .pcRelative32, target: target &+ UInt64(bitPattern: inPlace)))
    default:
      break
    }
  }

  /// A pointer slot in data: `UNSIGNED`, or arm64e's `AUTHENTICATED_POINTER` (11), a signed
  /// pointer whose word holds the signing schema above bit 32 and the addend below.
  private mutating func appendPointer(
    _ entry: Entry, at: UInt64, in section: ImageSection, header: MachOHeader, symbols: [ImageSymbol],
    warnings: inout ScanWarnings
  ) {
    let authenticated = header.isARM64 && entry.type == 11
    guard entry.type == 0 || authenticated, entry.length == 3, !entry.pcRelative else { return }
    let slot = section.address &+ UInt64(entry.address)
    guard UInt64(entry.address) + 8 <= section.size, let fileOffset = section.fileOffset,
      let word = header.bytes.u64(fileOffset + UInt64(entry.address))
    else {
      warnings.append(
        .pastEndOfSection("relocation at \(hex(at))", "points", section: section.name, size: section.size, offset: at))
      return
    }
    let inPlace = authenticated ? UInt64(bitPattern: Int64(Int32(truncatingIfNeeded: word))) : word
    guard entry.isExtern else {
      fixups.append(PointerFixup(slot: slot, value: .address(inPlace)))
      return
    }
    guard entry.symbolNumber < symbols.count else {
      warnings.append(.relocationSymbolPastTable(at: at, symbol: entry.symbolNumber))
      return
    }
    let symbol = symbols[entry.symbolNumber]
    fixups.append(
      PointerFixup(
        slot: slot,
        value: symbol.isDefined
          ? .address(symbol.address &+ inPlace) : .symbol(entry.symbolNumber, Int64(bitPattern: inPlace))))
  }
}
