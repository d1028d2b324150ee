// Construction sites of the stack blocks found.

import BlockSignature

extension DescriptorScan {
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
        .tooManySiteLoads(
          limit: ConstructionSiteScan.siteLimit, after: describe(loads.last?.pc ?? 0), offset: loads.last?.pc))
    }
    var matcher = ConstructionSiteScan.Matcher(scan: scan)
    defer {
      if matcher.untraced > 0 {
        warnings.append(
          .untracedSites(matcher.untraced, limit: ConstructionSiteScan.traceLimit))
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
}
