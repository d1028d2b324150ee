// Finding every block descriptor in a binary: through global literals, symbols, and a structural
// scan for signature strings and the descriptor-shaped words that point at them.

import BlockSignature

/// Options of a binary scan.
public struct BinaryScanOptions: Hashable, Sendable {
  /// The longest signature string considered, in bytes.
  public var maximumSignatureLength: Int = 4096
  /// The largest block literal size accepted in a descriptor.
  public var maximumBlockSize: UInt64 = 1 << 24

  /// Creates the default options.
  public init() {}
}

/// Scans ELF and Mach-O binaries (and `ar` archives of them) for clang blocks.
///
///     let reports = try BinaryScanner.scan(fileAt: "libdispatch.so")
///     for block in reports[0].blocks { print(block.signature ?? "?") }
///
/// - Complexity: one pass over the allocated sections, O(n) in their size plus
///   O(r log r) in the number of relocations.
public enum BinaryScanner {
  /// Scans the file at `path` (mapped, never read into memory).
  ///
  /// - Returns: one report per binary: one for an ELF or Mach-O file, one per object member of an
  ///   archive.
  /// - Throws: `BinaryScanError` when the file cannot be read or is not a binary it can scan.
  public static func scan(
    fileAt path: String, options: BinaryScanOptions = BinaryScanOptions()
  ) throws(BinaryScanError) -> [BinaryScanReport] {
    let file = try MappedFile(path: path)
    return try withExtendedLifetime(file) { () throws(BinaryScanError) -> [BinaryScanReport] in
      try scan(bytes: file.bytes, name: path, options: options)
    }
  }

  /// Scans a binary already in memory. `name` is used in reports and messages.
  public static func scan(
    bytes: UnsafeRawBufferPointer, name: String, options: BinaryScanOptions = BinaryScanOptions()
  ) throws(BinaryScanError) -> [BinaryScanReport] {
    if ArchiveReader.isArchive(bytes) {
      var reports: [BinaryScanReport] = []
      for member in try ArchiveReader.members(of: bytes) {
        let memberBytes = UnsafeRawBufferPointer(rebasing: bytes[member.range])
        guard ELFLoader.isELF(memberBytes) || MachOLoader.isMachO(memberBytes) else { continue }
        do {
          reports.append(contentsOf: try scan(bytes: memberBytes, name: "\(name)(\(member.name))", options: options))
        } catch {
          // The member's offset may be a wild value a header claimed (e_shoff near 2^64): it
          // has no archive offset then, and the message still names it.
          let base = UInt64(member.range.lowerBound)
          throw BinaryScanError(
            error.kind,
            offset: error.offset.flatMap { offset in
              let (archiveOffset, overflow) = offset.addingReportingOverflow(base)
              return overflow ? nil : archiveOffset
            },
            "archive member \(member.name) at \(hex(member.range.lowerBound)): \(error.message)")
        }
      }
      return reports
    }
    let image: BinaryImage
    if ELFLoader.isELF(bytes) {
      image = try ELFLoader.load(bytes)
    } else if MachOLoader.isMachO(bytes) {
      image = try MachOLoader.load(bytes)
    } else {
      throw BinaryScanError(.unrecognizedFormat, offset: 0, "not an ELF, Mach-O or archive file")
    }
    var scanner = DescriptorScan(image: image, options: options)
    return [scanner.run(name: name)]
  }

  /// Whether `bytes` starts like a file the scanner reads (ELF, Mach-O, `ar` archive).
  public static func isRecognizedBinary(_ bytes: UnsafeRawBufferPointer) -> Bool {
    ELFLoader.isELF(bytes) || MachOLoader.isMachO(bytes) || ArchiveReader.isArchive(bytes)
  }
}

/// The descriptor shape: whether `Block_descriptor_2` (copy/dispose) sits before the signature.
private struct DescriptorShape: Hashable {
  var hasCopyDispose: Bool
  var hasSignature: Bool = true
}

/// Accumulates what is known about one descriptor address.
private struct DescriptorCandidate {
  var evidence: Set<BlockEvidence> = []
  var shape: DescriptorShape?
  var literals: [(address: UInt64, flags: UInt32, invoke: PointerValue?)] = []
  var symbolIndex: Int?
}

/// One scan of one image.
private struct DescriptorScan {
  let image: BinaryImage
  let options: BinaryScanOptions
  var warnings: ScanWarnings
  var candidates: [UInt64: DescriptorCandidate] = [:]
  /// Sorted, disjoint `[start, end)` address ranges of strings that contain `@?0`.
  var signatureStrings: [(start: UInt64, end: UInt64)] = []
  var scannedBytes = 0
  let p: UInt64

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

  // MARK: Signature strings

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

  // MARK: Candidates

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
    guard let range = stringRange(at: address) else { return false }
    return SignatureDecoding.isBlockSignature(UnsafeRawBufferPointer(rebasing: image.bytes.base[range]))
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
        BinaryScanWarning(
          offset: slot,
          message:
            "global block literal at \(describe(slot)) runs past end of section \(section.name) (size \(hex(section.size)))"
        ))
      return
    }
    guard flags & (1 << 28) != 0 else {
      warnings.append(
        BinaryScanWarning(
          offset: slot,
          message: "global block literal at \(describe(slot)) has flags \(hex(UInt64(flags))) without BLOCK_IS_GLOBAL"))
      return
    }
    guard case .address(let descriptorAddress) = descriptor,
      image.sectionIndex(containing: descriptorAddress) != nil
    else {
      warnings.append(
        BinaryScanWarning(
          offset: slot,
          message:
            "global block literal at \(describe(slot)) has a descriptor pointer that points outside every section"))
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

  // MARK: Construction sites

  /// Reads the code for the places that build the stack blocks (``BlockConstructionSite``).
  /// The construction sites of the descriptors at `descriptors` (addresses in the image's
  /// space), by descriptor, each list by address.
  mutating func constructionSites(
    of descriptors: Set<UInt64>, symbolsByAddress: [(address: UInt64, index: Int)]
  ) -> [UInt64: [BlockConstructionSite]] {
    var sites: [UInt64: [BlockConstructionSite]] = [:]
    guard ConstructionSiteScan.supports(image), !descriptors.isEmpty else { return sites }
    let scan = ConstructionSiteScan(image: image)
    // The function that contains `pc`: among the symbols starting at or before it (a few
    // back: local labels and aliases may come between), a sized function that reaches it.
    func function(containing pc: UInt64) -> ImageSymbol? {
      let low = symbolsByAddress.partitionPoint { $0.address <= pc }
      let section = image.sectionIndex(containing: pc)
      for entry in symbolsByAddress[max(0, low - 16)..<low].reversed() {
        let symbol = image.symbols[entry.index]
        guard symbol.isFunction else { continue }
        if symbol.size > 0 {
          if pc - symbol.address < symbol.size { return symbol }
          continue
        }
        // No size (Mach-O has none): the closest function before, in the same section, that is
        // not an assembler's temporary label (`ltmp0`, `.L…`, `$x`).
        let name = image.name(of: symbol)
        if name.hasPrefix("ltmp") || name.hasPrefix(".L") || name.hasPrefix("$") || name.hasPrefix("L") { continue }
        return image.sectionIndex(containing: symbol.address) == section ? symbol : nil
      }
      return nil
    }
    var loads = scan.loads(of: descriptors, limit: ConstructionSiteScan.siteLimit)
    if loads.count > ConstructionSiteScan.siteLimit {
      loads.removeLast(loads.count - ConstructionSiteScan.siteLimit)
      warnings.append(
        BinaryScanWarning(
          offset: loads.last?.pc,
          message:
            "more than \(ConstructionSiteScan.siteLimit) loads of a block descriptor in the code; sites after \(describe(loads.last?.pc ?? 0)) are not listed"
        ))
    }
    var matcher = ConstructionSiteScan.Matcher(scan: scan)
    defer {
      if matcher.untraced > 0 {
        warnings.append(
          BinaryScanWarning(
            offset: nil,
            message:
              "\(matcher.untraced) construction sites were not traced back for their invoke: at most \(ConstructionSiteScan.traceLimit) are"
          ))
      }
    }
    for load in loads {
      let enclosing = function(containing: load.pc)
      let found = matcher.invoke(
        of: load, functionStart: enclosing?.address,
        functionEnd: enclosing.flatMap { $0.size > 0 ? $0.address &+ $0.size : nil })
      guard let location = image.location(of: load.pc, symbol: nil) else { continue }
      sites[load.value, default: []].append(
        BlockConstructionSite(
          location: location, function: enclosing.map { image.name(of: $0) },
          invoke: found.map {
            CodeReference(
              address: image.hasFinalAddresses ? $0.load.value : nil,
              symbol: image.externalSymbol(at: $0.load.value).map { image.name(of: image.symbols[$0]) }
                ?? symbolName(at: $0.load.value, in: symbolsByAddress, preferFunction: true))
          },
          invokeMatch: found?.match))
    }
    return sites
  }

  /// The image's defined symbols by address, with their indices (what naming and function
  /// lookups search).
  func definedSymbolsByAddress() -> [(address: UInt64, index: Int)] {
    image.symbols.enumerated().lazy.filter { $0.element.isDefined && !$0.element.nameRange.isEmpty }
      .map { ($0.element.address, $0.offset) }.sorted { $0.address < $1.address }
  }

  // MARK: Decoding

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
        BinaryScanWarning(offset: address, message: "descriptor at \(describe(address)) is outside every section"))
      return nil
    }
    guard fitsBelowTop(address) else {
      warnings.append(
        BinaryScanWarning(
          offset: address, message: "descriptor at \(describe(address)) is at the top of the address space"))
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
          BinaryScanWarning(
            offset: address,
            message:
              "symbol \(image.name(of: image.symbols[candidate.symbolIndex!])) at \(describe(address)) does not have the shape of a block descriptor"
          ))
        return nil
      }
    }
    let shapeValue = shape!
    // Swift-made descriptors end at the signature (no layout word): require only up to it.
    let partCount: UInt64 = 2 + (shapeValue.hasCopyDispose ? 2 : 0) + (shapeValue.hasSignature ? 1 : 0)
    let (end, overflow) = (address - section.address).addingReportingOverflow(partCount * p)
    if overflow || end > section.size {
      warnings.append(
        BinaryScanWarning(
          offset: address,
          message:
            "descriptor at \(describe(address)) points past end of section \(section.name) (size \(hex(section.size)))")
      )
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
    var extendedLayout: String?
    if shapeValue.hasSignature {
      switch image.pointer(at: next) {
      case .address(let target)?:
        if let range = stringRange(at: target) {
          signature = image.bytes.string(range)
          if !SignatureDecoding.isBlockSignature(UnsafeRawBufferPointer(rebasing: image.bytes.base[range])) {
            warnings.append(
              BinaryScanWarning(
                offset: address,
                message:
                  "signature \"\(signature!)\" of descriptor at \(describe(address)) does not parse as a block signature"
              ))
          }
        } else {
          warnings.append(
            BinaryScanWarning(
              offset: address,
              message:
                "signature pointer of descriptor at \(describe(address)) points to \(describe(target)), not to a terminated string"
            ))
        }
      case .symbol(let index, _)?:
        warnings.append(
          BinaryScanWarning(
            offset: address,
            message:
              "signature pointer of descriptor at \(describe(address)) refers to undefined symbol \(image.name(of: image.symbols[index]))"
          ))
      case .data(let value)?:
        warnings.append(
          BinaryScanWarning(
            offset: address,
            message: "signature pointer of descriptor at \(describe(address)) holds \(hex(value)), not an address"))
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
              : image.bytes.base[range].map {
                String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
              }.joined()
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
      declaration: signature.flatMap { SignatureDecoding.declaration(forSignature: $0, model: image.dataModel) },
      extendedLayout: extendedLayout,
      literals: literals,
      evidence: candidate.evidence.sorted())
  }
}

extension BinaryScanner {
  /// The construction sites of the stack-block descriptors at `descriptors` in `image` (its
  /// own addresses), by descriptor: for a block read from a running process, whose image file
  /// is already loaded.
  package static func constructionSites(in image: BinaryImage, of descriptors: Set<UInt64>) -> [UInt64:
    [BlockConstructionSite]]
  {
    var scan = DescriptorScan(image: image, options: BinaryScanOptions())
    return scan.constructionSites(of: descriptors, symbolsByAddress: scan.definedSymbolsByAddress())
  }

  /// Whether the file at `path` starts like a binary the scanner reads (reads 8 bytes).
  public static func isRecognizedBinary(fileAt path: String) -> Bool {
    guard let file = try? MappedFile(path: path) else { return false }
    return withExtendedLifetime(file) { isRecognizedBinary(file.bytes) }
  }
}
