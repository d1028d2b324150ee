// Classic dyld info (LC_DYLD_INFO[_ONLY]): rebase and bind opcode streams.

import BlockSignature

extension MachOFixupDecoder {
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
  mutating func namedSegment(_ index: UInt64, by kind: String, at opcodeOffset: UInt64) -> MachOSegment? {
    guard index < UInt64(segments.count) else {
      warn(
        opcodeOffset,
        "\(kind) opcode at \(hex(opcodeOffset)) names segment \(index), but the image has \(segments.count)")
      return nil
    }
    return segments[Int(index)]
  }

  mutating func warnOpcodes(_ reader: OpcodeReader, _ kind: String) {
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
