/// The extended layout of a block's captures: which captured words are strong, weak,
/// `__block` (byref) or unretained object pointers.
///
/// clang writes it in one of two forms. A value below `0x1000` is the inline form `0xXYZ`:
/// X strong, Y byref and Z weak pointer-sized captures, in that order. Otherwise it points
/// to a byte string ended by `0x00`, each byte `0xPN` an opcode `P` and `N` = count − 1.
///
///     let inline = ExtendedLayout(inlineValue: 0x210)
///     inline.strongCount  // 2
///     let bytes = try ExtendedLayout(decoding: [0x30, 0x41, 0x00])
///     bytes.instructions  // [strong × 1, byref × 2]
///
/// The corresponding clang ABI field is `Block_descriptor_3.layout` with
/// `BLOCK_HAS_EXTENDED_LAYOUT`.
public struct ExtendedLayout: Hashable, Sendable, CustomStringConvertible {
  /// How the layout was stored.
  public enum Form: String, Hashable, Sendable, Codable {
    /// A NULL layout: the block captures no object pointers.
    case none
    /// The inline `0xXYZ` value.
    case inline
    /// A byte string.
    case bytes
  }

  /// The operation of one layout instruction (the high nibble of a byte).
  public enum Opcode: UInt8, Hashable, Sendable, Codable, CaseIterable {
    /// `N == 0`: halt; the rest of the block holds no pointers.
    case escape = 0
    /// N + 1 bytes of non-object data.
    case nonObjectBytes = 1
    /// N + 1 words of non-object data.
    case nonObjectWords = 2
    /// N + 1 strong object pointers.
    case strong = 3
    /// N + 1 `__block` (byref) pointers.
    case byref = 4
    /// N + 1 weak object pointers.
    case weak = 5
    /// N + 1 unretained object pointers.
    case unretained = 6

    /// The ABI name, e.g. `BLOCK_LAYOUT_STRONG`.
    public var abiName: String {
      switch self {
      case .escape: "BLOCK_LAYOUT_ESCAPE"
      case .nonObjectBytes: "BLOCK_LAYOUT_NON_OBJECT_BYTES"
      case .nonObjectWords: "BLOCK_LAYOUT_NON_OBJECT_WORDS"
      case .strong: "BLOCK_LAYOUT_STRONG"
      case .byref: "BLOCK_LAYOUT_BYREF"
      case .weak: "BLOCK_LAYOUT_WEAK"
      case .unretained: "BLOCK_LAYOUT_UNRETAINED"
      }
    }
  }

  /// One decoded instruction: an opcode and its real count (the stored nibble + 1).
  public struct Instruction: Hashable, Sendable, Codable, CustomStringConvertible {
    /// What the captured words are.
    public var opcode: Opcode
    /// The real count: words, or bytes for ``Opcode/nonObjectBytes``.
    public var count: Int
    /// Creates an instruction.
    public init(opcode: Opcode, count: Int) {
      self.opcode = opcode
      self.count = count
    }
    /// The opcode and the count, e.g. `strong × 2`.
    public var description: String { "\(opcode) × \(count)" }
  }

  /// Why a layout byte string could not be decoded.
  public struct DecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the layout string.
    public enum Kind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
      /// A byte whose opcode (high nibble) is reserved.
      case reservedOpcode
      /// An escape byte (`0x0N`, N ≠ 0) with a count the format reserves.
      case reservedEscapeCount
      /// The string ends without its `0x00` terminator.
      case missingTerminator

      /// What the kind means, in a few words.
      public var description: String {
        switch self {
        case .reservedOpcode: "reserved opcode"
        case .reservedEscapeCount: "reserved escape count"
        case .missingTerminator: "missing terminator"
        }
      }
    }

    /// What is wrong.
    public var kind: Kind
    /// The byte offset of the offending byte in the layout string.
    public var offset: Int
    /// What is wrong, in words.
    public var message: String

    /// Where the problem is: ``range`` in the layout byte string.
    public var location: InputLocation { InputLocation(.extendedLayout, bytes: range) }

    /// The bytes of the layout string the problem covers: the offending byte, or an empty
    /// range at the end of the bytes for ``Kind/missingTerminator``.
    public var range: Range<Int> { kind == .missingTerminator ? offset..<offset : offset..<offset + 1 }

    /// The offset and the message in one line.
    public var description: String { "invalid extended layout at byte \(offset): \(message)" }
  }

  /// How the layout was stored.
  public var form: Form
  /// The instructions, in order (for the inline form: strong, byref, weak; zero counts left out).
  public var instructions: [Instruction]
  /// The raw inline value (inline form) or 0.
  public var inlineValue: UInt

  /// A NULL layout: no object captures.
  public static let none = ExtendedLayout(form: .none, instructions: [], inlineValue: 0)

  init(form: Form, instructions: [Instruction], inlineValue: UInt) {
    self.form = form
    self.instructions = instructions
    self.inlineValue = inlineValue
  }

  /// Decodes the inline form `0xXYZ`. Only the low 12 bits are read.
  public init(inlineValue: UInt) {
    let value = inlineValue & 0xfff
    var instructions: [Instruction] = []
    let counts: [(Opcode, UInt)] = [(.strong, value >> 8), (.byref, (value >> 4) & 0xf), (.weak, value & 0xf)]
    for (opcode, count) in counts where count > 0 {
      instructions.append(Instruction(opcode: opcode, count: Int(count)))
    }
    self.init(form: .inline, instructions: instructions, inlineValue: value)
  }

  /// Decodes a layout byte string, up to and without its `0x00` terminator.
  ///
  /// - Parameter bytes: the layout bytes; decoding stops at the first `0x00`.
  /// - Throws: ``DecodingError`` for a reserved opcode (7–15), an escape with a non-zero
  ///   count, or a string with no terminator.
  /// - Complexity: O(n) in the number of bytes.
  public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
    var instructions: [Instruction] = []
    var offset = 0
    for byte in bytes {
      if byte == 0 {
        self.init(form: .bytes, instructions: instructions, inlineValue: 0)
        return
      }
      let high = byte >> 4
      let low = Int(byte & 0xf)
      guard let opcode = Opcode(rawValue: high) else {
        throw DecodingError(
          kind: .reservedOpcode, offset: offset,
          message: "reserved opcode \(high) in byte \(byte.hexadecimal(digits: 2))")
      }
      if opcode == .escape {
        throw DecodingError(
          kind: .reservedEscapeCount, offset: offset,
          message: "escape with reserved count \(low) in byte \(byte.hexadecimal(digits: 2))")
      }
      instructions.append(Instruction(opcode: opcode, count: low + 1))
      offset += 1
    }
    throw DecodingError(
      kind: .missingTerminator, offset: offset, message: "missing 0x00 terminator after \(offset) bytes")
  }

  /// The number of strong object pointers captured.
  public var strongCount: Int { count(of: .strong) }
  /// The number of `__block` pointers captured.
  public var byrefCount: Int { count(of: .byref) }
  /// The number of weak object pointers captured.
  public var weakCount: Int { count(of: .weak) }
  /// The number of unretained object pointers captured.
  public var unretainedCount: Int { count(of: .unretained) }

  /// The sum of the counts of one opcode.
  public func count(of opcode: Opcode) -> Int {
    instructions.reduce(0) { $0 + ($1.opcode == opcode ? $1.count : 0) }
  }

  /// The form and the instructions in words, e.g. `bytes: strong × 1, byref × 2`,
  /// `inline (empty)`, or `none`.
  public var description: String {
    switch form {
    case .none: "none"
    case .inline, .bytes:
      instructions.isEmpty ? "\(form) (empty)" : "\(form): " + instructions.map(\.description).joined(separator: ", ")
    }
  }
}
