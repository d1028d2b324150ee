import Synchronization

/// Counts releases: each ``Token`` adds one to its counter when it is deinitialized. A handler
/// that captures a token shows when the block holding it is released.
final class LifetimeCounter: Sendable {
  private let released = Atomic<Int>(0)

  /// The number of tokens released.
  var count: Int { released.load(ordering: .sequentiallyConsistent) }

  /// A new token of this counter.
  func token() -> Token { Token(counter: self) }

  final class Token: Sendable {
    let counter: LifetimeCounter
    init(counter: LifetimeCounter) { self.counter = counter }
    deinit { counter.released.add(1, ordering: .sequentiallyConsistent) }
  }
}
