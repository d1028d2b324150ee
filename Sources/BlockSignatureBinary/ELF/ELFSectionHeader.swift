/// One ELF section header (`Elf32_Shdr`/`Elf64_Shdr`), already widened to 64 bits.
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

  /// The bytes one header needs at least.
  static func minimumSize(is64: Bool) -> UInt64 { is64 ? 64 : 40 }

  /// Reads the header at `offset`; nil when it does not fit in the file.
  init?(parsing bytes: ByteView, at offset: UInt64, is64: Bool) {
    guard bytes.contains(offset: offset, length: Self.minimumSize(is64: is64)) else { return nil }
    let at = offset
    if is64 {
      self.init(
        nameOffset: bytes.u32(at)!, type: bytes.u32(at + 4)!, flags: bytes.u64(at + 8)!,
        address: bytes.u64(at + 16)!, offset: bytes.u64(at + 24)!, size: bytes.u64(at + 32)!,
        link: bytes.u32(at + 40)!, info: bytes.u32(at + 44)!, alignment: bytes.u64(at + 48)!,
        entrySize: bytes.u64(at + 56)!)
    } else {
      self.init(
        nameOffset: bytes.u32(at)!, type: bytes.u32(at + 4)!, flags: UInt64(bytes.u32(at + 8)!),
        address: UInt64(bytes.u32(at + 12)!), offset: UInt64(bytes.u32(at + 16)!),
        size: UInt64(bytes.u32(at + 20)!), link: bytes.u32(at + 24)!, info: bytes.u32(at + 28)!,
        alignment: UInt64(bytes.u32(at + 32)!), entrySize: UInt64(bytes.u32(at + 36)!))
    }
  }

  init(
    nameOffset: UInt32, type: UInt32, flags: UInt64, address: UInt64, offset: UInt64, size: UInt64, link: UInt32,
    info: UInt32, alignment: UInt64, entrySize: UInt64
  ) {
    self.nameOffset = nameOffset
    self.type = type
    self.flags = flags
    self.address = address
    self.offset = offset
    self.size = size
    self.link = link
    self.info = info
    self.alignment = alignment
    self.entrySize = entrySize
  }

  var hasContents: Bool { type != Self.typeNobits }
}
