// Names for addresses that the dynamic linker does not know: local symbols (a block's
// invoke function and helpers are `internal` in C) read from the image file's own symbol table.

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
    // Shared objects and PIEs: symbol values are relative to the load base; a non-PIE
    // executable's are absolute.
    let candidates: Set<UInt64> = [UInt64(address &- imageBase), UInt64(address)]
    var resolved = self
    for symbol in image.symbols where symbol.isDefined && candidates.contains(symbol.address) {
      let symbolName = image.name(of: symbol)
      guard !symbolName.isEmpty else { continue }
      resolved.name = symbolName
      resolved.nearestName = symbolName
      resolved.nearestOffset = 0
      if symbol.isFunction { break }
    }
    return resolved
  }
}
