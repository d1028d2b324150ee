// Loading a 64-bit Mach-O file (objects and linked images) into the scanner's `BinaryImage`.
// Each structure is read by its own type: MachOHeader, MachOLoadCommands (segments, sections,
// the symbol table's place), MachOSymtab's symbols, MachOSectionRelocations (objects), and
// MachOFixupDecoder (linked images' chained fixups or dyld info opcodes).

import BlockSignature

enum MachOLoader {
  static let magic64: UInt32 = 0xfeed_facf

  /// Whether `bytes` starts with a Mach-O magic (either byte order, 32 or 64 bits).
  static func isMachO(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard bytes.count >= 4 else { return false }
    let value = bytes.loadUnaligned(as: UInt32.self)
    let little = UInt32(littleEndian: value)
    let big = UInt32(bigEndian: value)
    return [0xfeed_facf, 0xfeed_face].contains(little) || [0xfeed_facf, 0xfeed_face].contains(big)
  }

  static func load(_ raw: UnsafeRawBufferPointer) throws(BinaryScanError) -> BinaryImage {
    let header = try MachOHeader(parsing: raw)
    var warnings = ScanWarnings()
    let commands = try MachOLoadCommands(parsing: header, warnings: &warnings)
    var symbols = commands.symtab?.symbols(in: header.bytes, ordinals: commands.ordinals) ?? []
    let relocations = MachOSectionRelocations(
      parsing: header, ordinals: commands.ordinals, symbols: symbols, warnings: &warnings)
    var fixups = relocations.fixups
    let hasSymbols = !symbols.isEmpty
    let linked = header.kind != .relocatable
    var rawWordsAreAddresses = linked
    if linked && (commands.chainedFixups != nil || !commands.dyldInfo.isEmpty) {
      var decoder = MachOFixupDecoder(bytes: header.bytes, segments: commands.segments, symbols: symbols)
      if let chained = commands.chainedFixups {
        decoder.decodeChainedFixups(dataOffset: chained.offset, dataSize: chained.size)
        // Words in chained segments are encoded chain entries, not addresses.
        rawWordsAreAddresses = false
      }
      let dyldInfo = commands.dyldInfo
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
    let (unique, duplicateCount) = uniqueFixups(fixups)
    if duplicateCount > 0, commands.chainedFixups != nil, linked {
      warnings.append(.overlappingFixups(duplicateCount))
    }
    return BinaryImage(
      bytes: header.bytes, format: .machO64, architecture: header.architecture, kind: header.kind,
      hasSymbols: hasSymbols, pointerSize: 8,
      rawWordsAreAddresses: rawWordsAreAddresses, hasFinalAddresses: linked,
      symbolPrefix: "_", sections: commands.sections, symbols: symbols, fixups: unique,
      codeFixups: relocations.codeFixups, warnings: warnings)
  }

  /// One fixup per slot, sorted: a bind wins over a rebase of the same slot. Classic images
  /// rebase and lazily bind the same `__la_symbol_ptr` slots, and weak binds override binds, so
  /// duplicates are normal there; in chained fixups a slot visited twice means damaged starts.
  static func uniqueFixups(_ fixups: [PointerFixup]) -> (fixups: [PointerFixup], duplicates: Int) {
    var unique: [PointerFixup] = []
    unique.reserveCapacity(fixups.count)
    var duplicates = 0
    for fixup in fixups.sorted(by: { $0.slot < $1.slot }) {
      if let last = unique.last, last.slot == fixup.slot {
        duplicates += 1
        if case .symbol = fixup.value { unique[unique.count - 1] = fixup }
        continue
      }
      unique.append(fixup)
    }
    return (unique, duplicates)
  }
}
