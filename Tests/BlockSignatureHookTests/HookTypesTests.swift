// Every kind of type a block call passes, hooked: a `before` that rewrites an argument and an
// `after` that reads the result, checked against what the C block received and what its C
// caller got back.

import BlockSignature
import BlockSignatureFFI
import BlockSignatureHook
import HookFixtures
import Testing

extension HookTests {
  @Test func structureInSSERegisters() throws {
    let block = try #require(hook_make_pair())
    defer { hook_release(block) }
    let seen = Seen()
    let hook = try BlockCallHook(
      on: block,
      before: { call in
        seen.append("\(call.arguments)")
        try? call.setArgument(0, to: .aggregate([.double(10), .double(20)]))
      }, after: { call in seen.append("\(call.result)") })
    let result = hook_call_pair(block, HookPair(x: 1, y: 2), 3)
    #expect(result.x == 30 && result.y == 60)
    #expect(hook_last().pair.x == 10 && hook_last().pair.y == 20)
    #expect(seen.all == ["[[1.0, 2.0], 3.0]", "[30.0, 60.0]"])
    try hook.remove()
  }

  @Test func structureInMemoryBothWays() throws {
    let block = try #require(hook_make_triple())
    defer { hook_release(block) }
    let seen = Seen()
    let hook = try BlockCallHook(
      on: block,
      before: { call in try? call.setArgument(1, to: .signed(100)) },
      after: { call in
        seen.append("\(call.result)")
        try? call.setResult(.aggregate([.signed(-1), .signed(-2), .signed(-3)]))
      })
    let result = hook_call_triple(block, HookTriple(a: 1, b: 2, c: 3), 1)
    #expect(seen.all == ["[101, 102, 103]"])
    #expect(result.a == -1 && result.b == -2 && result.c == -3)
    #expect(hook_last().triple.a == 1 && hook_last().triple.c == 3)
    try hook.remove()
    #expect(hook_call_triple(block, HookTriple(a: 1, b: 2, c: 3), 1).b == 3)
  }

  @Test func structureAcrossIntegerAndSSERegisters() throws {
    let block = try #require(hook_make_mixed())
    defer { hook_release(block) }
    let hook = try BlockCallHook(
      on: block, before: { call in try? call.setArgument(0, to: .aggregate([.signed(7), .double(0.5)])) })
    #expect(hook_call_mixed(block, HookMixed(n: 1, d: 2)) == 7.5)
    #expect(hook_last().mixed.n == 7)
    try hook.remove()
  }

  @Test func union() throws {
    let block = try #require(hook_make_union())
    defer { hook_release(block) }
    let seen = Seen()
    let hook = try BlockCallHook(
      on: block,
      before: { call in
        seen.append("\(call.argument(0))")
        try? call.setArgument(0, to: .union(member: 1, value: .signed(40)))
      })
    var value = HookUnion()
    value.f = 1.5
    #expect(hook_call_union(block, value, 2).i == 42)
    #expect(hook_last().onion.i == 40)
    #expect(seen.all == ["{member 0: 1.5}"])
    try hook.remove()
  }

  @Test func longDouble() throws {
    let block = try #require(hook_make_long_double())
    defer { hook_release(block) }
    let seen = Seen()
    let hook = try BlockCallHook(
      on: block,
      before: { call in try? call.setArgument(0, to: .longDouble(1.5)) },
      after: { call in seen.append("\(call.result)") })
    #expect(hook_call_long_double(block, 3, 4) == 6)
    #expect(hook_last().ld == 1.5)
    #expect(seen.all == ["6.0"])
    try hook.remove()
  }

  @Test func complex() throws {
    let block = try #require(hook_make_complex())
    defer { hook_release(block) }
    let seen = Seen()
    let hook = try BlockCallHook(
      on: block,
      before: { call in
        seen.append("\(call.argument(0))")
        try? call.setArgument(0, to: .complex(real: .double(2), imaginary: .double(-1)))
      })
    var out = [0.0, 0.0]
    hook_call_complex(block, 1, 1, 3, &out)
    #expect(out == [6, -3])
    #expect(seen.all == ["[1.0, 1.0]"])
    try hook.remove()
  }

  @Test func int128() throws {
    let block = try #require(hook_make_int128())
    defer { hook_release(block) }
    let big = Int128(1) << 100
    let hook = try BlockCallHook(
      on: block,
      before: { call in try? call.setArgument(1, to: .signed(big)) },
      after: { call in
        guard case .signed(let value) = call.result else { return }
        try? call.setResult(.signed(value + 1))
      })
    var a = Int128(5)
    var b = Int128(6)
    var out = Int128(0)
    hook_call_int128(block, &a, &b, &out)
    #expect(out == big + 6)
    try hook.remove()
    hook_call_int128(block, &a, &b, &out)
    #expect(out == 11)
  }

  @Test func narrowResultIsWidenedAsTheCallerExpects() throws {
    let block = try #require(hook_make_negate())
    defer { hook_release(block) }
    let hook = try BlockCallHook(on: block, after: { call in try? call.setResult(.signed(-100)) })
    #expect(hook_call_negate(block, 5) == -100)
    try hook.remove()
  }

  @Test func argumentsOnTheStack() throws {
    let block = try #require(hook_make_many())
    defer { hook_release(block) }
    let seen = Seen()
    let hook = try BlockCallHook(
      on: block,
      before: { call in
        seen.append("\(call.argument(6)) \(call.argument(15))")
        try? call.setArgument(6, to: .signed(1000))  // the seventh int: on the stack
        try? call.setArgument(15, to: .double(0.25))  // the ninth double: on the stack
      })
    let ints: [Int32] = [1, 2, 3, 4, 5, 6, 7]
    let doubles: [Double] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    let expected: Double = 28 - 7 + 1000 + 45 - 9 + 0.25
    #expect(hook_call_many(block, ints, doubles) == expected)
    #expect(seen.all == ["7 9.0"])
    #expect(hook_last().ints.6 == 1000 && hook_last().doubles.8 == 0.25)
    try hook.remove()
  }

  @Test func voidBlock() throws {
    let block = try #require(hook_make_note())
    defer { hook_release(block) }
    let seen = Seen()
    let hook = try BlockCallHook(
      on: block, before: { call in try? call.setArgument(0, to: .signed(9)) },
      after: { call in seen.append("\(call.result)") })
    hook_call_note(block, 1)
    #expect(hook_last().ints.0 == 9)
    #expect(seen.all == ["void"])
    try hook.remove()
  }
}
