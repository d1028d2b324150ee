// Signature strings: where the strings that contain `@?0` are, and raw words pointing at them.

import BlockSignature
import BlockSignatureSystem

extension DescriptorScan {
  /// Finds every NUL-terminated string containing `@?0` in allocated, non-executable sections.
  mutating func collectSignatureStrings() {
    guard let base = image.bytes.base.baseAddress else { return }
    for section in image.sections where !section.isExecutable && section.holdsProgramData {
      guard let fileOffset = section.fileOffset else { continue }
      scannedBytes += Int(section.size)
      let start = Int(fileOffset)
      let end = start + Int(section.size)
      var position = start
      do {
        while position < end, let hit = system_find3(base + position, end - position, 0x40, 0x3f, 0x30) {
          let hitOffset = base.distance(to: hit)
          // Walk back to the string start (bounded), forward to its NUL (bounded).
          var stringStart = hitOffset
          let lowest = max(start, hitOffset - options.maximumSignatureLength)
          while stringStart > lowest && image.bytes.base[stringStart - 1] != 0 { stringStart -= 1 }
          let limit = min(end, hitOffset + options.maximumSignatureLength)
          guard let nul = system_memchr(base + hitOffset, 0, limit - hitOffset) else {
            position = hitOffset + 3
            continue
          }
          let stringEnd = base.distance(to: nul)
          let startAddress = section.address + UInt64(stringStart - start)
          signatureStrings.append((startAddress, section.address + UInt64(stringEnd - start)))
          position = stringEnd + 1
        }
      }
    }
    signatureStrings.sort { $0.start < $1.start }
  }

  /// Whether `address` lies inside (or at the start of) a string containing `@?0`.
  @inline(__always)
  func isSignatureString(_ address: UInt64) -> Bool {
    let low = signatureStrings.partitionPoint { $0.start <= address }
    guard low > 0 else { return false }
    let range = signatureStrings[low - 1]
    return address < range.end
  }

  /// Checks every pointer-aligned word of the allocated non-executable sections.
  mutating func scanRawWords(isaAddresses: Set<UInt64>) {
    let lowest = signatureStrings.first?.start ?? UInt64.max
    let highest = signatureStrings.last?.end ?? 0
    let isaLow = isaAddresses.min() ?? UInt64.max
    let isaHigh = isaAddresses.max() ?? 0
    let wordSize = image.pointerSize
    let order = image.bytes.order
    guard let base = image.bytes.base.baseAddress else { return }
    var literalSlots: [UInt64] = []
    var signatureSlots: [(UInt64, UInt64)] = []
    for section in image.sections where !section.isExecutable && section.holdsProgramData {
      guard let fileOffset = section.fileOffset, section.size >= UInt64(wordSize) else { continue }
      // First aligned address in the section.
      let misalignment = section.address % UInt64(wordSize)
      var delta: UInt64 = misalignment == 0 ? 0 : UInt64(wordSize) - misalignment
      let last = section.size - UInt64(wordSize)
      let start = base + Int(fileOffset)
      while delta <= last {
        let word: UInt64
        if wordSize == 8 {
          let raw = start.loadUnaligned(fromByteOffset: Int(delta), as: UInt64.self)
          word = order == .little ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw)
        } else {
          let raw = start.loadUnaligned(fromByteOffset: Int(delta), as: UInt32.self)
          word = UInt64(order == .little ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw))
        }
        if word >= lowest && word < highest && isSignatureString(word) {
          signatureSlots.append((section.address + delta, word))
        } else if word >= isaLow && word <= isaHigh && isaAddresses.contains(word) {
          literalSlots.append(section.address + delta)
        }
        delta += UInt64(wordSize)
      }
    }
    for (slot, target) in signatureSlots where image.fixup(at: slot) == nil {
      considerSignatureSlot(slot, target: target)
    }
    for slot in literalSlots where image.fixup(at: slot) == nil { considerLiteral(at: slot) }
  }
}
