// The Swift side of the trace agent, preloaded into a traced program by `blocksig trace`: it
// traces the program's global block literals (found in its memory at start and after each
// `dlopen`) and every block `_Block_copy` puts on the heap, and writes one line per call.
//
// Its settings come from the environment `blocksig trace` gives the program:
// BLOCKSIG_TRACE_OUTPUT (a file to append to; standard error otherwise), BLOCKSIG_TRACE_JSON
// (1 for JSON Lines), BLOCKSIG_TRACE_SYMBOLS (invoke symbols, one per line; all when unset).

import BlockSignature
import BlockSignatureHook
import BlockSignatureRuntime
import BlockSignatureSystem
import CBlockSignatureTraceAgent
import Synchronization

/// Lines waiting to be written.
final class Pending: Sendable {
  let bytes = Mutex<[UInt8]>([])
}

/// The agent of one traced process.
final class TraceAgent: Sendable {
  let output: Int32
  let json: Bool
  let tracer: BlockTracer
  /// Lines not yet written, when the trace goes to a file: written 64 KiB at a time and when
  /// the program exits (a program killed by a signal loses what is pending). Standard error gets
  /// each line at once.
  private let pending: Pending?
  /// Blocks already noted as untraceable, so each note is written once.
  private let noted = Mutex<Set<UInt>>([])

  init() {
    let environment = system_environment
    let file = environment("BLOCKSIG_TRACE_OUTPUT")
    // A file that cannot be opened: the lines are lost, the program runs on (-1 fails each write).
    let output = (try? system_openForAppending(file).get()) ?? -1
    self.output = output
    let json = environment("BLOCKSIG_TRACE_JSON") == "1"
    self.json = json
    let pending = file == nil ? nil : Pending()
    self.pending = pending
    let symbols = Set((environment("BLOCKSIG_TRACE_SYMBOLS") ?? "").split(separator: "\n").map(String.init))
    tracer = BlockTracer(symbols: symbols, format: json ? .json : .text) { line in
      TraceAgent.emit(line, to: output, pending: pending)
    }
  }

  /// Writes `line`, or adds it to `pending` and writes that when it is full.
  static func emit(_ line: String, to output: Int32, pending: Pending?) {
    guard let pending else {
      write(line, to: output)
      return
    }
    pending.bytes.withLock { buffer in
      buffer.append(contentsOf: line.utf8)
      buffer.append(0x0a)
      if buffer.count >= 1 << 16 {
        writeAll(buffer, to: output)
        buffer.removeAll(keepingCapacity: true)
      }
    }
  }

  /// Writes the pending lines.
  func flush() {
    pending?.bytes.withLock { buffer in
      Self.writeAll(buffer, to: output)
      buffer.removeAll(keepingCapacity: true)
    }
  }

  /// Writes every byte of `bytes`. A failed write is dropped: inside the traced program there
  /// is nowhere to report it.
  static func writeAll(_ bytes: [UInt8], to output: Int32) {
    _ = bytes.withUnsafeBytes { system_writeAll(output, $0) }
  }

  /// Writes `line` and a newline in one `write`, so that lines of threads never interleave.
  static func write(_ line: String, to output: Int32) {
    writeAll(Array((line + "\n").utf8), to: output)
  }

  /// Traces `block`, or notes once why it cannot be.
  func trace(_ block: UnsafeRawPointer) {
    do {
      try tracer.trace(block)
    } catch {
      let address = UInt(bitPattern: block)
      guard noted.withLock({ $0.insert(address).inserted }) else { return }
      let invoke = (try? BlockInfo(inspecting: block))?.invoke?.resolvingLocalSymbols().displayName
      let name = "block 0x\(String(address, radix: 16))" + (invoke.map { " (\($0))" } ?? "")
      let reason =
        error.kind == .missingSignature ? "it has no signature, so its arguments cannot be passed on" : error.message
      let message = "\(name) is not traced: \(reason)"
      Self.emit(
        json
          ? #"{"serializationVersion":1,"event":"note","block":"0x\#(String(address, radix: 16))","message":\#(Self.quoted(message))}"#
          : "note: \(message)", to: output, pending: pending)
    }
  }

  /// Traces the global literals in the process's memory (images loaded so far).
  func traceGlobalLiterals() {
    guard let blocks = try? BlockInfo.blocks(inProcess: system_processID(), maximumRegionSize: 64 << 20) else { return }
    for block in blocks where block.kind == .global {
      guard let pointer = UnsafeRawPointer(bitPattern: block.address) else { continue }
      trace(pointer)
    }
  }

  /// The JSON summary, written when the program exits, once calls still running on other
  /// threads have written their lines (for at most 200 ms).
  func finish() {
    tracer.waitForCallsInFlight(milliseconds: 200)
    if json { Self.emit(tracer.summaryLine, to: output, pending: pending) }
    flush()
  }

  static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case _ where scalar.value < 0x20: out += " "
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }
}

/// The process's agent, made when the library loads.
let agent = TraceAgent()

@_cdecl("bsta_agent_start")
func agentStart() {
  agent.traceGlobalLiterals()
  system_atExit { agent.finish() }
}

@_cdecl("bsta_agent_copied")
func agentCopied(_ block: UnsafeMutableRawPointer) {
  agent.trace(block)
}

@_cdecl("bsta_agent_loaded")
func agentLoaded() {
  agent.traceGlobalLiterals()
}
