// Running code nobody checked — a library's constructors, a function it exports, a block —
// in a forked child, so that its crash is reported instead of ending the caller.

import BlockSignature
import BlockSignatureBinary
import BlockSignatureSystem
import CBlockSignatureShims

/// Work run in a child process made with `fork`, whose crash becomes a value.
///
/// The child runs `body`, which does the dangerous work and prints its own results (standard
/// output and error are the caller's), and returns the status to exit with. It can ``mark(_:)``
/// the phase it is in, so that a crash says what was running. The parent waits for it.
///
///     let outcome = ContainedRun.run { run in
///       run.mark("loading libfoo.so")
///       // dlopen, call, print
///       return 0
///     }
///     if case .crashed(let crash) = outcome { print(crash) }  // "SIGSEGV at 0x7f…"
///
/// Fork copies only the calling thread: call it before starting threads of one's own.
package struct ContainedRun {
  /// The descriptor the child's marks and its fault record go to.
  private let reportFD: Int32

  /// How the child ended.
  package enum Outcome: Equatable, Sendable {
    /// It exited with this status.
    case exited(Int32)
    /// A signal that means a crash ended it.
    case crashed(Crash)
    /// A signal that means it was stopped (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE).
    case stopped(signal: Int32)
    /// No child could be made (the reason), and nothing ran.
    case notStarted(String)
  }

  /// A crash: the signal, where it struck, and the phase the child had marked.
  package struct Crash: Equatable, Sendable, CustomStringConvertible {
    /// The signal number.
    package var signal: Int32
    /// Its name, `SIGSEGV`.
    package var signalName: String
    /// The faulting address (`si_addr`), when the signal was a fault.
    package var faultAddress: UInt64?
    /// The instruction that faulted, when known.
    package var instruction: UInt64?
    /// The last phase the child marked, if any.
    package var phase: String?

    /// `SIGSEGV at 0x7f… (address 0x10)`.
    package var description: String {
      var text = signalName
      if let instruction { text += " at \(instruction.hexadecimal())" }
      if let faultAddress, system_memoryFaultSignals.contains(signal) {
        text += " (address \(faultAddress.hexadecimal()))"
      }
      return text
    }
  }

  /// Marks the phase the child is in (`"loading libfoo.so"`); a crash reports the last mark.
  package func mark(_ phase: String) {
    var record: [UInt8] = [UInt8(ascii: "P")]
    let text = Array(phase.utf8.prefix(255))
    record.append(UInt8(text.count))
    record.append(contentsOf: text)
    record.withUnsafeBytes { _ = system_writeAll(reportFD, $0) }
  }

  /// Runs `body` in a child and waits for it.
  package static func run(_ body: (ContainedRun) -> Int32) -> Outcome {
    let ends: (read: Int32, write: Int32)
    switch system_pipe() {
    case .success(let pipe): ends = pipe
    case .failure(let error): return .notStarted(error.message)
    }
    system_flushStandardStreams()
    let pid = cbs_fork()
    if pid < 0 {
      let reason = SystemCallError(call: "fork", code: system_errno()).message
      system_close(ends.read)
      system_close(ends.write)
      return .notStarted(reason)
    }
    if pid == 0 {
      system_close(ends.read)
      _ = cbs_report_faults(ends.write)
      system_exitChild(body(ContainedRun(reportFD: ends.write)))
    }
    system_close(ends.write)
    var status: Int32 = 0
    var signal: Int32 = 0
    let waited = cbs_wait_child(pid, &status, &signal)
    // A grandchild the library started may hold the write end: read what is there, no more.
    let report = system_readPipe(ends.read, limit: 1 << 16, nonBlocking: true)
    system_close(ends.read)
    guard waited == 0 else { return .notStarted(SystemCallError(call: "waitpid", code: system_errno()).message) }
    guard signal != 0 else { return .exited(status) }
    if system_stopSignals.contains(signal) { return .stopped(signal: signal) }
    return .crashed(Self.crash(signal: signal, report: report))
  }

  /// The crash that `report` (the child's marks, then its fault record) describes.
  private static func crash(signal: Int32, report: [UInt8]) -> Crash {
    var crash = Crash(signal: signal, signalName: system_signalName(signal))
    var index = 0
    let recordSize = MemoryLayout<CBS_FaultRecord>.size
    while index < report.count {
      if report[index] == UInt8(ascii: "P"), index + 1 < report.count {
        let length = Int(report[index + 1])
        let end = min(report.count, index + 2 + length)
        crash.phase = String(decoding: report[(index + 2)..<end], as: UTF8.self)
        index = end
      } else if report.count - index >= recordSize {
        // The handler's record starts with the signal number, never the letter P (80).
        let record = report[index..<(index + recordSize)].withUnsafeBytes {
          $0.loadUnaligned(as: CBS_FaultRecord.self)
        }
        if record.signal == signal {
          crash.faultAddress = record.address
          crash.instruction = record.pc == 0 ? nil : record.pc
        }
        index += recordSize
      } else {
        break
      }
    }
    return crash
  }
}
