// Blocks in another process: one at a given address, or every one its memory holds.

import BlockSignature
import BlockSignatureBinary
import BlockSignatureSystem

extension BlockInfo {
  /// Reads the block at `address` in another process, without stopping or changing it.
  ///
  /// Its memory is read with `process_vm_readv`, which needs the right to trace the process
  /// (the same user and, under Yama, a `ptrace_scope` that allows it, or `CAP_SYS_PTRACE`); the
  /// names of `isa`, `invoke` and the helpers come from the image files that
  /// `/proc/<pid>/maps` lists (their `.symtab` too, so local functions are named), and the
  /// reference-count convention from the blocks runtime the process has mapped. The process
  /// runs on meanwhile: a stack or heap block it frees while it is read gives an error, or a
  /// snapshot of whatever the memory then held.
  ///
  ///     // blocksig inspect --pid 4242 --address 0x55d0c6f4a2c0
  ///     let info = try BlockInfo(inspecting: 0x55d0_c6f4_a2c0, inProcess: 4242)
  ///     info.signature  // "v16@?0d8"
  ///
  /// - Parameters:
  ///   - address: the block literal's address in that process.
  ///   - pid: the process.
  /// - Throws: ``BlockInspectionError``: ``BlockInspectionError/Kind/processNotReadable`` when
  ///   the process does not exist or may not be read,
  ///   ``BlockInspectionError/Kind/unsupportedProcess`` when its pointers are not this
  ///   process's size (a 32-bit program), otherwise as for a block of this process.
  public init(inspecting address: UInt, inProcess pid: Int32) throws(BlockInspectionError) {
    guard address != 0 else {
      throw BlockInspectionError(kind: .nullPointer, address: 0, message: "null block pointer")
    }
    try Self.checkWordSize(ofProcess: pid, at: address)
    let images = ProcessImages(pid: pid)
    try self.init(inspecting: address, in: images)
    readConstructionSites(from: images)
  }

  /// Reads the block at `address` in the process of `images`, whose files name its addresses.
  init(inspecting address: UInt, in images: ProcessImages) throws(BlockInspectionError) {
    try self.init(
      reading: address, memory: ProcessMemory(process: images.pid), symbol: images.symbol(at:),
      runtime: images.runtime(forIsa:))
    processID = images.pid
  }

  /// Fills ``constructionSites`` for a block that is not global, from the image file that
  /// holds its descriptor (each image's code is read once per descriptor).
  mutating func readConstructionSites(from images: ProcessImages) {
    guard kind != .global else { return }
    constructionSites = images.constructionSites(ofDescriptorAt: descriptorAddress)
  }

  /// The mirror of the ABI has this process's pointer size: a process of another (a 32-bit
  /// program on a 64-bit system) has blocks it would misread, so it is refused.
  static func checkWordSize(ofProcess pid: Int32, at address: UInt) throws(BlockInspectionError) {
    let word = MemoryLayout<UnsafeRawPointer>.size
    if let size = ProcessImages.wordSize(ofExecutableAt: "/proc/\(pid)/exe"), size != word {
      throw BlockInspectionError(
        kind: .unsupportedProcess, address: address,
        message: "process \(pid) is a \(size * 8)-bit program; only \(word * 8)-bit processes can be read")
    }
  }

  /// Every block in the memory of process `pid`: its readable mappings (heap, stacks, data) are
  /// searched for words that hold the address of one of its blocks runtime's classes
  /// (`_NSConcreteGlobalBlock`, `_NSConcreteMallocBlock`, `_NSConcreteStackBlock`), and each
  /// such word is read as a block. A word is kept when it reads as a block whose flags agree
  /// with its class, whose invoke function lies in executable memory, and that can live where
  /// it was found: `BLOCK_IS_GLOBAL` in an image's data for a global block; `BLOCK_NEEDS_FREE`
  /// outside the image files' mappings and the main stack for a heap block; neither flag, and
  /// outside the image files' mappings, for a stack block; or, with the global class,
  /// `BLOCK_IS_NOESCAPE` outside the images (clang gives a literal passed to a `noescape`
  /// parameter that class and flag, though it lives on the stack). What is left is sorted by
  /// address.
  ///
  ///     for block in try BlockInfo.blocks(inProcess: 4242) {
  ///       print(block.address, block.kind, block.signature ?? "-")
  ///     }
  ///
  /// The process runs on while it is searched: blocks it makes or frees meanwhile may be
  /// missed or reported stale. A stack block's frame may also hold copies of its words after
  /// it is gone; such a leftover reads as a block too. A process whose blocks runtime is not
  /// found (see ``BlocksRuntime/loaded(inProcess:containing:)``) has no classes to look for:
  /// the result is empty.
  ///
  /// A mapping larger than `maximumRegionSize` is not searched: sanitizers reserve terabytes
  /// of readable shadow memory, which no block lives in.
  ///
  /// - Parameters:
  ///   - pid: the process.
  ///   - maximumRegionSize: the largest mapping searched, in bytes (1 GiB by default).
  /// - Returns: the blocks found, by address.
  /// - Throws: ``BlockInspectionError`` when the process does not exist, may not be read or has
  ///   pointers of another size.
  public static func blocks(inProcess pid: Int32, maximumRegionSize: UInt = 1 << 30) throws(BlockInspectionError)
    -> [BlockInfo]
  {
    try checkWordSize(ofProcess: pid, at: 0)
    let images = ProcessImages(pid: pid)
    if let error = images.mapsError {
      throw BlockInspectionError(
        kind: .processNotReadable, address: 0, message: "cannot read process \(pid): \(error.reason)")
    }
    var classes: [UInt: BlockKind] = [:]
    for runtime in images.loadedRuntimes(preferring: 0) {
      for (name, kind) in [
        ("_NSConcreteGlobalBlock", BlockKind.global), ("_NSConcreteMallocBlock", .heap),
        ("_NSConcreteStackBlock", .stack),
      ] {
        if let address = images.address(ofSymbol: name, inImageAt: runtime.path) { classes[address] = kind }
      }
    }
    guard !classes.isEmpty else { return [] }
    // A few values: compared in a row, faster than a hash per word.
    let isas = Array(classes.keys)
    let memory = ProcessMemory(process: pid)
    let word = MemoryLayout<UInt>.size
    var found: [BlockInfo] = []
    var chunk = [UInt](repeating: 0, count: 1 << 17)  // 1 MiB
    for region in images.readableRegions where UInt(region.range.count) <= maximumRegionSize {
      let inImage = region.path.hasPrefix("/")
      var position = region.range.lowerBound
      while position < region.range.upperBound {
        let count = min(UInt(chunk.count * word), region.range.upperBound - position)
        let error = chunk.withUnsafeMutableBytes { memory.read(position, into: .init(rebasing: $0[..<Int(count)])) }
        if let error {
          if error.code != SystemErrno.fault {
            throw BlockInspectionError(
              kind: .processNotReadable, address: position, message: "cannot read process \(pid): \(error.reason)")
          }
          break  // a region that is gone or not readable after all: the next one
        }
        for index in 0..<Int(count) / word where isas.contains(chunk[index]) {
          let candidate = position + UInt(index * word)
          guard let kind = classes[chunk[index]], let block = try? BlockInfo(inspecting: candidate, in: images),
            Self.canLive(block.kind, withClassOf: kind, inImage: inImage, onMainStack: region.path == "[stack]"),
            images.isExecutable(block.invokeAddress)
          else { continue }
          var kept = block
          kept.readConstructionSites(from: images)
          found.append(kept)
        }
        position += count
      }
    }
    return found.sorted { $0.address < $1.address }
  }

  /// Whether a block whose flags say `kind`, with the isa of the `runtimeClass` blocks, can
  /// be where it was found: a global literal in an image's data; a noescape literal (which
  /// clang gives the global class) on a stack; a heap block in memory `malloc` gave, never in
  /// an image file's mapping nor on the main stack; a stack block on a stack, which is the
  /// main one or anonymous memory (a thread's), never an image file's mapping. Others are
  /// stale copies, or words that only look like a block: a global offset table holds the
  /// address of each class a program uses, followed by other pointers.
  static func canLive(_ kind: BlockKind, withClassOf runtimeClass: BlockKind, inImage: Bool, onMainStack: Bool) -> Bool
  {
    switch (runtimeClass, kind) {
    case (.global, .global): inImage
    case (.global, .noescape): !inImage
    case (.heap, .heap): !inImage && !onMainStack
    case (.stack, .stack): !inImage
    default: false
    }
  }
}
