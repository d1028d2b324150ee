// How a value travels between caller and callee, in the terms of every calling convention:
// the abi level compares these.

/// How a value travels between caller and callee.
package enum ParameterPassing: Hashable, Sendable {
  /// `void`.
  case void
  /// System V: the classes of the (at most two) eightbytes.
  case eightbytes(RegisterClass, RegisterClass)
  /// Through memory (on the stack, or through a hidden pointer for a return value).
  case memory
  /// In floating-point registers: `count` values of `size` bytes (AAPCS64 homogeneous
  /// aggregates; scalar floats elsewhere).
  case floatingPoint(size: Int, count: Int)
  /// In `count` general-purpose registers (or stack words).
  case integer(count: Int)
  /// AAPCS64 arguments: in two general-purpose registers but aligned to 16 (`__int128`, clang's
  /// `i128`), which AArch64 Linux starts at an even-numbered register and both AArch64 targets
  /// put in a 16-byte-aligned stack slot, unlike two registers aligned to 8 (`[2 x i64]`).
  case alignedIntegerPair
  /// Whole in one vector register (Windows x64: a 16-byte integer returned in XMM0).
  case vector(size: Int)
  /// The encoding does not say (unencodable, `?`, unexpanded structure).
  case unknown

  package var name: String {
    switch self {
    case .void: "void"
    case .eightbytes(let a, .none): a.name
    case .eightbytes(let a, let b): "\(a.name), \(b.name)"
    case .memory: "memory"
    case .floatingPoint(let size, 1): "floating point (\(size) bytes)"
    case .floatingPoint(let size, let count): "floating point (\(count) × \(size) bytes)"
    case .integer(1): "integer"
    case .integer(let count): "integer (\(count) registers)"
    case .alignedIntegerPair: "integer (2 registers aligned to 16)"
    case .vector(let size): "vector (\(size) bytes)"
    case .unknown: "unknown"
    }
  }
}
