// The scalars a typed call reads and writes directly, without walking their value's shape: the
// common case of made blocks' handlers and typed invocations. Anything else, or a value of
// another kind, goes through `ValueShape`, which converts it or says what is wrong.

/// A scalar the typed path reads and writes directly.
package enum ScalarAccess: Equatable {
  case signed(size: Int)
  case unsigned(size: Int)
  case bool
  case float
  case double
  case pointer

  package init?(_ shape: ValueShape) {
    switch shape {
    case .integer(let size, let isSigned, _) where size <= 8:
      self = isSigned ? .signed(size: size) : .unsigned(size: size)
    case .bool: self = .bool
    case .float: self = .float
    case .double: self = .double
    case .pointer(isCString: false): self = .pointer
    default: return nil
    }
  }

  /// The value at `address`, as ``ValueShape/load(from:)`` reads it.
  package func load(from address: UnsafeRawPointer) -> CValue {
    switch self {
    case .signed(let size):
      switch size {
      case 1: .signed(Int128(address.load(as: Int8.self)))
      case 2: .signed(Int128(address.loadUnaligned(as: Int16.self)))
      case 4: .signed(Int128(address.loadUnaligned(as: Int32.self)))
      default: .signed(Int128(address.loadUnaligned(as: Int64.self)))
      }
    case .unsigned(let size):
      switch size {
      case 1: .unsigned(UInt128(address.load(as: UInt8.self)))
      case 2: .unsigned(UInt128(address.loadUnaligned(as: UInt16.self)))
      case 4: .unsigned(UInt128(address.loadUnaligned(as: UInt32.self)))
      default: .unsigned(UInt128(address.loadUnaligned(as: UInt64.self)))
      }
    case .bool: .bool(address.load(as: UInt8.self) != 0)
    case .float: .float(address.loadUnaligned(as: Float.self))
    case .double: .double(address.loadUnaligned(as: Double.self))
    case .pointer: .pointer(address.loadUnaligned(as: UInt.self))
    }
  }

  /// Writes `value` as an argument at `address`, in the type's own bytes; false when the value
  /// is not plainly of this type or out of range (the shape's checked store then converts it
  /// or says why).
  func storeArgument(_ value: CValue, at address: UnsafeMutableRawPointer) -> Bool {
    switch (self, value) {
    case (.double, .double(let x)): address.storeBytes(of: x, as: Double.self)
    case (.float, .float(let x)): address.storeBytes(of: x, as: Float.self)
    case (.bool, .bool(let flag)): address.storeBytes(of: flag ? 1 : 0, as: UInt8.self)
    case (.pointer, .pointer(let word)): address.storeBytes(of: word, as: UInt.self)
    case (.signed(let size), .signed(let number)):
      guard Self.fits(number, bytes: size) else { return false }
      Self.storeLow(size, of: UInt64(truncatingIfNeeded: number), at: address)
    case (.unsigned(let size), .unsigned(let number)):
      guard Self.fits(number, bytes: size) else { return false }
      Self.storeLow(size, of: UInt64(truncatingIfNeeded: number), at: address)
    default: return false
    }
    return true
  }

  /// Stores the low `size` bytes (1, 2, 4 or 8) of `bits` at `address`.
  private static func storeLow(_ size: Int, of bits: UInt64, at address: UnsafeMutableRawPointer) {
    switch size {
    case 1: address.storeBytes(of: UInt8(truncatingIfNeeded: bits), as: UInt8.self)
    case 2: address.storeBytes(of: UInt16(truncatingIfNeeded: bits), as: UInt16.self)
    case 4: address.storeBytes(of: UInt32(truncatingIfNeeded: bits), as: UInt32.self)
    default: address.storeBytes(of: bits, as: UInt64.self)
    }
  }

  /// Writes `value` as a result at `address`, widened to a whole `ffi_arg` where libffi wants
  /// it; false when the value is not plainly of this type or out of range (the shape's checked
  /// store then says why).
  /// (One store of the widened value: the hot path of a typed handler's result.)
  package func storeResult(_ value: CValue, at address: UnsafeMutableRawPointer) -> Bool {
    switch (self, value) {
    case (.double, .double(let x)): address.storeBytes(of: x, as: Double.self)
    case (.float, .float(let x)): address.storeBytes(of: x, as: Float.self)
    case (.bool, .bool(let flag)): address.storeBytes(of: UInt64(flag ? 1 : 0), as: UInt64.self)
    case (.pointer, .pointer(let word)): address.storeBytes(of: word, as: UInt.self)
    case (.signed(let size), .signed(let number)):
      guard Self.fits(number, bytes: size) else { return false }
      address.storeBytes(of: Int64(truncatingIfNeeded: number), as: Int64.self)
    case (.unsigned(let size), .unsigned(let number)):
      guard Self.fits(number, bytes: size) else { return false }
      address.storeBytes(of: UInt64(truncatingIfNeeded: number), as: UInt64.self)
    default: return false
    }
    return true
  }

  /// Whether `number` fits a signed integer of `bytes` bytes.
  @inline(__always)
  private static func fits(_ number: Int128, bytes: Int) -> Bool {
    number >= Int128.min >> (128 - bytes * 8) && number <= Int128.max >> (128 - bytes * 8)
  }

  /// Whether `number` fits an unsigned integer of `bytes` bytes.
  @inline(__always)
  private static func fits(_ number: UInt128, bytes: Int) -> Bool { number <= UInt128.max >> (128 - bytes * 8) }
}
