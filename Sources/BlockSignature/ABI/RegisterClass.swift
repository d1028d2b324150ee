// The System V x86_64 eightbyte classes and the rule that merges two of them.

/// A System V x86_64 eightbyte class.
package enum RegisterClass: UInt8, Hashable, Sendable {
  case none, integer, sse, x87, memory

  package var name: String {
    switch self {
    case .none: "none"
    case .integer: "integer"
    case .sse: "sse"
    case .x87: "x87"
    case .memory: "memory"
    }
  }

  /// The System V merge rule for two classes sharing an eightbyte: MEMORY stays MEMORY, INTEGER
  /// wins over the rest, X87 (or X87UP) with SSE is MEMORY. It is not associative, so the
  /// order counts as in clang and GCC: a union's members one after another, each classified
  /// whole before it is merged (`(?=Df[4i])` is memory, `(?=D[4i]f)` INTEGER, INTEGER).
  func merged(with other: RegisterClass) -> RegisterClass {
    if self == other || other == .none { return self }
    if self == .none { return other }
    if self == .memory || other == .memory { return .memory }
    if self == .integer || other == .integer { return .integer }
    if self == .x87 || other == .x87 { return .memory }
    return .sse
  }
}
