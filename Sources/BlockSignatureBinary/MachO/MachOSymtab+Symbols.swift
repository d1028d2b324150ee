import BlockSignature

extension MachOSymtab {
  /// Every `nlist_64` entry, each index kept (relocations refer to symbols by index); a
  /// defined symbol in an executable section is a function.
  func symbols(in bytes: ByteView, ordinals: [MachOSectionOrdinal]) -> [ImageSymbol] {
    var symbols: [ImageSymbol] = []
    symbols.reserveCapacity(Int(count))
    let stringEnd = stringOffset + stringSize
    for index in 0..<count {
      let entry = offset + index * 16
      let nameOffset = UInt64(bytes.u32(entry)!)
      let type = bytes.u8(entry + 4)!
      let sectionOrdinal = Int(bytes.u8(entry + 5)!)
      let value = bytes.u64(entry + 8)!
      var nameRange = 0..<0
      if nameOffset > 0, nameOffset < stringSize,
        let range = bytes.cStringRange(at: stringOffset + nameOffset, end: stringEnd, limit: 65536)
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
    return symbols
  }
}
