// Decoding the pointer fixups of linked Mach-O images into `PointerFixup`s: chained fixups
// (MachOFixupDecoder+ChainedFixups) and classic dyld info (MachOFixupDecoder+DyldInfo).
// Every read is bounds-checked; every chain and opcode loop is bounded by the segment it walks.

import BlockSignature

/// Decodes fixups of one linked image. Imported symbols are appended to `symbols` as undefined
/// symbols whose names stay in the file bytes.
struct MachOFixupDecoder {
  let bytes: ByteView
  let segments: [MachOSegment]
  var symbols: [ImageSymbol]
  var fixups: [PointerFixup] = []
  var warnings = ScanWarnings()
  /// Name range → symbol index, so that repeated binds share one symbol.
  var importIndex: [Range<Int>: Int] = [:]
  /// Undefined symbol-table entries by name, built on the first import.
  var undefinedByName: [String: Int]?
  /// Fixups (and chain steps) left before decoding stops: opcodes and chain starts may name
  /// the same slots again and again, or a count of 2^60, so the work is bounded by the file.
  private var budget: Int
  /// Whether the budget ran out (decoding stopped, with one warning).
  private(set) var isOverBudget = false

  /// The budget for a file of `fileSize` bytes: 4 096 plus a quarter of its size. A real image
  /// has at most one pointer slot per 8 bytes, fixed up at most three times (rebase, bind, lazy
  /// bind).
  static func fixupBudget(fileSize: Int) -> Int { fileSize / 4 + 4096 }

  init(bytes: ByteView, segments: [MachOSegment], symbols: [ImageSymbol]) {
    self.bytes = bytes
    self.segments = segments
    self.symbols = symbols
    budget = Self.fixupBudget(fileSize: bytes.count)
  }

  /// Takes one fixup or chain step from the budget; false (after one warning) when none is left.
  mutating func spend(at offset: UInt64) -> Bool {
    if budget > 0 {
      budget -= 1
      return true
    }
    if !isOverBudget {
      isOverBudget = true
      warn(
        offset,
        "pointer fixups at \(hex(offset)) exceed \(Self.fixupBudget(fileSize: bytes.count)) (4096 plus a quarter of the file's \(bytes.count) bytes): the opcodes or chains repeat; the rest are not decoded"
      )
    }
    return false
  }

  /// The preferred load address (the `__TEXT` segment's, else the lowest mapped segment's).
  var baseAddress: UInt64 {
    if let text = segments.first(where: { $0.name == "__TEXT" }) { return text.address }
    return segments.filter { $0.fileSize > 0 }.map(\.address).min() ?? 0
  }

  mutating func warn(_ offset: UInt64?, _ message: String) {
    warnings.append(BinaryScanWarning(kind: .malformedFixups, offset: offset, message: message))
  }

  /// The symbol index for the import named by the bytes in `nameRange`.
  mutating func importedSymbol(_ nameRange: Range<Int>) -> Int {
    if let index = importIndex[nameRange] { return index }
    // Reuse an undefined symbol-table entry of the same name when there is one (names of
    // undefined symbols are indexed once, on the first import).
    if undefinedByName == nil {
      var table: [String: Int] = [:]
      for (index, symbol) in symbols.enumerated() where !symbol.isDefined && !symbol.nameRange.isEmpty {
        table[bytes.string(symbol.nameRange)] = table[bytes.string(symbol.nameRange)] ?? index
      }
      undefinedByName = table
    }
    if let index = undefinedByName?[bytes.string(nameRange)] {
      importIndex[nameRange] = index
      return index
    }
    symbols.append(
      ImageSymbol(
        nameRange: nameRange, address: 0, size: 0, isDefined: false, isFunction: false, isObject: false))
    importIndex[nameRange] = symbols.count - 1
    return symbols.count - 1
  }
}
