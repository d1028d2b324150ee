// The scalar conversions of the typed path: range checks, little-endian bytes, bitfield bits.

extension ValueShape {
  /// `value` as the low `width` bits of a two's-complement integer, or an error when it does
  /// not fit: `300 does not fit unsigned char (0...255)`.
  static func integerBits(_ value: CValue, isSigned: Bool, width: Int, name: String, path: [String]) throws(ValueError)
    -> UInt128
  {
    // An arithmetic shift of Int128.min: negating 1 << 127 would overflow at 128 bits.
    let low: Int128 = isSigned ? Int128.min >> (128 - width) : 0
    let high: UInt128 = isSigned ? (UInt128(1) << (width - 1)) - 1 : (width == 128 ? .max : (UInt128(1) << width) - 1)
    switch value {
    case .signed(let number):
      guard number >= low, number < 0 || UInt128(number) <= high else {
        throw ValueError(path, .outOfRange, "\(number) does not fit \(name) (\(low)...\(high))")
      }
      return UInt128(truncatingIfNeeded: number)
    case .unsigned(let number):
      guard number <= high else {
        throw ValueError(path, .outOfRange, "\(number) does not fit \(name) (\(low)...\(high))")
      }
      return number
    case .bool(let flag):
      return flag ? 1 : 0
    default:
      throw ValueError(path, .typeMismatch, "expected an integer for \(name), got \(value.kindName) \(value)")
    }
  }

  /// A floating-point value (or an integer, converted as C converts it) as a `Double`.
  static func floatingPoint(_ value: CValue, name: String, path: [String]) throws(ValueError) -> Double {
    switch value {
    case .float(let x): return Double(x)
    case .double(let x): return x
    case .signed(let x): return Double(x)
    case .unsigned(let x): return Double(x)
    default:
      #if arch(x86_64) || arch(i386)
        if case .longDouble(let x) = value { return Double(x) }
      #endif
      throw ValueError(path, .typeMismatch, "expected a number for \(name), got \(value.kindName) \(value)")
    }
  }

  static func storePointer(
    _ value: CValue, isCString: Bool, at address: UnsafeMutableRawPointer, strings: inout CStringArena, path: [String]
  ) throws(ValueError) {
    let word: UInt
    switch value {
    case .pointer(let pointer): word = pointer
    case .unsigned(let number) where number <= UInt128(UInt.max): word = UInt(number)
    case .signed(let number) where number >= 0 && number <= Int128(UInt.max): word = UInt(number)
    case .string(nil): word = 0
    case .string(let text?) where isCString:
      guard !text.utf8.contains(0) else {
        throw ValueError(path, .outOfRange, "a C string cannot hold a NUL character")
      }
      word = UInt(bitPattern: strings.copy(text))
    default:
      let expected = isCString ? "a string, an address or null for char *" : "an address or null for a pointer"
      throw ValueError(path, .typeMismatch, "expected \(expected), got \(value.kindName) \(value)")
    }
    address.storeBytes(of: word, toByteOffset: 0, as: UInt.self)
  }

  static func storeBits(_ bits: UInt128, size: Int, at address: UnsafeMutableRawPointer) {
    for index in 0..<size {
      address.storeBytes(of: UInt8(truncatingIfNeeded: bits >> (index * 8)), toByteOffset: index, as: UInt8.self)
    }
  }

  static func loadBits(size: Int, from address: UnsafeRawPointer) -> UInt128 {
    var bits: UInt128 = 0
    for index in 0..<size { bits |= UInt128(address.load(fromByteOffset: index, as: UInt8.self)) << (index * 8) }
    return bits
  }

  static func signExtend(_ bits: UInt128, width: Int) -> UInt128 {
    guard width < 128, width > 0, bits & (UInt128(1) << (width - 1)) != 0 else { return bits }
    return bits | ~((UInt128(1) << width) - 1)
  }

  /// Writes the low `width` bits of `bits` at bit `bitOffset` (little-endian bit order, as clang
  /// allocates bitfields on x86_64 and AArch64), leaving the other bits as they are.
  static func insert(_ bits: UInt128, width: Int, atBit bitOffset: Int, in address: UnsafeMutableRawPointer) {
    for bit in 0..<width {
      let position = bitOffset + bit
      let byte = address.load(fromByteOffset: position / 8, as: UInt8.self)
      let mask = UInt8(1) << (position % 8)
      let set = (bits >> bit) & 1 == 1
      address.storeBytes(of: set ? byte | mask : byte & ~mask, toByteOffset: position / 8, as: UInt8.self)
    }
  }

  static func extract(width: Int, atBit bitOffset: Int, from address: UnsafeRawPointer) -> UInt128 {
    var bits: UInt128 = 0
    for bit in 0..<width {
      let position = bitOffset + bit
      let byte = address.load(fromByteOffset: position / 8, as: UInt8.self)
      if (byte >> (position % 8)) & 1 == 1 { bits |= UInt128(1) << bit }
    }
    return bits
  }
}

extension ValueShape {
  /// Extends a narrow integer result at `address` to a whole `ffi_arg`, as libffi expects a
  /// closure to leave it (and as clang's callers expect: sign or zero extended).
  package func widenResult(at address: UnsafeMutableRawPointer) {
    switch self {
    case .integer(let size, let isSigned, _) where size < 8:
      Self.widenResult(at: address, bytes: size, isSigned: isSigned)
    case .bool: Self.widenResult(at: address, bytes: 1, isSigned: false)
    default: break
    }
  }

  /// Extends the integer in the low `bytes` bytes at `address` (1, 2 or 4; 0 leaves it) to a
  /// whole `ffi_arg`, sign-extended when `isSigned`.
  @inline(__always)
  static func widenResult(at address: UnsafeMutableRawPointer, bytes: Int, isSigned: Bool) {
    switch (bytes, isSigned) {
    case (0, _): break
    case (1, true): address.storeBytes(of: Int64(address.load(as: Int8.self)), as: Int64.self)
    case (1, false): address.storeBytes(of: UInt64(address.load(as: UInt8.self)), as: UInt64.self)
    case (2, true): address.storeBytes(of: Int64(address.load(as: Int16.self)), as: Int64.self)
    case (2, false): address.storeBytes(of: UInt64(address.load(as: UInt16.self)), as: UInt64.self)
    case (_, true): address.storeBytes(of: Int64(address.load(as: Int32.self)), as: Int64.self)
    case (_, false): address.storeBytes(of: UInt64(address.load(as: UInt32.self)), as: UInt64.self)
    }
  }

  /// The bytes a result buffer must have zeroed before a handler writes it: the value's own,
  /// or a whole `ffi_arg` for a narrow integer.
  package var resultBytes: Int {
    switch self {
    case .integer(let size, _, _) where size < 8: 8
    case .bool: 8
    default: size
    }
  }
}
