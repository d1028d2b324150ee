// Reading a block literal through a `ProcessMemory`, part by part: the header, the descriptor
// parts its flags announce, the signature, the extended layout and the reference count. Each
// part is copied out and checked before anything follows a pointer in it.

import BlockSignature
import BlockSignatureBinary
import BlockSignatureSystem
import CBlockABI

extension BlockInfo {
  /// Reads the block at `address` through `memory`: the header and the descriptor parts its
  /// flags announce are copied out first, and the `CBlockABI` accessors read the copies.
  init(
    reading address: UInt, memory: ProcessMemory, symbol: (UInt) -> SymbolInfo?,
    runtime runtimeForIsa: (UInt) -> BlocksRuntime?
  ) throws(BlockInspectionError) {
    let reader = BlockReader(address: address, memory: memory)
    var block = try reader.header()
    let flags = BlockFlags(rawValue: cba_block_flags(&block))
    let descriptorAddress = try reader.descriptorAddress(of: &block)
    let descriptor = try reader.descriptor(at: descriptorAddress, of: block, flags: flags)

    self.address = address
    self.flags = flags
    self.descriptorAddress = descriptorAddress
    self.descriptorReserved = descriptor.reserved
    self.size = descriptor.size
    self.memoryWasChecked = memory.isChecked
    processID = nil
    isa = cba_block_isa(&block).map { UInt(bitPattern: $0) } ?? 0
    isaSymbolInfo = symbol(isa)
    isaSymbol = isaSymbolInfo?.name
    invokeAddress = cba_block_invoke(&block).map { UInt(bitPattern: $0) } ?? 0
    invoke = symbol(invokeAddress)
    copyHelperAddress = descriptor.copyHelper
    disposeHelperAddress = descriptor.disposeHelper
    self.copyHelper = descriptor.copyHelper.flatMap(symbol)
    self.disposeHelper = descriptor.disposeHelper.flatMap(symbol)
    signatureBytes = try descriptor.signature.map(reader.signature(at:))
    self.layoutWord = descriptor.layoutWord
    extendedLayout =
      flags.contains(.hasExtendedLayout) ? try reader.extendedLayout(word: descriptor.layoutWord) : nil
    (referenceCount, referenceCountConvention) = Self.referenceCount(flags: flags, runtime: runtimeForIsa(isa))
  }

  /// The reference count of a heap block under `runtime`'s convention, and the convention;
  /// nils for other blocks, or without a runtime.
  private static func referenceCount(flags: BlockFlags, runtime: @autoclosure () -> BlocksRuntime?)
    -> (Int?, BlocksRuntime.ReferenceCountConvention?)
  {
    guard BlockKind(flags: flags) == .heap, let convention = runtime()?.referenceCountConvention else {
      return (nil, nil)
    }
    return (convention.referenceCount(flags: flags), convention)
  }
}

/// The fields of a block's descriptor, read from a copy of its parts, pointers in the
/// reading process's addresses.
private struct DescriptorFields {
  var size: Int
  var reserved: UInt
  var copyHelper: UInt?
  var disposeHelper: UInt?
  var signature: UInt?
  var layoutWord: UInt
}

/// Reads the parts of the block at `address` through `memory`, each checked before it is used.
private struct BlockReader {
  let address: UInt
  let memory: ProcessMemory

  /// The pointer size: a block's alignment.
  private static let word = UInt(MemoryLayout<UnsafeRawPointer>.size)
  /// The bytes of the block header.
  private static let headerSize = MemoryLayout<CBA_Block_layout>.size

  /// The error for a failed read of `what` at `at`.
  private func unreadable(_ error: SystemCallError, at: UInt, _ what: String) -> BlockInspectionError {
    if let pid = memory.pid, error.code != SystemErrno.fault {
      return BlockInspectionError(
        kind: .processNotReadable, address: at, blockAddress: address,
        message: "cannot read process \(pid): \(error.reason)")
    }
    return BlockInspectionError(
      kind: .unreadableMemory, address: at, blockAddress: address, message: "\(what) is not readable memory")
  }

  /// The block header, copied out; the block must be aligned to a pointer.
  func header() throws(BlockInspectionError) -> CBA_Block_layout {
    guard address % Self.word == 0 else {
      throw BlockInspectionError(
        kind: .misaligned, address: address, message: "block pointer is not aligned to \(Self.word) bytes")
    }
    var block = CBA_Block_layout()
    if let error = memory.read(CBA_Block_layout.self, at: address, into: &block) {
      throw unreadable(error, at: address, "the \(Self.headerSize)-byte block header")
    }
    return block
  }

  /// The descriptor's address from the header; not NULL.
  func descriptorAddress(of block: inout CBA_Block_layout) throws(BlockInspectionError) -> UInt {
    guard let remoteDescriptor = cba_block_descriptor(&block) else {
      throw BlockInspectionError(kind: .nullDescriptor, address: address, message: "descriptor pointer is null")
    }
    return UInt(bitPattern: remoteDescriptor)
  }

  /// The bytes of every descriptor part `flags` announce.
  private static func descriptorPartsSize(flags: BlockFlags) -> Int {
    if flags.contains(.smallDescriptor) {
      return MemoryLayout<CBA_Block_descriptor_small>.size - (flags.contains(.hasCopyDispose) ? 0 : 8)
    }
    return MemoryLayout<CBA_Block_descriptor_1>.size
      + (flags.contains(.hasCopyDispose) ? MemoryLayout<CBA_Block_descriptor_2>.size : 0)
      + (flags.contains(.hasSignature) ? MemoryLayout<CBA_Block_descriptor_3>.size : 0)
  }

  /// The descriptor at `descriptorAddress`: every part `flags` announce is read before any
  /// accessor looks at one, and the size it records must be plausible.
  func descriptor(at descriptorAddress: UInt, of block: CBA_Block_layout, flags: BlockFlags)
    throws(BlockInspectionError) -> DescriptorFields
  {
    let partsSize = Self.descriptorPartsSize(flags: flags)
    // Room for the largest: three classic parts, six words.
    var parts: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
    let descriptorError: SystemCallError? =
      descriptorAddress % (flags.contains(.smallDescriptor) ? 4 : Self.word) != 0
      ? SystemCallError(call: "read", code: SystemErrno.fault)
      : withUnsafeMutableBytes(of: &parts) { memory.read(descriptorAddress, into: .init(rebasing: $0[..<partsSize])) }
    if let descriptorError {
      throw unreadable(
        descriptorError, at: descriptorAddress,
        "descriptor at \(descriptorAddress.hexadecimal()) (\(partsSize) bytes for flags \(flags))")
    }
    let fields = Self.fields(of: block, parts: &parts, at: descriptorAddress, flags: flags)
    guard fields.size >= Self.headerSize, fields.size <= 1 << 30 else {
      throw BlockInspectionError(
        kind: .implausibleSize, address: descriptorAddress, blockAddress: address,
        message:
          "descriptor at \(descriptorAddress.hexadecimal()) records a block size of \(UInt(bitPattern: fields.size).hexadecimal()) bytes "
          + "(a block is at least \(Self.headerSize))")
    }
    return fields
  }

  /// The descriptor's fields as the accessors read them from the copies: the copied header
  /// points at the copied descriptor. A small descriptor's fields are relative to their own
  /// address, so what the accessors derive from one points into the copy and is moved back to
  /// the descriptor's address.
  private static func fields(
    of block: CBA_Block_layout, parts: inout (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64),
    at descriptorAddress: UInt, flags: BlockFlags
  ) -> DescriptorFields {
    var copy = block
    return withUnsafeMutableBytes(of: &parts) { local in
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
      return DescriptorFields(
        size: Int(truncatingIfNeeded: cba_block_descriptor_size(&copy)),
        reserved: UInt(cba_block_descriptor_reserved(&copy)),
        copyHelper: remote(cba_block_copy_helper(&copy)), disposeHelper: remote(cba_block_dispose_helper(&copy)),
        signature: remote(cba_block_signature(&copy).map(UnsafeRawPointer.init)), layoutWord: layout)
    }
  }

  /// The signature's bytes at `signature`, which must end in a NUL within
  /// ``BlockInfo/signatureLimit`` bytes.
  func signature(at signature: UInt) throws(BlockInspectionError) -> [UInt8] {
    switch memory.cString(at: signature, limit: BlockInfo.signatureLimit) {
    case .failure(let error):
      throw unreadable(error, at: signature, "signature at \(signature.hexadecimal())")
    case .success(let read):
      guard read.terminated else {
        throw BlockInspectionError(
          kind: .unterminatedSignature, address: signature, blockAddress: address,
          message: "signature at \(signature.hexadecimal()) has no NUL within "
            + "\(read.bytes.count) readable bytes")
      }
      return read.bytes
    }
  }

  /// The extended layout of descriptor part 3's word: none for 0, inline in the word, or a
  /// string it points to.
  func extendedLayout(word layoutWord: UInt) throws(BlockInspectionError) -> ExtendedLayout {
    if layoutWord == 0 { return ExtendedLayout.none }
    if cba_layout_word_is_inline(layoutWord) != 0 { return ExtendedLayout(inlineValue: layoutWord) }
    let read: (bytes: [UInt8], terminated: Bool)
    switch memory.cString(at: layoutWord, limit: 4096) {
    case .failure(let error):
      throw unreadable(error, at: layoutWord, "extended layout at \(layoutWord.hexadecimal())")
    case .success(let bytes):
      read = bytes
    }
    do {
      return try ExtendedLayout(decoding: read.bytes + (read.terminated ? [0] : []))
    } catch {
      throw BlockInspectionError(
        kind: .malformedLayout, address: layoutWord &+ UInt(error.offset), blockAddress: address,
        message: "extended layout at \(layoutWord.hexadecimal()): \(error.message)")
    }
  }
}
