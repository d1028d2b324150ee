// The format-neutral view of a binary that the block scanner works on: sections in one address
// space, symbols, and pointer fixups (relocations, binds) keyed by the address of the slot.

import BlockSignature

/// A section of a binary placed in the image's address space.
///
/// Relocatable objects have no addresses yet: their loaders give each section a synthetic,
/// non-overlapping address so that relocations and symbols can be resolved the same way.
struct ImageSection {
  var name: String
  var address: UInt64
  var size: UInt64
  /// File offset of the contents (relative to the image bytes), or nil for zero-fill sections.
  var fileOffset: UInt64?
  var isExecutable: Bool
  var isWritable: Bool
  /// GOT-like sections whose slots point at symbols but are not block literals.
  var isIndirectPointerTable: Bool
  /// Whether the section holds program data (ELF `PROGBITS`, init arrays; every Mach-O section),
  /// as opposed to loader tables (`.dynsym`, `.rela.dyn`, `.hash`) whose words are not pointers.
  var holdsProgramData: Bool = true

  @inline(__always) func contains(_ address: UInt64) -> Bool {
    address >= self.address && address - self.address < size
  }

  /// Whether the section holds the program's variables: ELF `.data`, `.data.*` other than
  /// `.data.rel.ro*`, `.sdata*`; Mach-O `__data`. Block descriptors are constants, which clang
  /// and Swift put elsewhere (`.rodata*`, `.data.rel.ro*`, `__DATA,__const`), so words here
  /// shaped like a descriptor are an ordinary table.
  var holdsVariables: Bool {
    guard isWritable, name != ".data.rel.ro", !name.hasPrefix(".data.rel.ro.") else { return false }
    return name == ".data" || name.hasPrefix(".data.") || name == ".sdata" || name.hasPrefix(".sdata.")
      || name.hasSuffix(",__data")
  }
}

/// A symbol of the image. Names stay in the mapped string table until needed.
package struct ImageSymbol {
  var nameRange: Range<Int>
  package var address: UInt64
  var size: UInt64
  package var isDefined: Bool
  package var isFunction: Bool
  package var isObject: Bool
}

/// Where a pointer slot points, as far as the file says.
enum PointerValue: Equatable {
  /// Zero, with no fixup.
  case null
  /// An address in the image's address space.
  case address(UInt64)
  /// An undefined (imported) symbol plus addend.
  case symbol(Int, Int64)
  /// A non-zero word that is not an address (in relocatable objects, a word without a relocation).
  case data(UInt64)
}

/// A fixup for one pointer slot, from a relocation, a dynamic relocation or a bind.
struct PointerFixup {
  var slot: UInt64
  var value: PointerValue
}

/// A relocation of an instruction in a relocatable object, where the instruction itself holds
/// no address yet: the place its operand will point at (a defined symbol plus the addend).
struct CodeFixup {
  enum Kind {
    /// A 32-bit PC-relative field (x86_64 `lea reg, [rip + disp32]`): the instruction points
    /// at the target plus 4 (the field's end), clang's addend being -4.
    case pcRelative32
    /// AArch64 `adrp`: the target's 4 KiB page.
    case page21
    /// AArch64 `add` of the target's low 12 bits.
    case low12
    /// AArch64 `adr`: the target.
    case adr21
  }

  /// The address of the relocated field (the instruction, on AArch64).
  var slot: UInt64
  var kind: Kind
  var target: UInt64
}

/// The format-neutral image the scanner reads.
package struct BinaryImage {
  var bytes: ByteView
  var format: BinaryFormat
  var architecture: String
  package var kind: BinaryKind
  var hasSymbols: Bool
  var pointerSize: Int
  /// Whether raw words in sections are addresses (linked images) or mere addends (objects).
  var rawWordsAreAddresses: Bool
  /// Whether addresses are final (false for relocatable objects: `vaddr` is reported as null).
  var hasFinalAddresses: Bool
  /// The prefix the format adds to C names (`_` on Mach-O).
  var symbolPrefix: String
  /// Sections in the address space (allocated ones only), sorted by address.
  var sections: [ImageSection]
  package var symbols: [ImageSymbol]
  /// Sorted by slot, one per slot.
  var fixups: [PointerFixup]
  /// Relocations of instructions in relocatable objects, sorted by slot.
  var codeFixups: [CodeFixup] = []
  /// The segments a loader maps (ELF `PT_LOAD`, in file order); empty for Mach-O files, which
  /// are never read as another process's images.
  package var loadSegments: [LoadSegment] = []
  var warnings: ScanWarnings

  /// The data model of the image's C code, from its format and architecture: it names the
  /// types of the signatures (`q` is `long` on x86_64, `long long` on i386; `C` is `char`
  /// where `char` is unsigned). Unknown architectures take the nearest model by pointer size.
  var dataModel: DataModel {
    switch (format, architecture) {
    case (.machO64, "arm64"): .arm64Apple
    case (_, "aarch64"): .aarch64Linux
    case (_, "i386"): .i386Linux
    case (_, "x86_64"): .x86_64SysV
    default: pointerSize == 4 ? .i386Linux : .x86_64SysV
    }
  }

  // MARK: Lookup

  /// The section containing `address`, by binary search.
  func sectionIndex(containing address: UInt64) -> Int? {
    let index = sections.partitionPoint { $0.address <= address } - 1
    guard index >= 0, sections[index].contains(address) else { return nil }
    return index
  }

  /// The fixup for the slot at `address`, by binary search.
  @inline(__always)
  func fixup(at address: UInt64) -> PointerValue? {
    let index = fixups.partitionPoint { $0.slot < address }
    return index < fixups.count && fixups[index].slot == address ? fixups[index].value : nil
  }

  /// Where code relocations of a relocatable object put a symbol it does not define (an
  /// invoke or thunk another object of the archive defines): one 16-byte place per symbol index,
  /// above any address a section of a relocatable object has.
  static let externalBase: UInt64 = 0xFFFF_F000_0000_0000

  static func externalAddress(ofSymbol index: Int) -> UInt64 { externalBase &+ UInt64(index) &* 16 }

  /// The undefined symbol whose external address is `address`, if it is one.
  func externalSymbol(at address: UInt64) -> Int? {
    guard !hasFinalAddresses, address >= Self.externalBase, (address - Self.externalBase) % 16 == 0 else {
      return nil
    }
    let index = (address - Self.externalBase) / 16
    guard index < UInt64(symbols.count), !symbols[Int(index)].isDefined else { return nil }
    return Int(index)
  }

  /// The relocation of the instruction field at `slot`, by binary search.
  func codeFixup(at slot: UInt64) -> CodeFixup? {
    let index = codeFixups.partitionPoint { $0.slot < slot }
    return index < codeFixups.count && codeFixups[index].slot == slot ? codeFixups[index] : nil
  }

  /// The file offset of `address` if it lies in a section with contents and `length` bytes fit.
  @inline(__always)
  func fileOffset(of address: UInt64, length: UInt64, in section: ImageSection) -> UInt64? {
    guard let base = section.fileOffset, section.contains(address) else { return nil }
    let delta = address - section.address
    let (end, overflow) = delta.addingReportingOverflow(length)
    guard !overflow, end <= section.size else { return nil }
    return base + delta
  }

  /// The raw pointer-sized word at `address`: 0 in zero-fill sections, nil outside the image.
  func rawWord(at address: UInt64) -> UInt64? {
    guard let index = sectionIndex(containing: address) else { return nil }
    let section = sections[index]
    guard let offset = fileOffset(of: address, length: UInt64(pointerSize), in: section) else {
      if section.fileOffset == nil, section.contains(address) { return 0 }
      return nil
    }
    return bytes.word(offset, size: pointerSize)
  }

  /// The 32-bit word at `address`, or nil when it is not inside a section with contents.
  func u32(at address: UInt64) -> UInt32? {
    guard let index = sectionIndex(containing: address) else { return nil }
    let section = sections[index]
    guard let offset = fileOffset(of: address, length: 4, in: section) else {
      return section.fileOffset == nil ? 0 : nil
    }
    return bytes.u32(offset)
  }

  /// What the pointer slot at `address` points at: its fixup, else its raw word.
  func pointer(at address: UInt64) -> PointerValue? {
    if let fixed = fixup(at: address) { return fixed }
    guard let raw = rawWord(at: address) else { return nil }
    if raw == 0 { return .null }
    return rawWordsAreAddresses ? .address(raw) : .data(raw)
  }

  /// The symbol name bytes as a String, with the format's C prefix removed.
  func cName(of symbol: ImageSymbol) -> String {
    var name = bytes.string(symbol.nameRange)
    if !symbolPrefix.isEmpty, name.hasPrefix(symbolPrefix) { name.removeFirst(symbolPrefix.count) }
    return name
  }

  /// The raw symbol name.
  package func name(of symbol: ImageSymbol) -> String { bytes.string(symbol.nameRange) }

  /// A location for reports.
  func location(of address: UInt64, symbol: String?) -> BinaryLocation? {
    guard let index = sectionIndex(containing: address) else { return nil }
    let section = sections[index]
    let delta = address - section.address
    return BinaryLocation(
      address: hasFinalAddresses ? address : nil,
      section: section.name,
      sectionOffset: delta,
      fileOffset: section.fileOffset.map { $0 + delta },
      symbol: symbol
    )
  }

  /// Whether `value` points at code: an executable section or a defined function symbol.
  func isCode(_ value: PointerValue, functionAddresses: Set<UInt64>) -> Bool {
    switch value {
    case .address(let address):
      if functionAddresses.contains(address) { return true }
      guard let index = sectionIndex(containing: address) else { return false }
      return sections[index].isExecutable
    case .symbol(let index, _):
      return symbols.indices.contains(index) && !symbols[index].isObject
    case .null, .data:
      return false
    }
  }
}
