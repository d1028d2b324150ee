// Writing a CValue into the bytes of its C type and reading one back, checked against the shape.
// Memory is little-endian on every target this module builds for (x86_64, AArch64).

import BlockSignatureRuntime

/// C strings made for one call, freed together when it ends; or, with a table, interned in it.
struct CStringArena: ~Copyable {
  private var pointers: [UnsafeMutablePointer<CChar>] = []
  private let table: CStringTable?

  /// An arena whose strings die with it, or that interns every string in `table`.
  init(interningIn table: CStringTable? = nil) {
    self.table = table
  }

  /// A NUL-terminated copy of `text` that lives until the arena (or its table) is released.
  mutating func copy(_ text: String) -> UnsafeMutablePointer<CChar> {
    if let table { return table.pointer(for: text) }
    let pointer = Self.duplicate(text)
    pointers.append(pointer)
    return pointer
  }

  /// Whether the arena made no string of its own.
  var isEmpty: Bool { pointers.isEmpty }

  /// A new NUL-terminated copy of `text`.
  static func duplicate(_ text: String) -> UnsafeMutablePointer<CChar> {
    let utf8 = Array(text.utf8)
    let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count + 1)
    utf8.withUnsafeBufferPointer { bytes in
      for index in bytes.indices { pointer[index] = CChar(bitPattern: bytes[index]) }
    }
    pointer[utf8.count] = 0
    return pointer
  }

  deinit {
    for pointer in pointers { pointer.deallocate() }
  }
}

extension ValueShape {
  /// Writes `value` at `address` (zeroed beforehand by the caller, so padding stays 0).
  func store(
    _ value: CValue, at address: UnsafeMutableRawPointer, strings: inout CStringArena, path: [String] = []
  ) throws(ValueError) {
    switch self {
    case .empty:
      guard case .void = value else { throw ValueError(path, .typeMismatch, "expected no value, got \(value)") }
    case .integer(let size, let isSigned, let name):
      let bits = try Self.integerBits(value, isSigned: isSigned, width: size * 8, name: name, path: path)
      Self.storeBits(bits, size: size, at: address)
    case .bool:
      switch value {
      case .bool(let flag): address.storeBytes(of: flag ? 1 : 0, as: UInt8.self)
      case .signed(0), .unsigned(0): address.storeBytes(of: 0, as: UInt8.self)
      case .signed(1), .unsigned(1): address.storeBytes(of: 1, as: UInt8.self)
      default: throw ValueError(path, .typeMismatch, "expected true or false for _Bool, got \(value)")
      }
    case .float:
      address.storeBytes(of: Float(try Self.floatingPoint(value, name: "float", path: path)), as: Float.self)
    case .double:
      address.storeBytes(of: try Self.floatingPoint(value, name: "double", path: path), as: Double.self)
    case .longDouble:
      #if arch(x86_64) || arch(i386)
        let extended: Float80 =
          if case .longDouble(let x) = value { x } else {
            Float80(try Self.floatingPoint(value, name: "long double", path: path))
          }
        address.storeBytes(of: extended, as: Float80.self)
      #endif
    case .complex(let element, let elementSize):
      let parts: (CValue, CValue)
      switch value {
      case .complex(let real, let imaginary): parts = (real, imaginary)
      case .aggregate(let pair) where pair.count == 2: parts = (pair[0], pair[1])
      default: throw ValueError(path, .typeMismatch, "expected [real, imaginary] for a _Complex value, got \(value)")
      }
      try element.store(parts.0, at: address, strings: &strings, path: path + ["real part"])
      try element.store(parts.1, at: address + elementSize, strings: &strings, path: path + ["imaginary part"])
    case .pointer(let isCString):
      try Self.storePointer(value, isCString: isCString, at: address, strings: &strings, path: path)
    case .record(_, let members):
      guard case .aggregate(let values) = value else {
        throw ValueError(path, .typeMismatch, "expected the \(members.count) members of a structure, got \(value)")
      }
      guard values.count == members.count else {
        throw ValueError(path, .typeMismatch, "expected \(members.count) members, got \(values.count)")
      }
      for (index, member) in members.enumerated() {
        try member.shape.store(
          values[index], at: address + member.offset, strings: &strings, path: path + ["member \(index)"])
      }
    case .array(let count, let stride, let element):
      guard case .aggregate(let values) = value else {
        throw ValueError(path, .typeMismatch, "expected the \(count) elements of an array, got \(value)")
      }
      guard values.count == count else {
        throw ValueError(path, .typeMismatch, "expected \(count) elements, got \(values.count)")
      }
      for index in 0..<count {
        try element.store(
          values[index], at: address + index * stride, strings: &strings, path: path + ["element \(index)"])
      }
    case .union(_, let members):
      guard case .union(let member, let inner) = value else {
        throw ValueError(path, .typeMismatch, "expected {\"member\": K, \"value\": V} for a union, got \(value)")
      }
      guard members.indices.contains(member) else {
        throw ValueError(path, .outOfRange, "the union has \(members.count) members; there is no member \(member)")
      }
      try members[member].store(inner, at: address, strings: &strings, path: path + ["member \(member)"])
    case .bitfield(let bitOffset, let width, let isSigned):
      let name = "a \(isSigned ? "signed" : "unsigned") \(width)-bit bitfield"
      let bits = try Self.integerBits(value, isSigned: isSigned, width: width, name: name, path: path)
      Self.insert(bits, width: width, atBit: bitOffset, in: address)
    }
  }

  /// The most bytes of a returned C string read (a longer one is cut there).
  static let cStringLimit = 1 << 24

  /// Reads the value at `address`. A `char *` that is not NULL is read as a C string, or is
  /// ``CValue/pointer(_:)`` when its memory cannot be read. A union reads as its first member.
  package func load(from address: UnsafeRawPointer) -> CValue {
    do {
      return try load(from: address, path: [], unionMember: nil)
    } catch {
      preconditionFailure("a load with no member choice failed: \(error.message)")
    }
  }

  /// Reads the value at `address`, each union as the member `unionMember` picks for its path
  /// inside the value (`[]` for the value itself, `["member 1", "element 0"]` inside), or as
  /// its first member without a chooser.
  ///
  /// - Throws: ``ValueError`` when `unionMember` picks a member the union does not have.
  func load(from address: UnsafeRawPointer, path: [String], unionMember: ((_ path: [String]) -> Int)?)
    throws(ValueError) -> CValue
  {
    // Paths are built only for a chooser, which is the only reader of them.
    func inner(_ step: @autoclosure () -> String) -> [String] { unionMember == nil ? [] : path + [step()] }
    switch self {
    case .empty: return .void
    case .integer(let size, let isSigned, _):
      let bits = Self.loadBits(size: size, from: address)
      return isSigned ? .signed(Int128(truncatingIfNeeded: Self.signExtend(bits, width: size * 8))) : .unsigned(bits)
    case .bool: return .bool(address.load(as: UInt8.self) != 0)
    case .float: return .float(address.loadUnaligned(as: Float.self))
    case .double: return .double(address.loadUnaligned(as: Double.self))
    case .longDouble:
      #if arch(x86_64) || arch(i386)
        return .longDouble(address.loadUnaligned(as: Float80.self))
      #else
        return .void
      #endif
    case .complex(let element, let elementSize):
      return .complex(
        real: try element.load(from: address, path: inner("real part"), unionMember: unionMember),
        imaginary: try element.load(
          from: address + elementSize, path: inner("imaginary part"), unionMember: unionMember))
    case .pointer(let isCString):
      let word = address.loadUnaligned(as: UInt.self)
      guard isCString else { return .pointer(word) }
      guard word != 0 else { return .string(nil) }
      // A checked read: a `char *` declared over another type may hold any address. One
      // that cannot be read comes back as the address.
      switch ProcessMemory().cString(at: word, limit: Self.cStringLimit) {
      case .success(let string): return .string(String(decoding: string.bytes, as: UTF8.self))
      case .failure: return .pointer(word)
      }
    case .record(_, let members):
      var values: [CValue] = []
      values.reserveCapacity(members.count)
      for (index, member) in members.enumerated() {
        values.append(
          try member.shape.load(from: address + member.offset, path: inner("member \(index)"), unionMember: unionMember)
        )
      }
      return .aggregate(values)
    case .array(let count, let stride, let element):
      var values: [CValue] = []
      values.reserveCapacity(count)
      for index in 0..<count {
        values.append(
          try element.load(from: address + index * stride, path: inner("element \(index)"), unionMember: unionMember))
      }
      return .aggregate(values)
    case .union(_, let members):
      guard !members.isEmpty else { return .aggregate([]) }
      let chosen = unionMember?(path) ?? 0
      guard members.indices.contains(chosen) else {
        throw ValueError(path, .outOfRange, "the union has \(members.count) members; there is no member \(chosen)")
      }
      return .union(
        member: chosen,
        value: try members[chosen].load(from: address, path: inner("member \(chosen)"), unionMember: unionMember))
    case .bitfield(let bitOffset, let width, let isSigned):
      let bits = Self.extract(width: width, atBit: bitOffset, from: address)
      return isSigned ? .signed(Int128(truncatingIfNeeded: Self.signExtend(bits, width: width))) : .unsigned(bits)
    }
  }
}

/// A value that does not fit its shape, and where inside the argument.
package struct ValueError: Error {
  package var path: [String]
  package var kind: InvocationError.Kind
  package var message: String

  init(_ path: [String], _ kind: InvocationError.Kind, _ message: String) {
    self.path = path
    self.kind = kind
    self.message = message
  }
}
