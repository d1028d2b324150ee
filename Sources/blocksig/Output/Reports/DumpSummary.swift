import BlockSignature

/// The closing line of `blocksig dump` on standard error: how many files were scanned (or
/// failed), how many blocks they hold, how many files or paths failed.
struct DumpSummary: CustomStringConvertible {
  var files = 0
  var blocks = 0
  var errors: Int

  init(files: Int, errors: Int) {
    self.files = files
    self.errors = errors
  }

  var description: String {
    "\(counted(files, "file")), \(counted(blocks, "block")), \(counted(errors, "error"))"
  }
}
