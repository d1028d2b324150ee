// What every block made for one signature shares, made once and kept for the process's life:
// the call interface, the libffi closure that is their invoke, and their descriptor. A block
// finds its own handler through its first argument, the block pointer, so one closure serves
// every block of a signature.

import BlockSignature
import CBlockABI
import CFFI

/// The shared parts of the blocks made for one signature text.
final class BlockPrototype: @unchecked Sendable {
  /// The signature as the descriptor holds it.
  let text: String
  let interface: CallInterface
  /// The flags of a literal before `_Block_copy`: helpers, signature, and `BLOCK_USE_STRET`
  /// where clang sets it (x86_64, a return value in memory).
  let flags: BlockFlags
  let descriptor: UnsafeMutablePointer<CBA_Block_made_descriptor>
  private let signatureBytes: UnsafeMutablePointer<CChar>
  let closure: FFIClosure

  private static let cache = Locked<[String: BlockPrototype]>([:])

  /// The prototype for `signature` written as `text`, made on first use.
  static func shared(for signature: MethodSignature, text: String) throws(InvocationError) -> BlockPrototype {
    if let known = cache.withLock({ $0[text] }) { return known }
    let made = try BlockPrototype(signature: signature, text: text)
    // Two threads may make one at once: the first stored wins, the other is dropped unused.
    return cache.withLock { prototypes in
      if let known = prototypes[text] { return known }
      prototypes[text] = made
      return made
    }
  }

  /// The number of prototypes made: one per distinct signature text.
  static var count: Int { cache.withLock { $0.count } }

  private init(signature: MethodSignature, text: String) throws(InvocationError) {
    self.text = text
    interface = try CallInterface(signature: signature, model: signature.model)
    // The block pointer (argument 0) leads each call to its block's state.
    closure = try FFIClosure(cif: interface.cif, userData: nil) { _, result, arguments, _ in
      guard let result, let arguments, let blockSlot = arguments[0] else { return }
      let block = blockSlot.load(as: UnsafeRawPointer.self)
      MadeBlockState.of(block).respond(block: block, result: result, arguments: arguments)
    }
    var flags: BlockFlags = [.hasCopyDispose, .hasSignature]
    if signature.model.callingConvention == .systemV,
      signature.encoding.argumentPlacement(for: signature.model).returnsInMemory == true
    {
      flags.insert(.useStret)
    }
    self.flags = flags
    signatureBytes = CStringArena.duplicate(text)
    descriptor = .allocate(capacity: 1)
    descriptor.initialize(
      to: CBA_Block_made_descriptor(
        part1: CBA_Block_descriptor_1(reserved: 0, size: UInt(MemoryLayout<CBA_Block_made>.size)),
        part2: CBA_Block_descriptor_2(
          copy: { destination, source in MadeBlockState.retainCapture(copiedFrom: source, to: destination) },
          dispose: { block in MadeBlockState.releaseCapture(of: block) }),
        part3: CBA_Block_descriptor_3(signature: UnsafePointer(signatureBytes), layout: nil)))
  }

  deinit {
    descriptor.deallocate()
    signatureBytes.deallocate()
  }
}
