// Decoding the pointer fixups of linked Mach-O images into `PointerFixup`s: chained fixups
// (LC_DYLD_CHAINED_FIXUPS) and classic dyld info (LC_DYLD_INFO[_ONLY] rebase and bind opcodes).
// Every read is bounds-checked; every chain and opcode loop is bounded by the segment it walks.

import BlockSignature

/// A segment of a linked Mach-O image, indexed as dyld indexes them (load-command order).
struct MachOSegment {
  var name: String
  var address: UInt64
  var size: UInt64
  var fileOffset: UInt64
  var fileSize: UInt64
}

/// Decodes fixups of one linked image. Imported symbols are appended to `symbols` as undefined
/// symbols whose names stay in the file bytes.
struct MachOFixupDecoder {
  let bytes: ByteView
  let segments: [MachOSegment]
  var symbols: [ImageSymbol]
  var fixups: [PointerFixup] = []
  var warnings = ScanWarnings()
  /// Name range → symbol index, so that repeated binds share one symbol.
  private var importIndex: [Range<Int>: Int] = [:]
  /// Undefined symbol-table entries by name, built on the first import.
  private var undefinedByName: [String: Int]?
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

  private mutating func warn(_ offset: UInt64?, _ message: String) {
    warnings.append(BinaryScanWarning(offset: offset, message: message))
  }

  /// The symbol index for the import named by the bytes in `nameRange`.
  private mutating func importedSymbol(_ nameRange: Range<Int>) -> Int {
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

  // MARK: Chained fixups

  /// Decodes the chained fixups whose `linkedit_data_command` payload is at `dataOffset`.
  // swiftlint:disable:next function_body_length cyclomatic_complexity
  mutating func decodeChainedFixups(dataOffset: UInt64, dataSize: UInt64) {
    guard bytes.contains(offset: dataOffset, length: dataSize), dataSize >= 28 else {
      warn(
        dataOffset,
        "chained fixups at \(hex(dataOffset)) (size \(hex(dataSize))) go past end of file (size \(hex(bytes.count))) or are too small for a header"
      )
      return
    }
    let end = dataOffset + dataSize
    let version = bytes.u32(dataOffset)!
    let startsOffset = UInt64(bytes.u32(dataOffset + 4)!)
    let importsOffset = UInt64(bytes.u32(dataOffset + 8)!)
    let symbolsOffset = UInt64(bytes.u32(dataOffset + 12)!)
    let importsCount = UInt64(bytes.u32(dataOffset + 16)!)
    let importsFormat = bytes.u32(dataOffset + 20)!
    let symbolsFormat = bytes.u32(dataOffset + 24)!
    guard version == 0 else {
      warn(dataOffset, "chained fixups at \(hex(dataOffset)) have unknown version \(version)")
      return
    }

    // Imports: symbol index (or nil when unreadable) and addend for each ordinal.
    var imports: [(symbol: Int?, addend: Int64)] = []
    let importSize: UInt64
    switch importsFormat {
    case 1: importSize = 4
    case 2: importSize = 8
    case 3: importSize = 16
    default:
      warn(
        dataOffset + 20, "chained fixups at \(hex(dataOffset)) have unknown imports format \(importsFormat)")
      importSize = 0
    }
    if importSize > 0, importsCount > 0 {
      let tableStart = dataOffset &+ importsOffset
      let (tableSize, overflow) = importsCount.multipliedReportingOverflow(by: importSize)
      if overflow || importsOffset > dataSize || tableSize > end - tableStart {
        warn(
          dataOffset + 8,
          "chained fixups imports at \(hex(tableStart)) (\(importsCount) entries) go past end of the fixups data (end \(hex(end)))"
        )
      } else if symbolsFormat != 0 {
        warn(
          dataOffset + 24,
          "chained fixups at \(hex(dataOffset)) have compressed symbol names (format \(symbolsFormat)), which are not decoded"
        )
      } else {
        imports.reserveCapacity(Int(importsCount))
        let namesStart = dataOffset &+ symbolsOffset
        for index in 0..<importsCount {
          let entry = tableStart + index * importSize
          var nameOffset: UInt64
          var addend: Int64 = 0
          switch importsFormat {
          case 1:
            nameOffset = UInt64(bytes.u32(entry)! >> 9)
          case 2:
            nameOffset = UInt64(bytes.u32(entry)! >> 9)
            addend = Int64(Int32(bitPattern: bytes.u32(entry + 4)!))
          default:
            nameOffset = bytes.u64(entry)! >> 32
            addend = Int64(bitPattern: bytes.u64(entry + 8)!)
          }
          guard symbolsOffset <= dataSize, nameOffset < end - namesStart,
            let range = bytes.cStringRange(at: namesStart + nameOffset, end: end, limit: 4096), !range.isEmpty
          else {
            warn(
              entry,
              "chained fixups import \(index) at \(hex(entry)) has a name offset \(hex(nameOffset)) outside the symbol strings"
            )
            imports.append((nil, addend))
            continue
          }
          imports.append((importedSymbol(range), addend))
        }
      }
    }

    // starts_in_image.
    let imageStarts = dataOffset &+ startsOffset
    guard startsOffset <= dataSize - 4, let segmentCount = bytes.u32(imageStarts).map(UInt64.init),
      segmentCount <= (end - imageStarts - 4) / 4
    else {
      warn(
        dataOffset + 4,
        "chained fixups starts at \(hex(imageStarts)) go past end of the fixups data (end \(hex(end)))")
      return
    }
    let base = baseAddress
    for segmentIndex in 0..<segmentCount {
      let infoOffset = UInt64(bytes.u32(imageStarts + 4 + segmentIndex * 4)!)
      guard infoOffset != 0 else { continue }
      let starts = imageStarts &+ infoOffset
      guard infoOffset < end - imageStarts, end - starts >= 22 else {
        warn(
          imageStarts + 4 + segmentIndex * 4,
          "chained starts of segment \(segmentIndex) at \(hex(starts)) go past end of the fixups data (end \(hex(end)))"
        )
        continue
      }
      guard segmentIndex < UInt64(segments.count) else {
        warn(
          starts,
          "chained starts at \(hex(starts)) name segment \(segmentIndex), but the image has \(segments.count)"
        )
        continue
      }
      let segment = segments[Int(segmentIndex)]
      let pageSize = UInt64(bytes.u16(starts + 4)!)
      let pointerFormat = bytes.u16(starts + 6)!
      let pageCount = UInt64(bytes.u16(starts + 20)!)
      guard pageCount <= (end - starts - 22) / 2 else {
        warn(
          starts,
          "chained starts at \(hex(starts)) claim \(pageCount) pages but the fixups data ends at \(hex(end))")
        continue
      }
      guard pageSize >= 8 else {
        warn(starts + 4, "chained starts at \(hex(starts)) have page size \(pageSize)")
        continue
      }
      guard let format = ChainedPointerFormat(rawValue: pointerFormat) else {
        warn(starts + 6, "chained starts at \(hex(starts)) use unsupported pointer format \(pointerFormat)")
        continue
      }
      for page in 0..<pageCount {
        if isOverBudget { return }
        let start = UInt64(bytes.u16(starts + 22 + page * 2)!)
        if start == 0xffff { continue }
        if start & 0x8000 != 0 {
          warn(
            starts + 22 + page * 2,
            "chained starts at \(hex(starts)) page \(page) has multiple starts (arm32 only), not decoded")
          continue
        }
        walkChain(
          segment: segment, pageOffset: page * pageSize, pageSize: pageSize, start: start,
          format: format, imports: imports, base: base)
      }
    }
  }

  /// Follows one page's chain. Deltas only go forward and stay in the page, so the walk ends.
  private mutating func walkChain(
    segment: MachOSegment, pageOffset: UInt64, pageSize: UInt64, start: UInt64,
    format: ChainedPointerFormat, imports: [(symbol: Int?, addend: Int64)], base: UInt64
  ) {
    var inPage = start
    var steps: UInt64 = 0
    while true {
      let segmentOffset = pageOffset + inPage
      let slot = segment.address &+ segmentOffset
      guard inPage + 8 <= pageSize, segmentOffset + 8 <= segment.fileSize,
        let word = bytes.u64(segment.fileOffset &+ segmentOffset),
        segment.fileOffset &+ segmentOffset >= segment.fileOffset
      else {
        warn(
          segment.fileOffset &+ segmentOffset,
          "chained fixup at \(hex(slot)) in segment \(segment.name) runs past its page (size \(hex(pageSize))) or the segment's contents; chain ended"
        )
        return
      }
      guard spend(at: segment.fileOffset &+ segmentOffset) else { return }
      steps += 1
      guard steps <= pageSize / format.stride + 1 else {
        warn(
          segment.fileOffset &+ segmentOffset,
          "chained fixup chain in segment \(segment.name) at \(hex(slot)) does not end; chain ended")
        return
      }
      let decoded = format.decode(word)
      switch decoded.target {
      case .rebase(let target, let isOffset):
        fixups.append(PointerFixup(slot: slot, value: .address(isOffset ? base &+ target : target)))
      case .bind(let ordinal, let addend):
        if ordinal < imports.count, let symbol = imports[ordinal].symbol {
          fixups.append(PointerFixup(slot: slot, value: .symbol(symbol, imports[ordinal].addend &+ addend)))
        } else {
          warn(
            segment.fileOffset &+ segmentOffset,
            "chained bind at \(hex(slot)) uses import \(ordinal), but only \(imports.count) imports are readable"
          )
        }
      }
      guard decoded.next != 0 else { return }
      inPage += decoded.next * format.stride
    }
  }

  // MARK: Classic dyld info

  /// Decodes rebase opcodes at `offset` (size `size`).
  // swiftlint:disable:next cyclomatic_complexity function_body_length
  mutating func decodeRebases(offset: UInt64, size: UInt64) {
    guard size > 0, !isOverBudget else { return }
    guard bytes.contains(offset: offset, length: size) else {
      warn(
        offset,
        "rebase opcodes at \(hex(offset)) (size \(hex(size))) go past end of file (size \(hex(bytes.count)))")
      return
    }
    var reader = OpcodeReader(bytes: bytes, at: offset, end: offset + size)
    var segment: MachOSegment?
    var segmentOffset: UInt64 = 0
    func rebase(_ decoder: inout MachOFixupDecoder, count: UInt64, skip: UInt64, at opcodeOffset: UInt64)
      -> Bool
    {
      guard let segment else {
        decoder.warn(opcodeOffset, "rebase opcode at \(hex(opcodeOffset)) before any segment was set")
        return false
      }
      for _ in 0..<max(count, 0) {
        guard segmentOffset <= segment.fileSize, segment.fileSize - segmentOffset >= 8,
          let word = decoder.bytes.u64(segment.fileOffset &+ segmentOffset)
        else {
          decoder.warn(
            opcodeOffset,
            "rebase opcode at \(hex(opcodeOffset)) points past the contents of segment \(segment.name) (offset \(hex(segmentOffset)))"
          )
          return false
        }
        guard decoder.spend(at: opcodeOffset) else { return false }
        decoder.fixups.append(
          PointerFixup(slot: segment.address &+ segmentOffset, value: word == 0 ? .null : .address(word)))
        let (step, stepOverflow) = skip.addingReportingOverflow(8)
        let (next, overflow) = segmentOffset.addingReportingOverflow(step)
        guard !stepOverflow, !overflow else {
          decoder.warn(opcodeOffset, "rebase opcode at \(hex(opcodeOffset)) skips past the address space")
          return false
        }
        segmentOffset = next
      }
      return true
    }
    while let (opcodeOffset, byte) = reader.nextByte() {
      let immediate = UInt64(byte & 0x0f)
      switch byte & 0xf0 {
      case 0x00: return
      case 0x10: continue
      case 0x20:
        guard let offsetValue = reader.uleb() else { return warnOpcodes(reader, "rebase") }
        guard let named = namedSegment(immediate, by: "rebase", at: opcodeOffset) else { return }
        segment = named
        segmentOffset = offsetValue
      case 0x30:
        guard let delta = reader.uleb() else { return warnOpcodes(reader, "rebase") }
        segmentOffset = segmentOffset &+ delta
      case 0x40:
        segmentOffset = segmentOffset &+ immediate * 8
      case 0x50:
        guard rebase(&self, count: immediate, skip: 0, at: opcodeOffset) else { return }
      case 0x60:
        guard let count = reader.uleb() else { return warnOpcodes(reader, "rebase") }
        guard rebase(&self, count: count, skip: 0, at: opcodeOffset) else { return }
      case 0x70:
        guard let delta = reader.uleb() else { return warnOpcodes(reader, "rebase") }
        guard rebase(&self, count: 1, skip: delta, at: opcodeOffset) else { return }
      case 0x80:
        guard let count = reader.uleb(), let skip = reader.uleb() else {
          return warnOpcodes(reader, "rebase")
        }
        guard rebase(&self, count: count, skip: skip, at: opcodeOffset) else { return }
      default:
        warn(opcodeOffset, "unknown rebase opcode \(hex(UInt64(byte))) at \(hex(opcodeOffset))")
        return
      }
    }
  }

  /// The segment a SET_SEGMENT_AND_OFFSET opcode names, or nil after a warning when the image
  /// has no such segment.
  private mutating func namedSegment(_ index: UInt64, by kind: String, at opcodeOffset: UInt64) -> MachOSegment? {
    guard index < UInt64(segments.count) else {
      warn(
        opcodeOffset,
        "\(kind) opcode at \(hex(opcodeOffset)) names segment \(index), but the image has \(segments.count)")
      return nil
    }
    return segments[Int(index)]
  }

  private mutating func warnOpcodes(_ reader: OpcodeReader, _ kind: String) {
    warn(
      reader.position,
      "\(kind) opcodes at \(hex(reader.position)) run off the end (\(hex(reader.end))) or hold an overflowing ULEB/SLEB"
    )
  }

  /// Decodes bind opcodes at `offset` (size `size`). Lazy bind streams use DONE between entries.
  // swiftlint:disable:next cyclomatic_complexity function_body_length
  mutating func decodeBinds(offset: UInt64, size: UInt64, lazy: Bool) {
    guard size > 0, !isOverBudget else { return }
    guard bytes.contains(offset: offset, length: size) else {
      warn(
        offset,
        "bind opcodes at \(hex(offset)) (size \(hex(size))) go past end of file (size \(hex(bytes.count)))")
      return
    }
    var reader = OpcodeReader(bytes: bytes, at: offset, end: offset + size)
    var segment: MachOSegment?
    var segmentOffset: UInt64 = 0
    var symbolName: Range<Int>?
    var addend: Int64 = 0
    func bind(_ decoder: inout MachOFixupDecoder, count: UInt64, skip: UInt64, at opcodeOffset: UInt64)
      -> Bool
    {
      guard let segment, let symbolName else {
        decoder.warn(
          opcodeOffset, "bind opcode at \(hex(opcodeOffset)) before a segment and a symbol were set")
        return false
      }
      let symbol = decoder.importedSymbol(symbolName)
      for _ in 0..<count {
        guard segmentOffset <= segment.size, segment.size - segmentOffset >= 8 else {
          decoder.warn(
            opcodeOffset,
            "bind opcode at \(hex(opcodeOffset)) points past segment \(segment.name) (offset \(hex(segmentOffset)), size \(hex(segment.size)))"
          )
          return false
        }
        guard decoder.spend(at: opcodeOffset) else { return false }
        decoder.fixups.append(
          PointerFixup(slot: segment.address &+ segmentOffset, value: .symbol(symbol, addend)))
        let (step, stepOverflow) = skip.addingReportingOverflow(8)
        let (next, overflow) = segmentOffset.addingReportingOverflow(step)
        guard !stepOverflow, !overflow else {
          decoder.warn(opcodeOffset, "bind opcode at \(hex(opcodeOffset)) skips past the address space")
          return false
        }
        segmentOffset = next
      }
      return true
    }
    while let (opcodeOffset, byte) = reader.nextByte() {
      let immediate = UInt64(byte & 0x0f)
      switch byte & 0xf0 {
      case 0x00:
        if lazy { continue }
        return
      case 0x10, 0x30, 0x50: continue
      case 0x20:
        guard reader.uleb() != nil else { return warnOpcodes(reader, "bind") }
      case 0x40:
        guard let range = reader.cString() else { return warnOpcodes(reader, "bind") }
        symbolName = range
      case 0x60:
        guard let value = reader.sleb() else { return warnOpcodes(reader, "bind") }
        addend = value
      case 0x70:
        guard let offsetValue = reader.uleb() else { return warnOpcodes(reader, "bind") }
        guard let named = namedSegment(immediate, by: "bind", at: opcodeOffset) else { return }
        segment = named
        segmentOffset = offsetValue
      case 0x80:
        guard let delta = reader.uleb() else { return warnOpcodes(reader, "bind") }
        segmentOffset = segmentOffset &+ delta
      case 0x90:
        guard bind(&self, count: 1, skip: 0, at: opcodeOffset) else { return }
      case 0xa0:
        guard let delta = reader.uleb() else { return warnOpcodes(reader, "bind") }
        guard bind(&self, count: 1, skip: delta, at: opcodeOffset) else { return }
      case 0xb0:
        guard bind(&self, count: 1, skip: immediate * 8, at: opcodeOffset) else { return }
      case 0xc0:
        guard let count = reader.uleb(), let skip = reader.uleb() else { return warnOpcodes(reader, "bind") }
        guard bind(&self, count: count, skip: skip, at: opcodeOffset) else { return }
      default:
        warn(opcodeOffset, "unsupported bind opcode \(hex(UInt64(byte))) at \(hex(opcodeOffset))")
        return
      }
    }
    if !lazy {
      warn(
        reader.position,
        "bind opcodes at \(hex(offset)) run off the end (\(hex(reader.end))) without BIND_OPCODE_DONE")
    }
  }
}

/// Reads opcode streams: bytes, ULEB128/SLEB128 (overflow-checked), C strings, all within `end`.
struct OpcodeReader {
  let bytes: ByteView
  var position: UInt64
  let end: UInt64

  init(bytes: ByteView, at position: UInt64, end: UInt64) {
    self.bytes = bytes
    self.position = position
    self.end = end
  }

  mutating func nextByte() -> (UInt64, UInt8)? {
    guard position < end, let byte = bytes.u8(position) else { return nil }
    defer { position += 1 }
    return (position, byte)
  }

  /// A ULEB128, or nil when it runs off the end or does not fit 64 bits.
  mutating func uleb() -> UInt64? {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while let (_, byte) = nextByte() {
      let bits = UInt64(byte & 0x7f)
      if shift >= 64 || (shift > 0 && bits >> (64 - shift) != 0) { return nil }
      result |= bits << shift
      if byte & 0x80 == 0 { return result }
      shift += 7
    }
    return nil
  }

  /// An SLEB128, or nil when it runs off the end or does not fit 64 bits.
  mutating func sleb() -> Int64? {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while let (_, byte) = nextByte() {
      guard shift < 64 else { return nil }
      result |= UInt64(byte & 0x7f) << shift
      shift += 7
      if byte & 0x80 == 0 {
        if shift < 64, byte & 0x40 != 0 { result |= ~0 << shift }
        return Int64(bitPattern: result)
      }
    }
    return nil
  }

  /// The NUL-terminated string at the current position (range without the NUL).
  mutating func cString() -> Range<Int>? {
    guard let range = bytes.cStringRange(at: position, end: end, limit: 4096) else { return nil }
    position = UInt64(range.upperBound) + 1
    return range
  }
}

/// The chained pointer formats decoded (`DYLD_CHAINED_PTR_*`).
enum ChainedPointerFormat: UInt16 {
  case arm64e = 1
  case pointer64 = 2
  case pointer64Offset = 6
  case arm64eUserland = 9
  case arm64eUserland24 = 12

  enum Target {
    case rebase(UInt64, isOffset: Bool)
    case bind(Int, Int64)
  }

  /// Bytes per unit of `next`.
  var stride: UInt64 { 8 / (self == .pointer64 || self == .pointer64Offset ? 2 : 1) }

  /// Whether rebase targets are offsets from the preferred load address (else addresses).
  var targetsAreOffsets: Bool { self != .pointer64 && self != .arm64e }

  func decode(_ word: UInt64) -> (target: Target, next: UInt64) {
    switch self {
    case .pointer64, .pointer64Offset:
      let next = (word >> 51) & 0xfff
      if word >> 63 == 1 {
        return (.bind(Int(word & 0xff_ffff), Int64((word >> 24) & 0xff)), next)
      }
      return (
        .rebase((word & 0xf_ffff_ffff) | ((word >> 36) & 0xff) << 56, isOffset: targetsAreOffsets), next
      )
    case .arm64e, .arm64eUserland, .arm64eUserland24:
      let next = (word >> 51) & 0x7ff
      let isAuth = word >> 63 == 1
      let isBind = (word >> 62) & 1 == 1
      let ordinalMask: UInt64 = self == .arm64eUserland24 ? 0xff_ffff : 0xffff
      switch (isAuth, isBind) {
      case (false, false):
        return (
          .rebase((word & 0x7ff_ffff_ffff) | ((word >> 43) & 0xff) << 56, isOffset: targetsAreOffsets), next
        )
      case (false, true):
        // 19-bit signed addend at bit 32.
        let raw = (word >> 32) & 0x7_ffff
        let addend = Int64(bitPattern: raw << 45) >> 45
        return (.bind(Int(word & ordinalMask), addend), next)
      case (true, false):
        // Auth rebases always hold an offset from the load address; report it as one.
        return (.rebase(word & 0xffff_ffff, isOffset: true), next)
      case (true, true):
        return (.bind(Int(word & ordinalMask), 0), next)
      }
    }
  }
}
