import BlockSignature
import BlockSignatureBinary
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
/// Every pointer is checked before it is followed (on Linux with `process_vm_readv` on the
/// process itself), so a NULL, unmapped or inconsistent block gives a
/// ``BlockInspectionError``, not a crash.
/// The snapshot holds addresses, not pointers: it stays valid after the block is gone.
public struct BlockInfo: Hashable, Sendable {
  /// The block's address.
  public var address: UInt
  /// The `isa` pointer.
  public var isa: UInt
  /// The symbol ``isa`` points to (e.g. `_NSConcreteGlobalBlock`), when one is known.
  public var isaSymbol: String?
  /// What is known about ``isa``: its image, and the symbol there.
  public var isaSymbolInfo: SymbolInfo?
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
  /// The process the block was read from, when it is not this one
  /// (``init(inspecting:inProcess:)``).
  public var processID: Int32?
  /// For a stack, heap or noescape block of another process (``init(inspecting:inProcess:)``,
  /// ``blocks(inProcess:maximumRegionSize:)``): the places in the code of the image that holds
  /// its descriptor which build blocks with that descriptor, in that process's addresses, as
  /// `blocksig dump` finds them (`ScannedBlock/constructionSites`). The function that made
  /// the block is among them; for a Swift block, whose invoke is a generic thunk, it is the
  /// one name that tells. Nil for a global block, for a block of this process, and when the
  /// descriptor is not in an image file.
  public var constructionSites: [BlockConstructionSite]?

  /// The longest signature read, in bytes.
  public static let signatureLimit = 1 << 16

  /// Reads the block at `pointer`, in this process.
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
    try self.init(
      reading: UInt(bitPattern: pointer), memory: ProcessMemory(), symbol: { SymbolInfo(address: $0) },
      runtime: { _ in runtime })
  }

  /// Reads the block at `address` through `memory`: the header and the descriptor parts its
  /// flags announce are copied out first, and the `CBlockABI` accessors read the copies.
  init(
    reading address: UInt, memory: ProcessMemory, symbol: (UInt) -> SymbolInfo?,
    runtime runtimeForIsa: (UInt) -> BlocksRuntime?
  ) throws(BlockInspectionError) {
    let word = UInt(MemoryLayout<UnsafeRawPointer>.size)
    guard address % word == 0 else {
      throw BlockInspectionError(
        kind: .misaligned, address: address, reason: "block pointer is not aligned to \(word) bytes")
    }
    /// The error for a failed read of `what` at `at`.
    func unreadable(_ error: SystemCallError, at: UInt, _ what: String) -> BlockInspectionError {
      if let pid = memory.pid, error.code != SystemErrno.fault {
        return BlockInspectionError(
          kind: .processNotReadable, address: at, blockAddress: address,
          reason: "cannot read process \(pid): \(error.reason)")
      }
      return BlockInspectionError(
        kind: .unreadableMemory, address: at, blockAddress: address, reason: "\(what) is not readable memory")
    }
    var block = CBA_Block_layout()
    let header = MemoryLayout<CBA_Block_layout>.size
    if let error = memory.read(CBA_Block_layout.self, at: address, into: &block) {
      throw unreadable(error, at: address, "the \(header)-byte block header")
    }
    let flags = BlockFlags(rawValue: cba_block_flags(&block))
    guard let remoteDescriptor = cba_block_descriptor(&block) else {
      throw BlockInspectionError(kind: .nullDescriptor, address: address, reason: "descriptor pointer is null")
    }
    let descriptorAddress = UInt(bitPattern: remoteDescriptor)
    // Every descriptor part the flags announce is read before any accessor looks at one.
    let partsSize: Int
    if flags.contains(.smallDescriptor) {
      partsSize = MemoryLayout<CBA_Block_descriptor_small>.size - (flags.contains(.hasCopyDispose) ? 0 : 8)
    } else {
      partsSize =
        MemoryLayout<CBA_Block_descriptor_1>.size
        + (flags.contains(.hasCopyDispose) ? MemoryLayout<CBA_Block_descriptor_2>.size : 0)
        + (flags.contains(.hasSignature) ? MemoryLayout<CBA_Block_descriptor_3>.size : 0)
    }
    // Room for the largest: three classic parts, six words.
    var parts: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    let descriptorError: SystemCallError? =
      descriptorAddress % (flags.contains(.smallDescriptor) ? 4 : word) != 0
      ? SystemCallError(call: "read", code: SystemErrno.fault)
      : withUnsafeMutableBytes(of: &parts) { memory.read(descriptorAddress, into: .init(rebasing: $0[..<partsSize])) }
    if let descriptorError {
      throw unreadable(
        descriptorError, at: descriptorAddress,
        "descriptor at \(descriptorAddress.hexadecimal()) (\(partsSize) bytes for flags \(flags))")
    }

    // The accessors read the copies: the copied header points at the copied descriptor. A
    // small descriptor's fields are relative to their own address, so what the accessors
    // derive from one points into the copy and is moved back to the descriptor's address.
    var copy = block
    let (size, reserved, copyHelper, disposeHelper, signature, layoutWord) = withUnsafeMutableBytes(of: &parts) {
      local in
      copy.descriptor = local.baseAddress!.assumingMemoryBound(to: CBA_Block_descriptor_1.self)
      let localBase = UInt(bitPattern: local.baseAddress)
      let isSmall = flags.contains(.smallDescriptor)
      func remote(_ pointer: UnsafeRawPointer?) -> UInt? {
        guard let pointer else { return nil }
        let value = UInt(bitPattern: pointer)
        return isSmall ? value &- localBase &+ descriptorAddress : value
      }
      var layout = UInt(cba_block_layout_word(&copy))
      if isSmall, !flags.contains(.inlineLayoutString), layout != 0 {
        layout = layout &- localBase &+ descriptorAddress
      }
      return (
        Int(truncatingIfNeeded: cba_block_descriptor_size(&copy)), UInt(cba_block_descriptor_reserved(&copy)),
        remote(cba_block_copy_helper(&copy)), remote(cba_block_dispose_helper(&copy)),
        remote(cba_block_signature(&copy).map(UnsafeRawPointer.init)), layout
      )
    }
    guard size >= header, size <= 1 << 30 else {
      throw BlockInspectionError(
        kind: .implausibleSize, address: descriptorAddress, blockAddress: address,
        reason: "descriptor at \(descriptorAddress.hexadecimal()) records a block size of \(size) bytes "
          + "(a block is at least \(header))")
    }

    self.address = address
    self.flags = flags
    self.descriptorAddress = descriptorAddress
    self.descriptorReserved = reserved
    self.size = size
    self.memoryWasChecked = memory.isChecked
    processID = nil
    isa = cba_block_isa(&block).map { UInt(bitPattern: $0) } ?? 0
    isaSymbolInfo = symbol(isa)
    isaSymbol = isaSymbolInfo?.name
    invokeAddress = cba_block_invoke(&block).map { UInt(bitPattern: $0) } ?? 0
    invoke = symbol(invokeAddress)
    copyHelperAddress = copyHelper
    disposeHelperAddress = disposeHelper
    self.copyHelper = copyHelper.flatMap(symbol)
    self.disposeHelper = disposeHelper.flatMap(symbol)

    if let signature {
      switch memory.cString(at: signature, limit: Self.signatureLimit) {
      case .failure(let error):
        throw unreadable(error, at: signature, "signature at \(signature.hexadecimal())")
      case .success(let read):
        guard read.terminated else {
          throw BlockInspectionError(
            kind: .unterminatedSignature, address: signature, blockAddress: address,
            reason: "signature at \(signature.hexadecimal()) has no NUL within "
              + "\(read.bytes.count) readable bytes")
        }
        signatureBytes = read.bytes
      }
    } else {
      signatureBytes = nil
    }

    self.layoutWord = layoutWord
    if flags.contains(.hasExtendedLayout) {
      if layoutWord == 0 {
        extendedLayout = ExtendedLayout.none
      } else if cba_layout_word_is_inline(layoutWord) != 0 {
        extendedLayout = ExtendedLayout(inlineValue: layoutWord)
      } else {
        let read: (bytes: [UInt8], terminated: Bool)
        switch memory.cString(at: layoutWord, limit: 4096) {
        case .failure(let error):
          throw unreadable(error, at: layoutWord, "extended layout at \(layoutWord.hexadecimal())")
        case .success(let bytes):
          read = bytes
        }
        do {
          extendedLayout = try ExtendedLayout(decoding: read.bytes + (read.terminated ? [0] : []))
        } catch {
          throw BlockInspectionError(
            kind: .malformedLayout, address: layoutWord &+ UInt(error.offset), blockAddress: address,
            reason: "extended layout at \(layoutWord.hexadecimal()): \(error.reason)")
        }
      }
    } else {
      extendedLayout = nil
    }

    if BlockKind(flags: flags) == .heap, let convention = runtimeForIsa(isa)?.referenceCountConvention {
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
  /// - Throws: `EncodingError` when the signature bytes are not a valid encoding.
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
