import BlockSignature

/// What the relocations say: pointer slots and their values (section relocations of objects,
/// dynamic relocations of linked files), and, in objects, the places instructions point at.
struct ELFRelocations {
  var fixups: [PointerFixup] = []
  var codeFixups: [CodeFixup] = []

  /// No relocations (a load that does not read them).
  init() {}

  /// What reading the relocations needs from the rest of the file.
  struct Context {
    var header: ELFFileHeader
    var sections: ELFSectionTable
    var sectionBases: [UInt64?]
    var placed: [ImageSection]
    var symbols: ELFSymbolTables
    var kinds: ELFRelocationKinds
    var relocatable: Bool
  }

  /// Reads every relocation section. As for symbol tables, sections that repeat the same bytes
  /// are read once per target, and any other is skipped once those read add up to the file's size.
  init(parsing context: Context, warnings: inout ScanWarnings) {
    let headers = context.sections.headers
    var bytesLeft = UInt64(context.header.fileSize)
    var read: Set<ELFTableKey> = []
    var skipped: (count: Int, first: (name: String, offset: UInt64)) = (0, ("", 0))
    for (index, section) in headers.enumerated()
    where section.type == ELFSectionHeader.typeRela || section.type == ELFSectionHeader.typeRel {
      var targetBase: UInt64 = 0
      if context.relocatable {
        guard Int(section.info) < headers.count, let base = context.sectionBases[Int(section.info)] else { continue }
        targetBase = base
      } else if section.flags & ELFSectionHeader.flagAlloc == 0 {
        continue  // --emit-relocs leftovers: link-time, not load-time.
      }
      guard context.header.bytes.contains(offset: section.offset, length: section.size) else {
        warnings.append(
          .pastEndOfFile(
            "relocation section \(context.sections.names[index])", at: section.offset, size: section.size,
            fileSize: context.header.fileSize))
        continue
      }
      let key = ELFTableKey(
        offset: section.offset, size: section.size, refersTo: UInt64(section.link), detail: targetBase)
      guard read.insert(key).inserted else { continue }
      guard section.size <= bytesLeft else {
        if skipped.count == 0 { skipped.first = (context.sections.names[index], section.offset) }
        skipped.count += 1
        continue
      }
      bytesLeft -= section.size
      readSection(index, targetBase: targetBase, context: context, warnings: &warnings)
    }
    fixups.sort { $0.slot < $1.slot }
    codeFixups.sort { $0.slot < $1.slot }
    if skipped.count > 0 {
      warnings.append(
        .notRead(
          skipped.count, "relocation sections", first: skipped.first.name, at: skipped.first.offset,
          fileSize: context.header.fileSize))
    }
  }

  /// Reads relocation section `index`, whose slots are offsets from `targetBase`.
  private mutating func readSection(
    _ index: Int, targetBase: UInt64, context: Context, warnings: inout ScanWarnings
  ) {
    let header = context.header
    let section = context.sections.headers[index]
    let is64 = header.is64
    let w = UInt64(header.variant.wordSize)
    let hasAddend = section.type == ELFSectionHeader.typeRela
    let entrySize: UInt64 = (is64 ? 16 : 8) + (hasAddend ? w : 0)
    let symbolBase = context.symbols.tableBase[Int(section.link)]
    var reportedMissingTable = false
    let count = section.size / entrySize
    fixups.reserveCapacity(fixups.count + Int(count))
    for entry in 0..<count {
      let at = section.offset + entry * entrySize
      let offset = header.word(at)
      let info = header.word(at + w)
      let symbolIndex = Int(is64 ? info >> 32 : info >> 8)
      let relocationType = UInt32(is64 ? info & 0xffff_ffff : info & 0xff)
      let kinds = context.kinds
      let isRelative = relocationType != 0 && kinds.relative.contains(relocationType)
      let isSymbolic = kinds.absolute.contains(relocationType) || kinds.globalData.contains(relocationType)
      let codeKind = context.relocatable ? kinds.code[relocationType] : nil
      guard isRelative || isSymbolic || codeKind != nil else { continue }
      let (slot, slotOverflow) = targetBase.addingReportingOverflow(offset)
      if slotOverflow { continue }
      let addend = hasAddend ? Self.signed(header.word(at + 2 * w), is64: is64) : inPlaceAddend(at: slot, context)
      if let codeKind {
        if hasAddend, symbolIndex > 0, let base = symbolBase {
          appendCode(slot: slot, kind: codeKind, symbol: base + symbolIndex, addend: addend, context: context)
        }
        continue
      }
      if isRelative && !isSymbolic {
        fixups.append(PointerFixup(slot: slot, value: .address(UInt64(bitPattern: addend) & (is64 ? ~0 : 0xffff_ffff))))
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
            .relocationsWithoutSymbols(section: context.sections.names[index], link: section.link, offset: at))
        }
        continue
      }
      let merged = base + symbolIndex
      guard merged < context.symbols.symbols.count else {
        warnings.append(.relocationSymbolPastTable(at: at, in: context.sections.names[index], symbol: symbolIndex))
        continue
      }
      let symbol = context.symbols.symbols[merged]
      if symbol.isDefined {
        fixups.append(PointerFixup(slot: slot, value: .address(symbol.address &+ UInt64(bitPattern: addend))))
      } else {
        fixups.append(PointerFixup(slot: slot, value: .symbol(merged, addend)))
      }
    }
  }

  /// A word read as a signed addend of the file's width.
  private static func signed(_ word: UInt64, is64: Bool) -> Int64 {
    is64 ? Int64(bitPattern: word) : Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: word)))
  }

  /// A REL relocation's addend: the word in place at `slot`.
  private func inPlaceAddend(at slot: UInt64, _ context: Context) -> Int64 {
    guard let section = context.placed.first(where: { $0.contains(slot) }), let fileOffset = section.fileOffset else {
      return 0
    }
    let word = context.header.bytes.word(fileOffset + (slot - section.address), size: context.header.variant.wordSize)
    return Self.signed(word ?? 0, is64: context.header.is64)
  }

  /// An instruction's operand: the place it names (a descriptor or a function of this object;
  /// a symbol defined elsewhere stands at its external address) plus the addend. For a
  /// PC-relative field the target is measured from the field, 4 bytes before its end.
  private mutating func appendCode(
    slot: UInt64, kind: CodeFixup.Kind, symbol merged: Int, addend: Int64, context: Context
  ) {
    guard merged < context.symbols.symbols.count else { return }
    let symbol = context.symbols.symbols[merged]
    let place = symbol.isDefined ? symbol.address : BinaryImage.externalAddress(ofSymbol: merged)
    let target = place &+ UInt64(bitPattern: addend)
    codeFixups.append(CodeFixup(slot: slot, kind: kind, target: kind == .pcRelative32 ? target &+ 4 : target))
  }
}
