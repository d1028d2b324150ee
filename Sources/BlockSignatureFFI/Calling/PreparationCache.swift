// The most recently used results of a costly preparation (a libffi interface, a block's
// prototype), by the text they were prepared from, up to a bound: a program that makes many
// blocks or trampolines of a few signatures prepares each once, one that makes them of endless
// signatures keeps at most `limit`.

/// Prepared values by key, the least recently used dropped beyond `limit`. A dropped value lives
/// on while anything made from it holds it.
import BlockSignatureSystem

package final class PreparationCache<Key: Hashable, Value>: @unchecked Sendable {
  /// A kept value and when it was last used: a reference, so that a use updates the time in
  /// place instead of writing the value back into the dictionary.
  private final class Entry {
    let value: Value
    var lastUse: UInt64

    init(value: Value, lastUse: UInt64) {
      self.value = value
      self.lastUse = lastUse
    }
  }

  private struct Table {
    var entries: [Key: Entry] = [:]
    var clock: UInt64 = 0

    mutating func use(_ key: Key) -> Value? {
      guard let entry = entries[key] else { return nil }
      clock += 1
      entry.lastUse = clock
      return entry.value
    }
  }

  private let table = Locked(Table())
  /// The most values kept.
  package let limit: Int

  package init(limit: Int) {
    self.limit = limit
  }

  /// The value for `key`, made by `make` (outside the lock) when none is kept. Two threads may
  /// make one at once: the first stored wins, and both get it.
  package func value<Failure: Error>(for key: Key, orMake make: () throws(Failure) -> Value) throws(Failure)
    -> Value
  {
    if let known = table.withLock({ $0.use(key) }) { return known }
    let made = try make()
    return table.withLock { table in
      if let known = table.use(key) { return known }
      table.clock += 1
      table.entries[key] = Entry(value: made, lastUse: table.clock)
      while table.entries.count > limit,
        let oldest = table.entries.min(by: { $0.value.lastUse < $1.value.lastUse })
      {
        table.entries[oldest.key] = nil
      }
      return made
    }
  }

  /// The number of values kept (at most ``limit``).
  package var count: Int { table.withLock { $0.entries.count } }
}
