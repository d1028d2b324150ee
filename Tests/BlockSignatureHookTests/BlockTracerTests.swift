import BlockSignature
import BlockSignatureFFI
import BlockSignatureHook
import HookFixtures
import Synchronization
import Testing

/// The records a tracer handed over.
final class Records: Sendable {
  private let records = Mutex<[BlockCallRecord]>([])
  func append(_ record: BlockCallRecord) { records.withLock { $0.append(record) } }
  var all: [BlockCallRecord] { records.withLock { $0 } }
}

extension HookTests {
  @Test func tracerRecordsWhatCSentAndGotBack() throws {
    let add = try #require(hook_make_add(5))
    let pair = try #require(hook_make_pair())
    defer {
      hook_release(add)
      hook_release(pair)
    }
    let records = Records()
    let tracer = BlockTracer(sink: records.append)
    #expect(try tracer.trace(add))
    #expect(try !tracer.trace(add))  // once
    #expect(try tracer.trace(pair))
    #expect(try tracer.trace(#require(hook_global_add)))
    let sum = hook_call_add(add, 3, 4)
    let scaled = hook_call_pair(pair, HookPair(x: 1, y: 2), 0.5)
    let global = hook_call_add(hook_global_add, 20, 22)
    let all = records.all
    try #require(all.count == 3)
    #expect(all[0].arguments == [.signed(3), .signed(4)] && all[0].result == .signed(Int128(sum)))
    #expect(all[0].invokeSymbol?.hasSuffix("_block_invoke") == true)
    #expect(all[0].invokeSymbol?.contains("hook_make_add") == true)
    #expect(all[0].text.hasSuffix("int (^)(int, int)  (3, 4) -> 12"))
    #expect(all[1].arguments == [.aggregate([.double(1), .double(2)]), .double(0.5)])
    #expect(all[1].result == .aggregate([.double(scaled.x), .double(scaled.y)]))
    #expect(all[2].result == .signed(Int128(global)) && global == 42)
    #expect(Set(all.map(\.thread)).count == 1)
    let line = all[0].jsonLine
    #expect(line.hasPrefix(#"{"serializationVersion":1,"event":"call","block":"0x"#))
    #expect(line.contains(#""signature":"i16@?0i8i12","arguments":[3,4],"result":12,"thread":"#))
    #expect(tracer.callsPerBlock[UInt(bitPattern: add)] == 1)
    #expect(tracer.summaryLine.hasPrefix(#"{"serializationVersion":1,"event":"summary","calls":[{"block":"0x"#))
    try tracer.stop()
    _ = hook_call_add(add, 1, 1)
    #expect(records.all.count == 3)
  }

  @Test func tracerKeepsToItsSymbols() throws {
    let add = try #require(hook_make_add(0))
    let note = try #require(hook_make_note())
    defer {
      hook_release(add)
      hook_release(note)
    }
    let probe = Records()
    let finder = BlockTracer(sink: probe.append)
    try finder.trace(add)
    _ = hook_call_add(add, 1, 2)
    try finder.stop()
    let symbol = try #require(probe.all.first?.invokeSymbol)
    let records = Records()
    let tracer = BlockTracer(symbols: [symbol], sink: records.append)
    #expect(try tracer.trace(add))
    #expect(try !tracer.trace(note))
    hook_call_note(note, 3)
    _ = hook_call_add(add, 1, 2)
    #expect(records.all.map(\.invokeSymbol) == [symbol])
    try tracer.stop()
  }

  @Test func linesOfATracerAreTheRecordsLines() throws {
    let blocks = [
      try #require(hook_make_add(2)), try #require(hook_make_pair()), try #require(hook_make_union()),
      try #require(hook_make_note()),
    ]
    defer { blocks.forEach { hook_release($0) } }
    let records = Records()
    let json = Mutex<[String]>([])
    let text = Mutex<[String]>([])
    let tracers = [
      BlockTracer(sink: records.append),
      BlockTracer(format: .json) { line in json.withLock { $0.append(line) } },
      BlockTracer(format: .text) { line in text.withLock { $0.append(line) } },
    ]
    for tracer in tracers { for block in blocks { try tracer.trace(block) } }
    _ = hook_call_add(blocks[0], -5, 1)
    _ = hook_call_pair(blocks[1], HookPair(x: 0.1, y: -2), 3)
    var value = HookUnion()
    value.i = 7
    _ = hook_call_union(blocks[2], value, 1)
    hook_call_note(blocks[3], 4)
    #expect(json.withLock { $0 } == records.all.map(\.jsonLine))
    #expect(text.withLock { $0 } == records.all.map(\.text))
    #expect(records.all.count == 4)
    for tracer in tracers { try tracer.stop() }
  }
}
