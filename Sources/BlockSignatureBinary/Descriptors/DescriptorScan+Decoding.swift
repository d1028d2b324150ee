// Decoding each candidate into a ScannedBlock.

import BlockSignature

extension DescriptorScan {
  func symbolName(at address: UInt64, in sorted: [(address: UInt64, index: Int)], preferFunction: Bool) -> String? {
    let low = sorted.partitionPoint { $0.address < address }
    var best: (score: Int, name: String)?
    var index = low
    while index < sorted.count && sorted[index].address == address {
      let symbol = image.symbols[sorted[index].index]
      let name = image.name(of: symbol)
      var score = 0
      if preferFunction ? symbol.isFunction : symbol.isObject { score += 4 }
      if !name.hasPrefix("ltmp") && !name.hasPrefix("$") && !name.hasPrefix(".L") { score += 2 }
      // A byte search: `String.contains(_:)` (string processing) costs tens of thousands of
      // instructions a call.
      if !preferFunction, name.utf8.count >= 16, Self.containsBlockDescriptor(name.utf8) { score += 1 }
      if best == nil || score > best!.score { best = (score, name) }
      index += 1
    }
    return best?.name
  }

  /// Whether `name` contains `block_descriptor`.
  static func containsBlockDescriptor(_ name: String.UTF8View) -> Bool {
    let needle = "block_descriptor".utf8
    var rest = name[...]
    while let start = rest.firstIndex(of: UInt8(ascii: "b")) {
      if rest[start...].starts(with: needle) { return true }
      rest = rest[rest.index(after: start)...]
    }
    return false
  }

  func codeReference(_ value: PointerValue?, _ sorted: [(address: UInt64, index: Int)]) -> CodeReference? {
    switch value {
    case .address(let address)?:
      return CodeReference(
        address: image.hasFinalAddresses ? address : nil,
        symbol: symbolName(at: address, in: sorted, preferFunction: true))
    case .symbol(let index, _)?:
      return CodeReference(address: nil, symbol: image.name(of: image.symbols[index]))
    case .data(let value)?:
      return CodeReference(address: image.hasFinalAddresses ? value : nil, symbol: nil)
    case .null?, nil:
      return nil
    }
  }

  mutating func decode(
    _ address: UInt64, _ candidate: DescriptorCandidate, symbolsByAddress: [(address: UInt64, index: Int)]
  ) -> ScannedBlock? {
    guard let sectionIndex = image.sectionIndex(containing: address) else {
      warnings.append(
        .descriptorOutsideSections(at: describe(address), offset: address))
      return nil
    }
    guard fitsBelowTop(address) else {
      warnings.append(
        .descriptorAtTopOfAddressSpace(at: describe(address), offset: address))
      return nil
    }
    let section = image.sections[sectionIndex]
    var shape = candidate.shape
    if shape == nil {
      // Found by symbol only: infer the shape from the words.
      if looksLikeDescriptor(address, hasCopyDispose: true) {
        shape = DescriptorShape(hasCopyDispose: true)
      } else if looksLikeDescriptor(address, hasCopyDispose: false) {
        shape = DescriptorShape(hasCopyDispose: false)
      } else {
        warnings.append(
          .symbolNotADescriptor(
            image.name(of: image.symbols[candidate.symbolIndex!]), at: describe(address), offset: address))
        return nil
      }
    }
    let shapeValue = shape!
    // Swift-made descriptors end at the signature (no layout word): require only up to it.
    let partCount: UInt64 = 2 + (shapeValue.hasCopyDispose ? 2 : 0) + (shapeValue.hasSignature ? 1 : 0)
    let (end, overflow) = (address - section.address).addingReportingOverflow(partCount * p)
    if overflow || end > section.size {
      warnings.append(
        .pastEndOfSection(
          "descriptor at \(describe(address))", "points", section: section.name, size: section.size, offset: address))
      return nil
    }
    guard let size = image.rawWord(at: address + p) else { return nil }
    var copyHelper: CodeReference?
    var disposeHelper: CodeReference?
    var next = address + 2 * p
    if shapeValue.hasCopyDispose {
      copyHelper = codeReference(image.pointer(at: next), symbolsByAddress)
      disposeHelper = codeReference(image.pointer(at: next + p), symbolsByAddress)
      next += 2 * p
    }
    var signature: String?
    var parsedSignature: CompactSignature?
    var extendedLayout: String?
    if shapeValue.hasSignature {
      switch image.pointer(at: next) {
      case .address(let target)?:
        if let range = stringRange(at: target) {
          signature = image.bytes.string(range)
          parsedSignature = self.signature(in: range)
          if !(parsedSignature.map(SignatureDecoding.isBlockSignature) ?? false) {
            warnings.append(
              .signatureDoesNotParse(signature!, descriptor: describe(address), offset: address))
          }
        } else {
          warnings.append(
            .signatureNotAString(descriptor: describe(address), target: describe(target), offset: address))
        }
      case .symbol(let index, _)?:
        warnings.append(
          .signatureUndefinedSymbol(
            descriptor: describe(address), symbol: image.name(of: image.symbols[index]), offset: address))
      case .data(let value)?:
        warnings.append(
          .signatureNotAnAddress(descriptor: describe(address), value: value, offset: address))
      case .null?, nil:
        break
      }
      if candidate.literals.contains(where: { $0.flags & (1 << 31) != 0 }) {
        switch image.pointer(at: next + p) {
        case .data(let value)?,
          .address(let value)? where value < 0x1000:
          extendedLayout = hex(value)
        case .address(let target)?:
          if let range = stringRange(at: target) {
            extendedLayout =
              range.isEmpty
              ? ""
              : image.bytes.base[range].map { $0.hexadecimal(digits: 2, prefixed: false) }.joined()
          }
        case .null?:
          extendedLayout = "0x0"
        default:
          break
        }
      }
    }
    let descriptorSymbol =
      candidate.symbolIndex.map { image.name(of: image.symbols[$0]) }
      ?? symbolName(at: address, in: symbolsByAddress, preferFunction: false)
    let literals = candidate.literals.sorted { $0.address < $1.address }.compactMap { literal -> GlobalBlockLiteral? in
      guard
        let location = image.location(
          of: literal.address, symbol: symbolName(at: literal.address, in: symbolsByAddress, preferFunction: false))
      else { return nil }
      return GlobalBlockLiteral(
        location: location, flags: literal.flags,
        invoke: codeReference(literal.invoke, symbolsByAddress) ?? CodeReference(address: nil, symbol: nil))
    }
    return ScannedBlock(
      descriptor: image.location(of: address, symbol: descriptorSymbol)!,
      kind: literals.isEmpty ? .stack : .global,
      size: size,
      copyHelper: copyHelper,
      disposeHelper: disposeHelper,
      signature: signature,
      declaration: parsedSignature?.tree.cDeclaration(for: image.dataModel),
      extendedLayout: extendedLayout,
      literals: literals,
      evidence: candidate.evidence.sorted())
  }
}
