import ArgumentParser
import BlockSignatureRuntime

/// The part of a command that runs a library's code — loading it (the dynamic linker and its
/// constructors), the function that returns a block, the block, its Objective-C classes — run
/// in a child process. The child prints the command's results and diagnostics as the command
/// would; a crash there is reported by the parent as an error (exit 70), an interrupt ends the
/// parent too (128 + the signal), and anything else exits with the child's status.
enum LibraryCodeRun {
  static func run(_ work: (ContainedRun) throws -> Void) throws {
    let outcome = ContainedRun.run { child in
      do {
        try work(child)
        return 0
      } catch {
        return BlockSig.exitStatus(reporting: error)
      }
    }
    switch outcome {
    case .exited(let status):
      if status != 0 { throw ExitCode(status) }
    case .crashed(let crash):
      throw Diagnostics.fail(ExitStatus.crashed, "\(crash.phase ?? "the child process") crashed with \(crash)")
    case .stopped(let signal):
      throw ExitCode(128 + signal)
    case .notStarted(let reason):
      throw Diagnostics.fail(ExitStatus.crashed, "cannot start the process that loads the library: \(reason)")
    }
  }
}
