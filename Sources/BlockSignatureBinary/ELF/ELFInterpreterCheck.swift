// Whether an executable names a program interpreter (`PT_INTERP`): a program without one is
// statically linked, and nothing can be preloaded into it.

/// Whether the ELF file at `path` names a program interpreter, read from its file and program
/// headers alone; nil for a file that is not ELF or cannot be read (a script, say).
package func elfNamesProgramInterpreter(atPath path: String) -> Bool? {
  guard let file = try? MappedFile(path: path), let header = try? ELFFileHeader(parsing: file.bytes) else {
    return nil
  }
  var warnings = ScanWarnings()
  return ELFProgramHeaders(parsing: header, warnings: &warnings).hasInterpreter
}
