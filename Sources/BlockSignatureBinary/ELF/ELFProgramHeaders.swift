import BlockSignature

/// What the program headers say about the file's kind: whether it names an interpreter
/// (`PT_INTERP`) and has a dynamic segment (`PT_DYNAMIC`). Nothing else in them matters here.
struct ELFProgramHeaders {
  var hasInterpreter = false
  var hasDynamic = false

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
      switch header.bytes.u32(header.programOffset + index * header.programEntrySize)! {
      case 3: hasInterpreter = true
      case 2: hasDynamic = true
      default: break
      }
    }
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
