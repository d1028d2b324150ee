/// One node the fast scanner is inside of: what completes it once its inner type is measured.
struct FastNesting {
  enum Kind: UInt8 {
    /// `^T`: the pointee's size and caveats do not matter.
    case pointer
    /// `jT`.
    case complex
    /// `AT`.
    case atomic
    /// `[N T]`.
    case array
    /// `{name=…}` or `(name=…)`: one field read at a time.
    case aggregate
    /// `@?<…>`: the nested signature's types do not matter.
    case nestedSignature
  }

  var kind: Kind
  /// The node's nesting level, qualifiers included, as the tree parser counts it.
  var level: Int32
  /// The caveats before a pointer or nested signature (restored when it closes).
  var savedCaveats: LayoutCaveats
  /// An array's element count.
  var count: UInt64
  /// An aggregate's fields so far.
  var aggregate: AggregateLayout

  /// Nodes the stack holds; with ``LayoutCaveats``, ``AggregateLayout`` and the rest, a stack of
  /// this many fits the 1 KiB that `withUnsafeTemporaryAllocation` keeps on the stack.
  static let capacity = 16
}
