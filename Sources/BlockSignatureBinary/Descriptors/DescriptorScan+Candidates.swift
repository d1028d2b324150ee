// Candidates: descriptor and literal addresses, from every kind of evidence.

import BlockSignature

extension DescriptorScan {
  /// A pointer slot at `slot` refers to a string containing `@?0`: is it a descriptor's
  /// signature field? Checks both shapes; the words before must look like a descriptor. Not in
  /// a section of variables (`.data`), where no compiler puts a descriptor: a descriptor there
  /// is found only by its symbol or its literal.
  mutating func considerSignatureSlot(_ slot: UInt64, target: UInt64) {
    guard slot % p == 0, let section = image.sectionIndex(containing: slot),
      !image.sections[section].holdsVariables, signatureParses(at: target)
    else { return }
    if slot >= 4 * p, looksLikeDescriptor(slot - 4 * p, hasCopyDispose: true) {
      addStructural(slot - 4 * p, hasCopyDispose: true)
    } else if slot >= 2 * p, looksLikeDescriptor(slot - 2 * p, hasCopyDispose: false) {
      addStructural(slot - 2 * p, hasCopyDispose: false)
    }
  }

  mutating func addStructural(_ address: UInt64, hasCopyDispose: Bool) {
    candidates[address, default: DescriptorCandidate()].evidence.insert(.structural)
    if candidates[address]!.shape == nil {
      candidates[address]!.shape = DescriptorShape(hasCopyDispose: hasCopyDispose)
    }
  }

  func signatureParses(at address: UInt64) -> Bool {
    guard let range = stringRange(at: address), let signature = signature(in: range) else { return false }
    return SignatureDecoding.isBlockSignature(signature)
  }

  /// The signature in the string at file range `range`, parsed once per scan.
  func signature(in range: Range<Int>) -> CompactSignature? {
    signatures.signature(at: range.lowerBound, bytes: UnsafeRawBufferPointer(rebasing: image.bytes.base[range]))
  }

  /// The byte range of the NUL-terminated string at `address`, bounded by its section.
  func stringRange(at address: UInt64) -> Range<Int>? {
    guard let index = image.sectionIndex(containing: address),
      let fileOffset = image.sections[index].fileOffset
    else { return nil }
    let section = image.sections[index]
    let start = fileOffset + (address - section.address)
    return image.bytes.cStringRange(
      at: start, end: fileOffset + section.size, limit: UInt64(options.maximumSignatureLength))
  }

  /// `reserved` is zero (or a small in-descriptor flags word), `size` is plausible and not a
  /// pointer, and with copy/dispose both helpers point at code.
  func looksLikeDescriptor(_ address: UInt64, hasCopyDispose: Bool) -> Bool {
    guard fitsBelowTop(address), let reserved = image.pointer(at: address) else { return false }
    switch reserved {
    case .null: break
    // Apple's in-descriptor flags: a copy of the block flags, so BLOCK_HAS_SIGNATURE is set.
    case .data(let value) where value <= 0xffff_ffff && value & (1 << 30) != 0: break
    case .address(let value)
    where image.rawWordsAreAddresses && image.fixup(at: address) == nil
      && value <= 0xffff_ffff && value & (1 << 30) != 0:
      break
    default: return false
    }
    guard image.fixup(at: address + p) == nil, let size = image.rawWord(at: address + p),
      size >= 3 * p + 8, size <= options.maximumBlockSize
    else { return false }
    // In linked images a "size" that is an address in the image is a pointer, not a size.
    if image.rawWordsAreAddresses && image.sectionIndex(containing: size) != nil { return false }
    if hasCopyDispose {
      guard let copy = image.pointer(at: address + 2 * p), let dispose = image.pointer(at: address + 3 * p),
        image.isCode(copy, functionAddresses: []), image.isCode(dispose, functionAddresses: [])
      else { return false }
    }
    return true
  }

  /// A slot whose pointer is `&_NSConcreteGlobalBlock`: a global literal, unless it is a GOT entry.
  mutating func considerLiteral(at slot: UInt64) {
    guard fitsBelowTop(slot), let sectionIndex = image.sectionIndex(containing: slot) else { return }
    let section = image.sections[sectionIndex]
    if section.isIndirectPointerTable || section.isExecutable { return }
    let flagsOffset = p
    let invokeOffset = p + 8
    let descriptorOffset = 2 * p + 8
    guard let flags = image.u32(at: slot + flagsOffset),
      let descriptor = image.pointer(at: slot + descriptorOffset)
    else {
      warnings.append(
        .pastEndOfSection(
          "global block literal at \(describe(slot))", "runs", section: section.name, size: section.size, offset: slot))
      return
    }
    guard flags & (1 << 28) != 0 else {
      warnings.append(
        .literalNotGlobal(at: describe(slot), flags: flags, offset: slot))
      return
    }
    guard case .address(let descriptorAddress) = descriptor,
      image.sectionIndex(containing: descriptorAddress) != nil
    else {
      warnings.append(
        .literalDescriptorOutsideSections(at: describe(slot), offset: slot))
      return
    }
    var candidate = candidates[descriptorAddress, default: DescriptorCandidate()]
    candidate.evidence.insert(.literal)
    candidate.shape = DescriptorShape(
      hasCopyDispose: flags & (1 << 25) != 0, hasSignature: flags & (1 << 30) != 0)
    candidate.literals.append((slot, flags, image.pointer(at: slot + invokeOffset)))
    candidates[descriptorAddress] = candidate
  }

  /// Literals found by shape only: slot S points at a known descriptor, L = S - (2p + 8) has a
  /// non-null isa, flags with BLOCK_IS_GLOBAL and BLOCK_HAS_SIGNATURE, and an invoke into code.
  mutating func findLiteralsByShape() {
    guard !candidates.isEmpty else { return }
    var slots: [(slot: UInt64, descriptor: UInt64)] = []
    for fixup in image.fixups {
      if case .address(let target) = fixup.value, candidates[target] != nil { slots.append((fixup.slot, target)) }
    }
    if image.rawWordsAreAddresses {
      let low = candidates.keys.min()!
      let high = candidates.keys.max()!
      let wordSize = UInt64(image.pointerSize)
      for section in image.sections where !section.isExecutable && section.holdsProgramData {
        guard let fileOffset = section.fileOffset, section.size >= wordSize else { continue }
        let misalignment = section.address % wordSize
        var delta: UInt64 = misalignment == 0 ? 0 : wordSize - misalignment
        while delta + wordSize <= section.size {
          if let word = image.bytes.word(fileOffset + delta, size: image.pointerSize),
            word >= low, word <= high, candidates[word] != nil
          {
            slots.append((section.address + delta, word))
          }
          delta += wordSize
        }
      }
    }
    let descriptorOffset = 2 * p + 8
    for (slot, descriptor) in slots where slot >= descriptorOffset {
      let literal = slot - descriptorOffset
      guard image.sectionIndex(containing: literal) == image.sectionIndex(containing: slot),
        let isa = image.pointer(at: literal), isa != .null,
        let flags = image.u32(at: literal + p), flags & (1 << 28) != 0, flags & (1 << 30) != 0,
        let invoke = image.pointer(at: literal + p + 8), image.isCode(invoke, functionAddresses: [])
      else { continue }
      candidates[descriptor]!.evidence.insert(.literal)
      candidates[descriptor]!.literals.append((literal, flags, invoke))
      if candidates[descriptor]!.shape == nil {
        candidates[descriptor]!.shape = DescriptorShape(hasCopyDispose: flags & (1 << 25) != 0)
      }
    }
  }
}
