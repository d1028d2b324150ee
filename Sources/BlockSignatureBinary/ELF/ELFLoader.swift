// Loading an ELF file (32/64-bit, either byte order) into the scanner's `BinaryImage`.
//
// Class and byte order are parameters read from `e_ident`, never taken from the host. Every
// table offset and size from the file is checked with overflow-safe arithmetic before use.
// Each structure is read by its own type: ELFFileHeader, ELFProgramHeaders, ELFSectionTable
// (and its placement), ELFSymbolTables, ELFRelocations.

import BlockSignature

package enum ELFLoader {
  static let magic: [UInt8] = [0x7f, 0x45, 0x4c, 0x46]

  package static func isELF(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.count >= 4 && bytes[0] == 0x7f && bytes[1] == 0x45 && bytes[2] == 0x4c && bytes[3] == 0x46
  }

  /// Reads the headers, sections, symbols and (unless `readingRelocations` is false: symbol
  /// lookups need none) the relocations of the ELF file in `raw`.
  package static func load(_ raw: UnsafeRawBufferPointer, readingRelocations: Bool = true) throws(BinaryScanError)
    -> BinaryImage
  {
    let header = try ELFFileHeader(parsing: raw)
    var warnings = ScanWarnings()
    let programHeaders = ELFProgramHeaders(parsing: header, warnings: &warnings)
    let kind = try programHeaders.kind(ofType: header.type)
    let sections = try ELFSectionTable(parsing: header, warnings: &warnings)
    let relocatable = kind == .relocatable
    let (placed, bases) = sections.placedSections(in: header, relocatable: relocatable, warnings: &warnings)
    let symbols = ELFSymbolTables(
      parsing: sections, file: header, sectionBases: bases, relocatable: relocatable, warnings: &warnings)
    let kinds = ELFRelocationKinds(machine: header.machine, is64: header.is64)
    var relocations = ELFRelocations()
    if readingRelocations {
      relocations = ELFRelocations(
        parsing: .init(
          header: header, sections: sections, sectionBases: bases, placed: placed, symbols: symbols, kinds: kinds,
          relocatable: relocatable),
        warnings: &warnings)
    }
    return BinaryImage(
      bytes: header.bytes,
      format: header.is64 ? .elf64 : .elf32,
      architecture: kinds.architecture,
      kind: kind,
      hasSymbols: symbols.hasStaticSymbols,
      pointerSize: header.variant.wordSize,
      rawWordsAreAddresses: !relocatable,
      hasFinalAddresses: !relocatable,
      symbolPrefix: "",
      sections: placed,
      symbols: symbols.symbols,
      fixups: relocations.fixups,
      codeFixups: relocations.codeFixups,
      loadSegments: programHeaders.loadSegments,
      warnings: warnings)
  }
}
