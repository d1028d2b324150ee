// Names for addresses in another process: `dladdr` answers for this process only, so the
// images mapped there are read from `/proc/<pid>/maps` and their symbols from the files.

import BlockSignature
import BlockSignatureBinary
import BlockSignatureSystem

/// The files mapped into a process, and the symbols of the ELF images among them.
///
/// Each image file is read once (through `/proc/<pid>/root`, so a process in another mount
/// namespace or chroot has its own files read), on the first address that falls in it.
final class ProcessImages {
  /// The process.
  let pid: Int32
  /// Its file mappings, in address order; empty when the maps cannot be read.
  private(set) var mappings: [MemoryMap.Region] = []
  /// Every readable mapping, files or not (heap, stacks, data), except the kernel's
  /// (`[vvar]`, `[vsyscall]`), in address order.
  private(set) var readableRegions: [MemoryMap.Region] = []
  /// Every executable mapping (code of the images, and any JIT's), in address order.
  private(set) var executableRanges: [Range<UInt>] = []
  private var images: [String: BinaryImage?] = [:]
  private var placements: [String: LoadedImage?] = [:]
  /// Construction sites found so far, by descriptor address in the process.
  private var sites: [UInt: [BlockConstructionSite]] = [:]
  private var files: [MappedFile] = []

  /// Why `/proc/<pid>/maps` could not be read (the process is gone, or may not be read), or
  /// nil when it was.
  let mapsError: SystemCallError?

  /// Reads the mappings of process `pid`.
  init(pid: Int32) {
    self.pid = pid
    let map = MemoryMap(pid: pid)
    mapsError = map.error
    for region in map.regions {
      if region.protection.readable, !["[vvar]", "[vvar_vclock]", "[vsyscall]"].contains(region.path) {
        readableRegions.append(region)
      }
      if region.protection.executable {
        executableRanges.append(region.range)
      }
      if region.path.hasPrefix("/") {
        mappings.append(region)
      }
    }
  }

  /// The word size, in bytes, of the ELF file at `path` (4 for `ELFCLASS32`, 8 for
  /// `ELFCLASS64`), or nil when it cannot be read or is not ELF. For a process, give
  /// `/proc/<pid>/exe`: its blocks have pointers of that size.
  static func wordSize(ofExecutableAt path: String) -> Int? {
    guard let file = try? MappedFile(path: path), file.bytes.count > 4, ELFLoader.isELF(file.bytes) else { return nil }
    switch file.bytes[4] {
    case 1: return 4
    case 2: return 8
    default: return nil
    }
  }

  /// Whether `address` lies in an executable mapping: where any function, an invoke among
  /// them, must be.
  func isExecutable(_ address: UInt) -> Bool {
    executableRanges.contains { $0.contains(address) }
  }

  /// The image loaded where `address` is, and its file's path: the image of the file mapped
  /// there, or else of the nearest file mapped below (a `.bss` tail is anonymous memory after
  /// its image's mappings), when the image covers the address. Nil elsewhere, and for a file
  /// mapped as data.
  func loadedImage(containing address: UInt) -> (path: String, image: LoadedImage)? {
    guard let path = mappings.last(where: { $0.range.lowerBound <= address })?.path else { return nil }
    guard let loaded = loadedImage(at: path), loaded.extent.contains(address) else { return nil }
    return (path, loaded)
  }

  /// Where the image of the file at `path` is loaded (see ``LoadedImage``); nil when the file
  /// is not mapped.
  func loadedImage(at path: String) -> LoadedImage? {
    if let cached = placements[path] { return cached }
    let mapped = mappings.filter { $0.path == path }
    let segments = image(at: path)?.loadSegments ?? []
    let placed =
      LoadedImage(segments: segments, mappings: mapped, pageSize: system_pageSize) ?? LoadedImage(mappings: mapped)
    placements[path] = placed
    return placed
  }

  /// The symbols of the image at `path` (nil when it cannot be read or is not ELF).
  func image(at path: String) -> BinaryImage? {
    if let cached = images[path] { return cached }
    var loaded: BinaryImage? = nil
    for candidate in ["/proc/\(pid)/root" + path, path] {
      guard let file = try? MappedFile(path: candidate), ELFLoader.isELF(file.bytes),
        let image = try? ELFLoader.load(file.bytes, readingRelocations: false)
      else { continue }
      files.append(file)
      loaded = image
      break
    }
    images[path] = loaded
    return loaded
  }

  /// What the image files say about `address`: the image, the symbol that starts there and
  /// the nearest one before it (local symbols from `.symtab` included, where `dladdr` knows
  /// the dynamic symbols only). Nil when no loaded image covers the address.
  func symbol(at address: UInt) -> SymbolInfo? {
    guard address != 0, let (path, loaded) = loadedImage(containing: address) else { return nil }
    var info = SymbolInfo(address: address, imagePath: path, imageBase: loaded.base)
    guard let image = image(at: path), let nearest = image.nearestSymbol(to: address, base: loaded.bias) else {
      return info
    }
    info.nearestName = nearest.name
    info.nearestOffset = UInt(nearest.distance)
    if nearest.distance == 0 { info.name = nearest.name }
    return info
  }

  /// The construction sites of the descriptor at `address` (`ScannedBlock/constructionSites`),
  /// read from the image file mapped there and moved to the process's addresses; nil when no
  /// readable image holds the descriptor.
  func constructionSites(ofDescriptorAt address: UInt) -> [BlockConstructionSite]? {
    if let cached = sites[address] { return cached }
    guard let (path, loaded) = loadedImage(containing: address), let image = image(at: path) else { return nil }
    let slide = UInt64(loaded.bias)
    let inImage = UInt64(address) &- slide
    let found = (BinaryScanner.constructionSites(in: image, of: [inImage])[inImage] ?? []).map { site in
      var moved = site
      moved.location.address = site.location.address.map { $0 &+ slide }
      moved.invoke?.address = site.invoke?.address.map { $0 &+ slide }
      return moved
    }
    sites[address] = found
    return found
  }

  /// Where the defined symbol `name` of the image at `path` is in the process, or nil.
  func address(ofSymbol name: String, inImageAt path: String) -> UInt? {
    guard let image = image(at: path), let loaded = loadedImage(at: path),
      let symbol = image.symbols.first(where: { $0.isDefined && image.name(of: $0) == name })
    else { return nil }
    return loaded.bias &+ UInt(symbol.address)
  }

  /// The blocks runtime of the process: among the images that define `_Block_copy`, the one
  /// `isa` lies in (a runtime class lives in its runtime), else one named like a blocks
  /// runtime (`libBlocksRuntime…`); nil when neither is found.
  func runtime(forIsa isa: UInt) -> BlocksRuntime? {
    loadedRuntimes(preferring: isa).first
  }

  /// The blocks runtimes mapped into the process: the image `isa` lies in and the images named
  /// like a blocks runtime, those that define `_Block_copy`, that image first.
  func loadedRuntimes(preferring isa: UInt) -> [BlocksRuntime] {
    var paths: [String] = []
    if let path = loadedImage(containing: isa)?.path { paths.append(path) }
    for mapping in mappings where !paths.contains(mapping.path) {
      let name = mapping.path.split(separator: "/").last.map(String.init) ?? ""
      if name.hasPrefix("libBlocksRuntime") { paths.append(mapping.path) }
    }
    return paths.compactMap { path in
      guard let image = image(at: path) else { return nil }
      let defined = Set(
        image.symbols.lazy.filter { $0.isDefined && $0.isFunction }.map { image.name(of: $0) }
          .filter { $0 == "_Block_copy" || $0 == "_Block_signature" })
      guard defined.contains("_Block_copy") else { return nil }
      let queries = defined.contains("_Block_signature")
      return BlocksRuntime(
        path: path, exportsSignatureQueries: queries, referenceCountConvention: queries ? .unitsOfTwo : .unitsOfOne)
    }
  }
}
