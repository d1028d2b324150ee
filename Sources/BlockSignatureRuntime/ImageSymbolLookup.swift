// Names for addresses that the dynamic linker does not know: local symbols (a block's
// invoke function and helpers are `internal` in C) read from the image file's own symbol table.

import BlockSignature
import BlockSignatureBinary

extension SymbolInfo {
  /// This symbol info, with ``name`` filled in from the image file's static symbol table
  /// (`.symtab`) when `dladdr` found no exported symbol at the address.
  ///
  ///     let invoke = info.invoke?.resolvingLocalSymbols()
  ///     invoke?.name  // "__make_block_block_invoke"
  ///
  /// It maps and reads the image file named by ``imagePath``, so it costs a file read:
  /// call it for display, not in a loop. Stripped images have no local symbols: the result
  /// is then unchanged.
  public func resolvingLocalSymbols() -> SymbolInfo {
    guard name == nil, let imagePath, let imageBase else { return self }
    guard let file = try? MappedFile(path: imagePath), ELFLoader.isELF(file.bytes),
      let image = try? ELFLoader.load(file.bytes, readingRelocations: false)
    else { return self }
    guard let found = image.nearestSymbol(to: address, base: imageBase), found.distance == 0 else { return self }
    var resolved = self
    resolved.name = found.name
    resolved.nearestName = found.name
    resolved.nearestOffset = 0
    return resolved
  }
}

extension BinaryImage {
  /// The named, defined function or object symbol at or nearest before `address` in this
  /// image loaded at `base`, and how far before it is; a function wins over an object at the
  /// same place. Shared objects' and PIEs' symbol values are relative to the base, a non-PIE
  /// executable's absolute (its base is its first segment's address, as `dladdr` has it), so
  /// both readings are tried.
  func nearestSymbol(to address: UInt, base: UInt) -> (name: String, distance: UInt64)? {
    let targets = [UInt64(address &- base), UInt64(address)]
    var nearest: (symbol: ImageSymbol, distance: UInt64)? = nil
    for symbol in symbols where symbol.isDefined && (symbol.isFunction || symbol.isObject) {
      for target in targets where symbol.address <= target {
        let distance = target - symbol.address
        if let best = nearest, best.distance < distance || (best.distance == distance && !symbol.isFunction) {
          continue
        }
        guard !name(of: symbol).isEmpty else { continue }
        nearest = (symbol, distance)
      }
    }
    return nearest.map { (name(of: $0.symbol), $0.distance) }
  }
}
