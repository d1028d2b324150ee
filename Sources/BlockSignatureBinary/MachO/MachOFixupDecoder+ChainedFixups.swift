// Chained fixups (LC_DYLD_CHAINED_FIXUPS): starts per page, then chains of encoded pointers.

import BlockSignature

extension MachOFixupDecoder {
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
  mutating func walkChain(
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
}
