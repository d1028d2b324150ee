import BlockSignature
import BlockSignatureBinary

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
      throw BlockInspectionError(kind: .nullPointer, address: 0, message: "null block pointer")
    }
    try self.init(
      reading: UInt(bitPattern: pointer), memory: ProcessMemory(), symbol: { SymbolInfo(address: $0) },
      runtime: { _ in runtime })
  }

  /// Reads the block at `pointer`, in this process, without naming its addresses (``invoke``,
  /// ``isaSymbol`` and the helpers stay nil): for callers that only need its flags, invoke
  /// address and signature, such as an invocation (each `dladdr` costs about a microsecond).
  package init(inspectingUnnamed pointer: UnsafeRawPointer) throws(BlockInspectionError) {
    try self.init(
      reading: UInt(bitPattern: pointer), memory: ProcessMemory(), symbol: { _ in nil }, runtime: { _ in nil })
  }

  /// The signature parsed, or nil when the block has none.
  ///
  ///     info.signature                             // "i20@?0i8q12"
  ///     try info.parsedSignature()?.arguments.count  // 3
  ///
  /// - Throws: `EncodingError` when the signature bytes are not a valid encoding.
  public func parsedSignature(options: ParseOptions = ParseOptions()) throws(EncodingError) -> SignatureEncoding? {
    guard let signatureBytes else { return nil }
    return try signatureBytes.withUnsafeBufferPointer { (bytes) throws(EncodingError) in
      try SignatureEncoding(parsingBytes: bytes, options: options)
    }
  }

  /// The block's C type, from its signature on this machine's data model
  /// (`DataModel.host`): nil when the block has no signature, when the signature is not a
  /// valid encoding (``parsedSignature(options:)`` throws why), or where no built-in model
  /// describes this machine.
  ///
  ///     info.signature     // "i20@?0i8q12"
  ///     info.cDeclaration  // "int (^)(int, long)"
  public var cDeclaration: String? {
    guard let model = DataModel.host, let parsed = try? parsedSignature() else { return nil }
    return parsed.cDeclaration(for: model)
  }

  /// Whether the `isa` names one of the blocks runtime's classes (`_NSConcrete…Block`).
  public var isaIsBlockClass: Bool {
    guard let isaSymbol else { return false }
    return isaSymbol.hasPrefix("_NSConcrete") && isaSymbol.hasSuffix("Block")
  }
}
