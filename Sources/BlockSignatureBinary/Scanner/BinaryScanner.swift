// The scanner's public entry points; DescriptorScan does the work on one image.

import BlockSignature

/// Scans ELF and Mach-O binaries (and `ar` archives of them) for clang blocks.
///
///     let reports = try BinaryScanner.scan(fileAt: "libdispatch.so")
///     for block in reports[0].blocks { print(block.signature ?? "?") }
///
/// - Complexity: one pass over the allocated sections, O(n) in their size plus
///   O(r log r) in the number of relocations.
public enum BinaryScanner {
  /// Scans the file at `path` (mapped, never read into memory).
  ///
  /// - Returns: one report per binary: one for an ELF or Mach-O file, one per object member of an
  ///   archive.
  /// - Throws: `BinaryScanError` when the file cannot be read or is not a binary it can scan.
  public static func scan(
    fileAt path: String, options: BinaryScanOptions = BinaryScanOptions()
  ) throws(BinaryScanError) -> [BinaryScanReport] {
    let file = try MappedFile(path: path)
    return try withExtendedLifetime(file) { () throws(BinaryScanError) -> [BinaryScanReport] in
      try scan(bytes: file.bytes, name: path, options: options)
    }
  }

  /// Scans a binary already in memory. `name` is used in reports and messages.
  public static func scan(
    bytes: UnsafeRawBufferPointer, name: String, options: BinaryScanOptions = BinaryScanOptions()
  ) throws(BinaryScanError) -> [BinaryScanReport] {
    if ArchiveReader.isArchive(bytes) {
      var reports: [BinaryScanReport] = []
      for member in try ArchiveReader.members(of: bytes) {
        let memberBytes = UnsafeRawBufferPointer(rebasing: bytes[member.range])
        guard ELFLoader.isELF(memberBytes) || MachOLoader.isMachO(memberBytes) else { continue }
        do {
          reports.append(contentsOf: try scan(bytes: memberBytes, name: "\(name)(\(member.name))", options: options))
        } catch {
          // The member's offset may be a wild value a header claimed (e_shoff near 2^64): it
          // has no archive offset then, and the message still names it.
          let base = UInt64(member.range.lowerBound)
          throw BinaryScanError(
            error.kind,
            offset: error.offset.flatMap { offset in
              let (archiveOffset, overflow) = offset.addingReportingOverflow(base)
              return overflow ? nil : archiveOffset
            },
            "archive member \(member.name) at \(hex(member.range.lowerBound)): \(error.message)")
        }
      }
      return reports
    }
    let image: BinaryImage
    if ELFLoader.isELF(bytes) {
      image = try ELFLoader.load(bytes)
    } else if MachOLoader.isMachO(bytes) {
      image = try MachOLoader.load(bytes)
    } else {
      throw BinaryScanError(.unrecognizedFormat, offset: 0, "not an ELF, Mach-O or archive file")
    }
    var scanner = DescriptorScan(image: image, options: options)
    return [scanner.run(name: name)]
  }

  /// Whether `bytes` starts like a file the scanner reads (ELF, Mach-O, `ar` archive).
  public static func isRecognizedBinary(_ bytes: UnsafeRawBufferPointer) -> Bool {
    ELFLoader.isELF(bytes) || MachOLoader.isMachO(bytes) || ArchiveReader.isArchive(bytes)
  }
}

extension BinaryScanner {
  /// The construction sites of the stack-block descriptors at `descriptors` in `image` (its
  /// own addresses), by descriptor: for a block read from a running process, whose image file
  /// is already loaded.
  package static func constructionSites(in image: BinaryImage, of descriptors: Set<UInt64>) -> [UInt64:
    [BlockConstructionSite]]
  {
    var scan = DescriptorScan(image: image, options: BinaryScanOptions())
    return scan.constructionSites(of: descriptors, symbolsByAddress: scan.definedSymbolsByAddress())
  }

  /// Whether the file at `path` starts like a binary the scanner reads (reads 8 bytes).
  public static func isRecognizedBinary(fileAt path: String) -> Bool {
    guard let file = try? MappedFile(path: path) else { return false }
    return withExtendedLifetime(file) { isRecognizedBinary(file.bytes) }
  }
}
