import BlockSignature

/// What the program headers say: the file's kind (whether it names an interpreter, `PT_INTERP`,
/// and has a dynamic segment, `PT_DYNAMIC`) and where its loadable segments (`PT_LOAD`) go.
struct ELFProgramHeaders {
  var hasInterpreter = false
  var hasDynamic = false
  var loadSegments: [LoadSegment] = []

  /// Reads the program header table `header` points at; one that does not fit in the file is
  /// warned about and read as empty.
  init(parsing header: ELFFileHeader, warnings: inout ScanWarnings) {
    guard header.programCount > 0 else { return }
    let minimum: UInt64 = header.is64 ? 56 : 32
    let (tableSize, overflow) = header.programCount.multipliedReportingOverflow(by: header.programEntrySize)
    guard header.programEntrySize >= minimum, !overflow,
      header.bytes.contains(offset: header.programOffset, length: tableSize)
    else {
      warnings.append(
        .tablePastEndOfFile(
          "program header table", at: header.programOffset,
          entries: "\(header.programCount) entries of \(hex(header.programEntrySize)) bytes", fileSize: header.fileSize)
      )
      return
    }
    for index in 0..<header.programCount {
      let entry = header.programOffset + index * header.programEntrySize
      switch header.bytes.u32(entry)! {
      case 1: loadSegments.append(Self.loadSegment(at: entry, in: header))
      case 3: hasInterpreter = true
      case 2: hasDynamic = true
      default: break
      }
    }
  }

  /// The `PT_LOAD` entry at `entry`, whose fields sit where `Elf64_Phdr` or `Elf32_Phdr` has them.
  private static func loadSegment(at entry: UInt64, in header: ELFFileHeader) -> LoadSegment {
    let (offset, address, fileSize, memorySize): (UInt64, UInt64, UInt64, UInt64) =
      header.is64 ? (8, 16, 32, 40) : (4, 8, 16, 20)
    return LoadSegment(
      address: header.word(entry + address), fileOffset: header.word(entry + offset),
      fileSize: header.word(entry + fileSize), memorySize: header.word(entry + memorySize))
  }

  /// The kind of a file of ELF type `type` with these program headers.
  func kind(ofType type: UInt16) throws(BinaryScanError) -> BinaryKind {
    switch type {
    case 1: return .relocatable
    case 2: return hasInterpreter || hasDynamic ? .executable : .staticExecutable
    case 3: return hasInterpreter ? .positionIndependentExecutable : .sharedLibrary
    default: throw BinaryScanError(.unsupportedVariant, offset: 16, "unsupported ELF file type \(type)")
    }
  }
}
