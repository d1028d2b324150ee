// Finding every block descriptor in a binary: through global literals, symbols, and a structural
// scan for signature strings and the descriptor-shaped words that point at them. One scan of one
// image; its stages are in the DescriptorScan+… files.

import BlockSignature

/// The descriptor shape: whether `Block_descriptor_2` (copy/dispose) sits before the signature.
struct DescriptorShape: Hashable {
  var hasCopyDispose: Bool
  var hasSignature: Bool = true
}

/// Accumulates what is known about one descriptor address.
struct DescriptorCandidate {
  var evidence: Set<BlockEvidence> = []
  var shape: DescriptorShape?
  var literals: [(address: UInt64, flags: UInt32, invoke: PointerValue?)] = []
  var symbolIndex: Int?
}

/// One scan of one image.
struct DescriptorScan {
  let image: BinaryImage
  let options: BinaryScanOptions
  var warnings: ScanWarnings
  var candidates: [UInt64: DescriptorCandidate] = [:]
  /// Sorted, disjoint `[start, end)` address ranges of strings that contain `@?0`.
  var signatureStrings: [(start: UInt64, end: UInt64)] = []
  var scannedBytes = 0
  let p: UInt64
  /// Each signature string parsed once, however many stages read it.
  let signatures = SignatureMemo()

  init(image: BinaryImage, options: BinaryScanOptions) {
    self.image = image
    self.options = options
    self.warnings = image.warnings
    self.p = UInt64(image.pointerSize)
  }

  /// Whether a literal or descriptor at `address` (at most 8 words) ends below 2^64: a hostile
  /// image can place a section, symbol or fixup at the top of the address space, where the
  /// word-by-word reads would overflow. Such an address is not a candidate.
  func fitsBelowTop(_ address: UInt64) -> Bool { address <= UInt64.max - 8 * p }

  // MARK: Names

  /// Describes an address for messages: the address in linked files, `section+offset` in objects.
  func describe(_ address: UInt64) -> String {
    if image.hasFinalAddresses { return hex(address) }
    if let index = image.sectionIndex(containing: address) {
      return "\(image.sections[index].name)+\(hex(address - image.sections[index].address))"
    }
    return hex(address)
  }

  func symbolNameMatches(_ symbol: ImageSymbol, _ name: StaticString, prefixOnly: Bool) -> Bool {
    let prefix = image.symbolPrefix.utf8
    let range = symbol.nameRange
    let start = range.lowerBound + prefix.count
    guard start <= range.upperBound else { return false }
    // The format's C prefix must be there.
    var index = range.lowerBound
    for byte in prefix {
      guard image.bytes.base[index] == byte else { return false }
      index += 1
    }
    let length = name.utf8CodeUnitCount
    let available = range.upperBound - start
    guard prefixOnly ? available >= length : available == length else { return false }
    let pattern = UnsafeRawBufferPointer(start: name.utf8Start, count: length)
    for offset in 0..<length where image.bytes.base[start + offset] != pattern[offset] { return false }
    return true
  }

  // MARK: Run

  mutating func run(name: String) -> BinaryScanReport {
    // Symbols: the global-block isa, and descriptors by name.
    var isaUndefined = Set<Int>()
    var isaAddresses = Set<UInt64>()
    let symbolsByAddress = definedSymbolsByAddress()
    for (index, symbol) in image.symbols.enumerated() where !symbol.nameRange.isEmpty {
      if symbolNameMatches(symbol, "_NSConcreteGlobalBlock", prefixOnly: false) {
        if symbol.isDefined { isaAddresses.insert(symbol.address) } else { isaUndefined.insert(index) }
      }
      guard symbol.isDefined else { continue }
      if !symbol.isFunction,
        symbolNameMatches(symbol, "__block_descriptor", prefixOnly: true)
          || symbolNameMatches(symbol, "block_descriptor", prefixOnly: true)
      {
        candidates[symbol.address, default: DescriptorCandidate()].evidence.insert(.symbol)
        candidates[symbol.address]!.symbolIndex = index
      }
    }

    collectSignatureStrings()

    // Fixups: literal isas and signature pointers.
    for fixup in image.fixups {
      switch fixup.value {
      case .symbol(let index, let addend) where addend == 0 && isaUndefined.contains(index):
        considerLiteral(at: fixup.slot)
      case .address(let target):
        if isaAddresses.contains(target) { considerLiteral(at: fixup.slot) }
        if isSignatureString(target) { considerSignatureSlot(fixup.slot, target: target) }
      default:
        break
      }
    }
    // Raw words of linked images (non-PIE, GNU ld in-place addends, RELR): same two checks.
    if image.rawWordsAreAddresses { scanRawWords(isaAddresses: isaAddresses) }

    // Without any `_NSConcreteGlobalBlock` symbol (stripped static executables, undecoded
    // binds), find global literals by shape: pointers to a found descriptor whose surrounding
    // words are a literal header with BLOCK_IS_GLOBAL and an invoke pointer into code.
    if isaUndefined.isEmpty && isaAddresses.isEmpty { findLiteralsByShape() }

    // Decode every candidate.
    // With the address each descriptor has in the image's address space (synthetic in
    // relocatable objects, where the report gives none).
    var decoded: [(address: UInt64, block: ScannedBlock)] = []
    decoded.reserveCapacity(candidates.count)
    for (address, candidate) in candidates {
      if let block = decode(address, candidate, symbolsByAddress: symbolsByAddress) { decoded.append((address, block)) }
    }
    decoded.sort {
      ($0.block.descriptor.address ?? 0, $0.block.descriptor.section, $0.block.descriptor.sectionOffset)
        < ($1.block.descriptor.address ?? 0, $1.block.descriptor.section, $1.block.descriptor.sectionOffset)
    }
    var blocks = decoded.map(\.block)
    let stack = Set(decoded.lazy.filter { $0.block.kind == .stack }.map(\.address))
    let sites = constructionSites(of: stack, symbolsByAddress: symbolsByAddress)
    for (index, entry) in decoded.enumerated() { blocks[index].constructionSites = sites[entry.address] ?? [] }
    return BinaryScanReport(
      file: name, format: image.format, architecture: image.architecture, dataModel: image.dataModel,
      kind: image.kind, hasSymbols: image.hasSymbols, blocks: blocks, warnings: warnings.reported,
      scannedByteCount: scannedBytes)
  }
}
