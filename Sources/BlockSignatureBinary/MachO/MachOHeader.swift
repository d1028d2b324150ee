import BlockSignature

/// The 64-bit Mach-O header (`mach_header_64`): byte order from the magic, CPU, file type and
/// the extent of the load commands.
struct MachOHeader {
  /// The whole file, read in the file's byte order.
  var bytes: ByteView
  var fileSize: Int
  var cpuType: UInt32
  var commandCount: UInt64
  var commandsSize: UInt64
  var architecture: String
  var kind: BinaryKind

  var isARM64: Bool { cpuType == 0x0100_000c }

  /// Reads the header of the Mach-O file in `raw`; 32-bit files are refused.
  init(parsing raw: UnsafeRawBufferPointer) throws(BinaryScanError) {
    guard raw.count >= 4 else { throw BinaryScanError(.unrecognizedFormat, offset: 0, "not a Mach-O file") }
    let first = raw.loadUnaligned(as: UInt32.self)
    let order: ByteOrder
    if UInt32(littleEndian: first) == MachOLoader.magic64 {
      order = .little
    } else if UInt32(bigEndian: first) == MachOLoader.magic64 {
      order = .big
    } else {
      throw BinaryScanError(.unsupportedVariant, offset: 0, "32-bit Mach-O files are not supported")
    }
    bytes = ByteView(base: raw, order: order)
    fileSize = raw.count
    guard bytes.contains(offset: 0, length: 32) else {
      throw BinaryScanError(
        .malformed, offset: 0, "file is too small for a Mach-O header (size \(hex(raw.count)), need 0x20)")
    }
    cpuType = bytes.u32(4)!
    let fileType = bytes.u32(12)!
    commandCount = UInt64(bytes.u32(16)!)
    commandsSize = UInt64(bytes.u32(20)!)
    guard bytes.contains(offset: 32, length: commandsSize) else {
      throw BinaryScanError(
        .malformed, offset: 32,
        "load commands at 0x20 (size \(hex(commandsSize))) go past end of file (size \(hex(raw.count)))")
    }
    switch cpuType {
    case 0x0100_0007: architecture = "x86_64"
    case 0x0100_000c: architecture = "arm64"
    default: architecture = "cputype-\(cpuType)"
    }
    switch fileType {
    case 1: kind = .relocatable
    case 2: kind = .positionIndependentExecutable
    case 6, 8: kind = .sharedLibrary
    default: throw BinaryScanError(.unsupportedVariant, offset: 12, "unsupported Mach-O file type \(fileType)")
    }
  }

  /// A fixed 16-byte name field (segment and section names), up to its first NUL.
  func fixedString(_ offset: UInt64) -> String {
    var end = offset
    while end < offset + 16, let byte = bytes.u8(end), byte != 0 { end += 1 }
    return bytes.string(Int(offset)..<Int(end))
  }
}
