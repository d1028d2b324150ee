import BlockSignature
import BlockSignatureFFI
import BlockSignatureRuntime
import BlockSignatureSystem
import CBlockSignatureHook
import Synchronization

/// Traces calls of live blocks: each traced block gets an `after` hook that hands a
/// ``BlockCallRecord`` of the call (arguments, result, thread) to a sink, and the tracer counts
/// the calls per block.
///
///     let lines = Mutex<[String]>([])
///     let tracer = BlockTracer { record in lines.withLock { $0.append(record.jsonLine) } }
///     try tracer.trace(block)
///     // … the program calls the block …
///     tracer.summaryLine  // {"serializationVersion":1,"event":"summary","calls":[…]}
///     try tracer.stop()
///
/// `symbols`, when not empty, limits the trace to blocks whose invoke function's symbol (or a
/// global literal's own symbol) is one
/// of them. The tracer changes nothing: arguments and results reach the caller as they were.
public final class BlockTracer: Sendable {
  /// What receives each call; it runs on the calling thread, after the block returns.
  public typealias Sink = @Sendable (BlockCallRecord) -> Void

  private struct State {
    var hooks: [UInt: BlockCallHook] = [:]
    var calls: [UInt: Int] = [:]
    var symbols: [UInt: String] = [:]
    /// Blocks freed since they were traced, with their calls: a later block at the same
    /// address is another block.
    var freed: [(block: UInt, symbol: String?, calls: Int)] = []

    /// Forgets the block at `key`, keeping its count for the summary.
    mutating func free(_ key: UInt) {
      guard hooks.removeValue(forKey: key) != nil else { return }
      freed.append((key, symbols.removeValue(forKey: key), calls.removeValue(forKey: key) ?? 0))
    }
  }

  /// The state, in an object the hooks share.
  private final class Shared: Sendable {
    let state = Mutex(State())
    /// Calls that have entered a traced block and not yet handed their record over.
    let inFlight = Atomic<Int>(0)
  }

  /// Where calls go: whole records, or lines of a format.
  private enum Output: Sendable {
    case records(Sink)
    case lines(TraceLineFormat, @Sendable (String) -> Void)
  }

  private let output: Output
  private let symbols: Set<String>
  private let shared = Shared()

  /// Makes a tracer that hands each call to `sink`.
  ///
  /// - Parameters:
  ///   - symbols: the invoke symbols to trace; empty to trace every block given.
  ///   - sink: receives each call's record.
  public init(symbols: Set<String> = [], sink: @escaping Sink) {
    output = .records(sink)
    self.symbols = symbols
  }

  /// Makes a tracer that hands each call to `lines` as one line of `format`, without a
  /// newline: what `blocksig trace` writes. The parts of a line no call changes are made once
  /// per block, so a call costs its arguments' and result's text.
  ///
  ///     let tracer = BlockTracer(format: .json) { line in print(line) }
  ///
  /// - Parameters:
  ///   - symbols: the invoke symbols to trace; empty to trace every block given.
  ///   - format: text or JSON lines.
  ///   - lines: receives each call's line, on the calling thread.
  public init(symbols: Set<String> = [], format: TraceLineFormat, lines: @escaping @Sendable (String) -> Void) {
    output = .lines(format, lines)
    self.symbols = symbols
  }

  /// Traces `block`: false when it is traced already, or neither its invoke's symbol nor (for
  /// a global literal) the literal's own symbol is among the tracer's symbols.
  ///
  ///     try tracer.trace(block)  // true
  ///
  /// - Throws: ``BlockCallHookError``: the block cannot be hooked (a stack block, no
  ///   signature, a type no call can pass).
  @discardableResult
  public func trace(_ block: UnsafeRawPointer) throws(BlockCallHookError) -> Bool {
    let key = UInt(bitPattern: block)
    if shared.state.withLock({ $0.hooks[key] != nil }) { return false }
    let info: BlockInfo
    do {
      info = try BlockInfo(inspecting: block)
    } catch {
      throw BlockCallHookError(kind: .notABlock, message: error.description)
    }
    // A block hooked already holds the hooks' invoke: its own is in the hook table.
    let invoke = HookTable.ownInvoke(of: block).map { UInt(bitPattern: $0) } ?? info.invokeAddress
    let symbol = Self.symbol(of: invoke)
    if !symbols.isEmpty, !symbols.contains(symbol ?? "") {
      // A global literal may be named by its own symbol instead (a block variable's literal).
      guard info.kind == .global, let literal = SymbolInfo(address: key)?.resolvingLocalSymbols().name,
        symbols.contains(literal)
      else { return false }
    }
    let template = BlockCallRecord(
      block: key, invoke: invoke, invokeSymbol: symbol, signature: info.signature,
      declaration: info.cDeclaration, arguments: [], result: nil, thread: 0)
    let hook: BlockCallHook
    if info.signatureBytes == nil {
      // No signature: each call is seen, its arguments and result are not.
      hook = try BlockCallHook(
        observing: block, onCall: Self.observer(for: template, key: key, output: output, shared: shared),
        onDispose: { [shared] _ in shared.state.withLock { $0.free(key) } })
    } else {
      hook = try BlockCallHook(
        on: block,
        before: { [shared] _ in shared.inFlight.add(1, ordering: .relaxed) },
        after: Self.recorder(for: template, key: key, output: output, shared: shared),
        onDispose: { [shared] _ in shared.state.withLock { $0.free(key) } })
    }
    shared.state.withLock { state in
      state.hooks[key] = hook
      state.symbols[key] = symbol
    }
    return true
  }

  /// Invoke functions' symbols, by address: reading an image's local symbols maps its file, and
  /// a program may make many blocks with one invoke (one per `dispatch_async`).
  private static let symbols = Mutex<[UInt: String?]>([:])

  /// The symbol of the invoke function at `address`, from the image's symbol tables.
  private static func symbol(of address: UInt) -> String? {
    if let known = symbols.withLock({ $0[address] }) { return known }
    let name = SymbolInfo(address: address)?.resolvingLocalSymbols().name
    symbols.withLock { $0[address] = name }
    return name
  }

  /// The `onCall` hook of a traced block without a signature: counts the call and hands over
  /// a record whose arguments and result are unknown.
  private static func observer(
    for template: BlockCallRecord, key: UInt, output: Output, shared: Shared
  ) -> BlockCallHook.CallObserver {
    var blank = template
    blank.arguments = nil
    blank.signature = nil
    let unknown = blank
    return { _ in
      var record = unknown
      record.thread = Int(cbh_thread_number())
      shared.state.withLock { $0.calls[key, default: 0] += 1 }
      switch output {
      case .records(let sink): sink(record)
      case .lines(.json, let lines): lines(record.jsonLine)
      case .lines(.text, let lines): lines(record.text)
      }
    }
  }

  /// The `after` hook of a traced block: counts the call and hands it over.
  private static func recorder(
    for template: BlockCallRecord, key: UInt, output: Output, shared: Shared
  ) -> BlockCallHook.Hook {
    switch output {
    case .records(let sink):
      return { call in
        defer { shared.inFlight.subtract(1, ordering: .releasing) }
        var record = template
        record.arguments = call.arguments
        record.result = call.resultSize == 0 ? nil : call.result
        record.thread = Int(cbh_thread_number())
        shared.state.withLock { $0.calls[key, default: 0] += 1 }
        sink(record)
      }
    case .lines(let format, let lines):
      let line = TraceLineTemplate(template, format: format)
      return { call in
        defer { shared.inFlight.subtract(1, ordering: .releasing) }
        let text = line.line(
          thread: Int(cbh_thread_number()), arguments: call.arguments,
          result: call.resultSize == 0 ? nil : call.result)
        shared.state.withLock { $0.calls[key, default: 0] += 1 }
        lines(text)
      }
    }
  }

  /// The calls counted so far of the traced blocks still alive, per block address.
  public var callsPerBlock: [UInt: Int] { shared.state.withLock { $0.calls } }

  /// The last line of a JSON Lines trace: `{"serializationVersion":1,"event":"summary","calls":
  /// [{"block":"0x…","invokeSymbol":…,"calls":N},…]}`, one entry per traced block that was
  /// called: those freed first, in the order they were freed, then the others in address order.
  public var summaryLine: String {
    let (calls, symbols, freed) = shared.state.withLock { ($0.calls, $0.symbols, $0.freed) }
    let live = calls.keys.sorted().map { (block: $0, symbol: symbols[$0], calls: calls[$0]!) }
    let entries = (freed.filter { $0.calls > 0 } + live).map { entry in
      let symbol = entry.symbol.map(BlockCallRecord.quoted) ?? "null"
      return #"{"block":"0x\#(String(entry.block, radix: 16))","invokeSymbol":\#(symbol),"calls":\#(entry.calls)}"#
    }
    return #"{"serializationVersion":1,"event":"summary","calls":[\#(entries.joined(separator: ","))]}"#
  }

  /// Waits until no traced call is between its block's return and its record's hand-over, or
  /// until `milliseconds` have passed: a program that exits as soon as a block on another
  /// thread has done its work would otherwise end before that call's record is written.
  ///
  ///     atexit { tracer.waitForCallsInFlight(milliseconds: 200) }
  ///
  /// - Returns: whether no call was left in flight.
  @discardableResult
  public func waitForCallsInFlight(milliseconds: Int) -> Bool {
    for _ in 0..<max(1, milliseconds) {
      if shared.inFlight.load(ordering: .acquiring) <= 0 { return true }
      system_sleep(microseconds: 1000)
    }
    return shared.inFlight.load(ordering: .acquiring) <= 0
  }

  /// Removes the tracer's hooks from the blocks still alive.
  ///
  /// - Throws: ``BlockCallHookError`` when a global block's page cannot be made writable.
  public func stop() throws(BlockCallHookError) {
    let hooks = shared.state.withLock { state in
      defer { state.hooks = [:] }
      return Array(state.hooks.values)
    }
    for hook in hooks { try hook.remove() }
  }
}
