/// One node `FrameMeasure` is inside of: what completes it once its inner types are measured
/// (pointers and nested signatures need nothing: their insides are not measured).
struct MeasureNesting {
  enum Kind: UInt8 {
    /// `jT`.
    case complex
    /// `AT`.
    case atomic
    /// `[N T]`.
    case array
    /// `{name=…}` or `(name=…)`: one field at a time.
    case aggregate
  }

  var kind: Kind
  /// An array's element count.
  var count: UInt64
  /// An aggregate's fields so far.
  var aggregate: AggregateLayout

  /// Nodes the stack holds (the reader's stack is as deep): with ``LayoutCaveats``,
  /// ``AggregateLayout`` and the rest, a stack of this many fits the 1 KiB that
  /// `withUnsafeTemporaryAllocation` keeps on the stack. Deeper types go to the tree.
  static let capacity = 16
}
