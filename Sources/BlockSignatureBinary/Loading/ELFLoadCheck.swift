// What the dynamic linker maps and reads of a shared library, checked before `dlopen` sees it:
// a truncated or damaged file would otherwise bring the loading process down inside ld.so
// (SIGBUS in its memset of a segment that goes past the end of the file, SIGSEGV applying a
// relocation that points nowhere).

import BlockSignature

/// Checks that an ELF shared library is fit to hand to `dlopen` on this machine.
///
/// The check reads what the dynamic linker reads, with the project's own bounds-checked ELF
/// reader: the file header (64-bit, this machine's byte order and architecture, a shared
/// object), the program headers, every `PT_LOAD` segment's file range, the dynamic section and
/// the tables it names, every relocation's target, and the section header table. It runs no
/// code of the library; what it cannot see (a constructor that crashes) is for the caller to
/// contain.
///
///     do {
///       try ELFLoadCheck.verify(fileAt: "libfoo.so")
///     } catch {
///       print(error)  // "segment 2 ends at 0x35000, past the end of the file (0x1000 bytes)"
///     }
public enum ELFLoadCheck {
  /// Checks the file at `path`.
  ///
  /// - Throws: ``BinaryScanError``: `unreadable` (cannot be opened or mapped, or not a
  ///   regular file), `unrecognizedFormat` (not ELF), `unsupportedVariant` (another class, byte
  ///   order, machine or file type), `malformed` (a header, segment or table out of range).
  public static func verify(fileAt path: String) throws(BinaryScanError) {
    let file = try MappedFile(path: path)
    try verify(file.bytes)
  }

  /// Checks the bytes of a whole file, as ``verify(fileAt:)`` does.
  ///
  /// - Throws: ``BinaryScanError`` as ``verify(fileAt:)``, but never `unreadable`.
  public static func verify(_ bytes: UnsafeRawBufferPointer) throws(BinaryScanError) {
    guard ELFLoader.isELF(bytes) else {
      throw BinaryScanError(
        .unrecognizedFormat, offset: 0,
        bytes.count < 4
          ? "the file is too short to be a shared library (\(bytes.count) bytes)"
          : "not a shared library: the file is not ELF (it does not start with 0x7f 'ELF')")
    }
    let header = try ELFFileHeader(parsing: bytes)
    try checkMachine(header)
    let segments = try ELFLoadSegments(parsing: header)
    try segments.checkDynamic(in: header)
    try checkSectionTable(header)
  }

  /// The machine this process runs on, as `e_machine` names it, and whether it is 64-bit
  /// little-endian (the only hosts the project builds for).
  static var hostMachine: (machine: UInt16, name: String) {
    #if arch(x86_64)
      (62, "x86-64")
    #elseif arch(arm64)
      (183, "AArch64")
    #else
      (0, "this machine")
    #endif
  }

  /// The file is a 64-bit little-endian shared object for this machine.
  private static func checkMachine(_ header: ELFFileHeader) throws(BinaryScanError) {
    let host = hostMachine
    guard header.is64, header.variant.order == .little else {
      throw BinaryScanError(
        .unsupportedVariant, offset: 4,
        "the file is a \(header.is64 ? 64 : 32)-bit \(header.variant.order == .little ? "little" : "big")-endian ELF file; this machine loads 64-bit little-endian ones"
      )
    }
    guard header.machine == host.machine else {
      throw BinaryScanError(
        .unsupportedVariant, offset: 18,
        "the file is for ELF machine \(header.machine) (\(ELFLoadCheck.machineName(header.machine))), not for this machine (\(host.name), \(host.machine))"
      )
    }
    guard header.type == 3 else {
      let kind =
        header.type == 1 ? "a relocatable object (.o)" : header.type == 2 ? "an executable" : "ELF type \(header.type)"
      throw BinaryScanError(.unsupportedVariant, offset: 16, "the file is \(kind), not a shared library")
    }
  }

  /// A few `e_machine` names, for the message.
  static func machineName(_ machine: UInt16) -> String {
    switch machine {
    case 3: "i386"
    case 40: "ARM"
    case 62: "x86-64"
    case 183: "AArch64"
    case 243: "RISC-V"
    default: "unknown"
    }
  }

  /// The section header table, and every section that occupies file bytes, lie in the file.
  private static func checkSectionTable(_ header: ELFFileHeader) throws(BinaryScanError) {
    guard header.sectionOffset != 0 || header.sectionCount != 0 else { return }
    var count = header.sectionCount
    if count == 0 {
      // e_shnum 0 with a table: the count is section 0's sh_size.
      guard header.sectionEntrySize >= 64, header.bytes.contains(offset: header.sectionOffset, length: 64) else {
        throw BinaryScanError(
          .malformed, offset: header.sectionOffset,
          "section header table at \(hex(header.sectionOffset)) goes past the end of the file (\(hex(header.fileSize)) bytes)"
        )
      }
      count = header.word(header.sectionOffset + 32)
    }
    guard header.sectionEntrySize == 64 else {
      throw BinaryScanError(
        .malformed, offset: header.fieldBase + 4,
        "section header entries are \(header.sectionEntrySize) bytes; ELF64 has 64")
    }
    let (tableSize, overflow) = count.multipliedReportingOverflow(by: 64)
    guard !overflow, header.bytes.contains(offset: header.sectionOffset, length: tableSize) else {
      throw BinaryScanError(
        .malformed, offset: header.sectionOffset,
        "section header table at \(hex(header.sectionOffset)) (\(count) entries of 0x40 bytes) goes past the end of the file (\(hex(header.fileSize)) bytes)"
      )
    }
    for index in 0..<count {
      let entry = header.sectionOffset + index * 64
      let type = header.bytes.u32(entry + 4)!
      let offset = header.word(entry + 24)
      let size = header.word(entry + 32)
      // SHT_NULL and SHT_NOBITS occupy no file bytes.
      guard type != 0, type != 8, size > 0 else { continue }
      guard header.bytes.contains(offset: offset, length: size) else {
        throw BinaryScanError(
          .malformed, offset: entry,
          "section \(index) (\(hex(offset)), \(hex(size)) bytes) goes past the end of the file (\(hex(header.fileSize)) bytes)"
        )
      }
    }
  }
}
