import BlockSignature

/// The ELF file header (`Elf32_Ehdr`/`Elf64_Ehdr`): class and byte order from `e_ident`
/// (never the host's), the file type and machine, and where the two header tables are.
struct ELFFileHeader {
  var variant: ELFVariant
  /// The whole file, read in the file's byte order.
  var bytes: ByteView
  var fileSize: Int
  /// `e_type`: relocatable, executable, shared.
  var type: UInt16
  var machine: UInt16
  var programOffset: UInt64
  var sectionOffset: UInt64
  /// Where `e_phentsize` is (54 in ELF64, 42 in ELF32); the 16-bit fields follow it.
  var fieldBase: UInt64
  var programEntrySize: UInt64
  var programCount: UInt64
  var sectionEntrySize: UInt64
  /// `e_shnum` and `e_shstrndx` as written (0 and 0xffff defer to section 0).
  var sectionCount: UInt64
  var stringIndex: UInt64

  var is64: Bool { variant.is64 }

  /// Reads the header of the ELF file in `raw`.
  init(parsing raw: UnsafeRawBufferPointer) throws(BinaryScanError) {
    guard raw.count >= 16, ELFLoader.isELF(raw) else {
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
    variant = ELFVariant(is64: is64, order: order)
    bytes = ByteView(base: raw, order: order)
    fileSize = raw.count
    let headerSize: UInt64 = is64 ? 64 : 52
    guard bytes.contains(offset: 0, length: headerSize) else {
      throw BinaryScanError(
        .malformed, offset: 0,
        "file is too small for an ELF header (size \(hex(raw.count)), need \(hex(headerSize)))")
    }
    type = bytes.u16(16)!
    machine = bytes.u16(18)!
    fieldBase = is64 ? 54 : 42
    programEntrySize = UInt64(bytes.u16(fieldBase)!)
    programCount = UInt64(bytes.u16(fieldBase + 2)!)
    sectionEntrySize = UInt64(bytes.u16(fieldBase + 4)!)
    sectionCount = UInt64(bytes.u16(fieldBase + 6)!)
    stringIndex = UInt64(bytes.u16(fieldBase + 8)!)
    programOffset = 0
    sectionOffset = 0
    programOffset = word(is64 ? 32 : 28)
    sectionOffset = word(is64 ? 40 : 32)
  }

  /// The file's word (4 or 8 bytes) at `offset`, 0 past the end.
  func word(_ offset: UInt64) -> UInt64 { bytes.word(offset, size: variant.wordSize) ?? 0 }
}
