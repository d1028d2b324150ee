import CBlockABI

/// A snapshot of a live block: its flags, descriptor, helpers, signature, layout and invoke
/// function, read through the `CBlockABI` mirror of the ABI.
///
///     let block: @convention(block) (Int32, Double) -> Int32 = { a, _ in a }
///     let info = try withExtendedLifetime(block) {
///       try BlockInfo(inspecting: unsafeBitCast(block, to: UnsafeRawPointer.self))
///     }
///     info.kind        // .heap
///     info.signature   // "i20@?0i8d12"
///
/// A Swift `@convention(block)` closure is a block pointer: `unsafeBitCast` it to
/// `UnsafeRawPointer` as above. (There is deliberately no generic closure initializer:
/// on Linux, the Swift 6.3 runtime crashes when it instantiates the generic metadata of a
/// `@convention(block)` function type, e.g. `MemoryLayout<T>.size` inside a generic.)
///
/// Every pointer is checked before it is followed (on Linux through `/proc/self/mem`), so a
/// NULL, unmapped or inconsistent block gives a ``BlockInspectionError``, not a crash.
/// The snapshot holds addresses, not pointers: it stays valid after the block is gone.
public struct BlockInfo: Hashable, Sendable {
  /// The block's address.
  public var address: UInt
  /// The `isa` pointer.
  public var isa: UInt
  /// The symbol ``isa`` points to (e.g. `_NSConcreteGlobalBlock`), when one is known.
  public var isaSymbol: String?
  /// The flags word.
  public var flags: BlockFlags
  /// Where the block lives, from its flags.
  public var kind: BlockKind { BlockKind(flags: flags) }
  /// The descriptor's address.
  public var descriptorAddress: UInt
  /// Whether the descriptor is the small, self-relative form.
  public var hasSmallDescriptor: Bool { flags.contains(.smallDescriptor) }
  /// The descriptor's `reserved` word (libclosure's in-descriptor flags on Apple; 0 on Linux).
  public var descriptorReserved: UInt
  /// The size of the block literal, captures included, from its descriptor.
  public var size: Int
  /// The copy helper, when `BLOCK_HAS_COPY_DISPOSE` is set.
  public var copyHelper: SymbolInfo?
  /// The dispose helper, when `BLOCK_HAS_COPY_DISPOSE` is set.
  public var disposeHelper: SymbolInfo?
  /// The copy helper's address (nil when `BLOCK_HAS_COPY_DISPOSE` is clear).
  public var copyHelperAddress: UInt?
  /// The dispose helper's address (nil when `BLOCK_HAS_COPY_DISPOSE` is clear).
  public var disposeHelperAddress: UInt?
  /// The signature bytes, when `BLOCK_HAS_SIGNATURE` is set and the pointer is not NULL.
  public var signatureBytes: [UInt8]?
  /// The signature as text (invalid UTF-8 repaired), or nil where there is none.
  public var signature: String? { signatureBytes.map { String(decoding: $0, as: UTF8.self) } }
  /// Whether the block returns through a hidden pointer (`BLOCK_USE_STRET`, only with a signature).
  public var usesStructReturn: Bool { flags.contains(.hasSignature) && flags.contains(.useStret) }
  /// The raw layout word of descriptor part 3 (0 when absent).
  public var layoutWord: UInt
  /// The decoded extended layout, when `BLOCK_HAS_EXTENDED_LAYOUT` is set.
  public var extendedLayout: ExtendedLayout?
  /// The invoke function's address.
  public var invokeAddress: UInt
  /// The invoke function's symbol, as `dladdr` names it.
  public var invoke: SymbolInfo?
  /// The reference count of a heap block under the loaded runtime's convention; nil for
  /// global, stack and noescape blocks, whose count means nothing.
  public var referenceCount: Int?
  /// The convention used to read ``referenceCount``.
  public var referenceCountConvention: BlocksRuntime.ReferenceCountConvention?
  /// Whether every pointer was checked against the process's mappings.
  public var memoryWasChecked: Bool

  /// The longest signature read, in bytes.
  public static let signatureLimit = 1 << 16

  /// Reads the block at `pointer`.
  ///
  /// - Parameters:
  ///   - pointer: the block literal's address.
  ///   - runtime: the runtime whose reference-count convention applies; the process's
  ///     current runtime by default.
  /// - Throws: ``BlockInspectionError`` for a NULL, misaligned or unmapped block, a NULL
  ///   descriptor, an implausible size, an unterminated signature or a malformed layout.
  public init(inspecting pointer: UnsafeRawPointer?, runtime: BlocksRuntime? = .current) throws(BlockInspectionError) {
    guard let pointer else {
      throw BlockInspectionError(kind: .nullPointer, address: 0, reason: "null block pointer")
    }
    let address = UInt(bitPattern: pointer)
    let word = UInt(MemoryLayout<UnsafeRawPointer>.size)
    guard address % word == 0 else {
      throw BlockInspectionError(
        kind: .misaligned, address: address, reason: "block pointer is not aligned to \(word) bytes")
    }
    let memory = ProcessMemory()
    let header = MemoryLayout<CBA_Block_layout>.size
    guard memory.isReadable(address, count: header) else {
      throw BlockInspectionError(
        kind: .unreadableMemory, address: address, reason: "the \(header)-byte block header is not readable memory")
    }
    let block = pointer.assumingMemoryBound(to: CBA_Block_layout.self)
    let flags = BlockFlags(rawValue: cba_block_flags(block))
    guard let descriptor = cba_block_descriptor(block) else {
      throw BlockInspectionError(kind: .nullDescriptor, address: address, reason: "descriptor pointer is null")
    }
    let descriptorAddress = UInt(bitPattern: descriptor)
    // Check every descriptor part the flags announce before any accessor reads it.
    let partsSize: Int
    if flags.contains(.smallDescriptor) {
      partsSize = MemoryLayout<CBA_Block_descriptor_small>.size - (flags.contains(.hasCopyDispose) ? 0 : 8)
    } else {
      partsSize =
        MemoryLayout<CBA_Block_descriptor_1>.size
        + (flags.contains(.hasCopyDispose) ? MemoryLayout<CBA_Block_descriptor_2>.size : 0)
        + (flags.contains(.hasSignature) ? MemoryLayout<CBA_Block_descriptor_3>.size : 0)
    }
    guard descriptorAddress % (flags.contains(.smallDescriptor) ? 4 : word) == 0,
      memory.isReadable(descriptorAddress, count: partsSize)
    else {
      throw BlockInspectionError(
        kind: .unreadableMemory, address: descriptorAddress, blockAddress: address,
        reason: "descriptor at 0x\(String(descriptorAddress, radix: 16)) (\(partsSize) bytes for flags \(flags)) "
          + "is not readable memory")
    }
    let size = Int(truncatingIfNeeded: cba_block_descriptor_size(block))
    guard size >= header, size <= 1 << 30 else {
      throw BlockInspectionError(
        kind: .implausibleSize, address: descriptorAddress, blockAddress: address,
        reason: "descriptor at 0x\(String(descriptorAddress, radix: 16)) records a block size of \(size) bytes "
          + "(a block is at least \(header))")
    }

    self.address = address
    self.flags = flags
    self.descriptorAddress = descriptorAddress
    self.descriptorReserved = UInt(cba_block_descriptor_reserved(block))
    self.size = size
    self.memoryWasChecked = memory.isChecked
    isa = cba_block_isa(block).map { UInt(bitPattern: $0) } ?? 0
    isaSymbol = SymbolInfo(address: isa)?.name
    invokeAddress = cba_block_invoke(block).map { UInt(bitPattern: $0) } ?? 0
    invoke = SymbolInfo(address: invokeAddress)
    copyHelperAddress = cba_block_copy_helper(block).map { UInt(bitPattern: $0) }
    disposeHelperAddress = cba_block_dispose_helper(block).map { UInt(bitPattern: $0) }
    copyHelper = copyHelperAddress.flatMap { SymbolInfo(address: $0) }
    disposeHelper = disposeHelperAddress.flatMap { SymbolInfo(address: $0) }

    if let signature = cba_block_signature(block) {
      let signatureAddress = UInt(bitPattern: signature)
      guard let read = memory.cString(at: signatureAddress, limit: Self.signatureLimit) else {
        throw BlockInspectionError(
          kind: .unreadableMemory, address: signatureAddress, blockAddress: address,
          reason: "signature at 0x\(String(signatureAddress, radix: 16)) is not readable memory")
      }
      guard read.terminated else {
        throw BlockInspectionError(
          kind: .unterminatedSignature, address: signatureAddress, blockAddress: address,
          reason: "signature at 0x\(String(signatureAddress, radix: 16)) has no NUL within "
            + "\(read.bytes.count) readable bytes")
      }
      signatureBytes = read.bytes
    } else {
      signatureBytes = nil
    }

    layoutWord = UInt(cba_block_layout_word(block))
    if flags.contains(.hasExtendedLayout) {
      if layoutWord == 0 {
        extendedLayout = ExtendedLayout.none
      } else if cba_layout_word_is_inline(layoutWord) != 0 {
        extendedLayout = ExtendedLayout(inlineValue: layoutWord)
      } else {
        guard let read = memory.cString(at: layoutWord, limit: 4096) else {
          throw BlockInspectionError(
            kind: .unreadableMemory, address: layoutWord, blockAddress: address,
            reason: "extended layout at 0x\(String(layoutWord, radix: 16)) is not readable memory")
        }
        do {
          extendedLayout = try ExtendedLayout(decoding: read.bytes + (read.terminated ? [0] : []))
        } catch {
          throw BlockInspectionError(
            kind: .malformedLayout, address: layoutWord &+ UInt(error.offset), blockAddress: address,
            reason: "extended layout at 0x\(String(layoutWord, radix: 16)): \(error.reason)")
        }
      }
    } else {
      extendedLayout = nil
    }

    if BlockKind(flags: flags) == .heap, let convention = runtime?.referenceCountConvention {
      referenceCount = convention.referenceCount(flags: flags)
      referenceCountConvention = convention
    } else {
      referenceCount = nil
      referenceCountConvention = nil
    }
  }

  /// The signature parsed, or nil when the block has none.
  ///
  ///     info.signature                              // "i20@?0i8q12"
  ///     try info.parsedSignature()?.cDeclaration()  // "int (^)(int, long)"
  ///
  /// - Throws: ``EncodingError`` when the signature bytes are not a valid encoding.
  public func parsedSignature(options: ParseOptions = ParseOptions()) throws(EncodingError) -> SignatureEncoding? {
    guard let signatureBytes else { return nil }
    return try signatureBytes.withUnsafeBufferPointer { (bytes) throws(EncodingError) in
      try SignatureEncoding(parsingBytes: bytes, options: options)
    }
  }

  /// Whether the `isa` names one of the blocks runtime's classes (`_NSConcrete…Block`).
  public var isaIsBlockClass: Bool {
    guard let isaSymbol else { return false }
    return isaSymbol.hasPrefix("_NSConcrete") && isaSymbol.hasSuffix("Block")
  }
}
