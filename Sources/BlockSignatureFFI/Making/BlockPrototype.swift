// What every block made for one signature shares: the call interface, the libffi closure that
// is their invoke, and their descriptor. A block finds its own handler through its first
// argument, the block pointer, so one closure serves every block of a signature. Each block's
// state holds its prototype, so a prototype lives while any block made from it does; the cache
// keeps the most recently used ones for blocks still to be made, up to a bound.

import BlockSignature
import CBlockABI
import CFFI

/// The shared parts of the blocks made for one signature text.
final class BlockPrototype: @unchecked Sendable {
  /// The signature as the descriptor holds it.
  let text: String
  let interface: CallInterface
  /// What each call needs at hand.
  let plan: CallPlan
  /// The flags of a literal before `_Block_copy`: helpers, signature, and `BLOCK_USE_STRET`
  /// where clang sets it (x86_64, a return value in memory).
  let flags: BlockFlags
  let descriptor: UnsafeMutablePointer<CBA_Block_made_descriptor>
  private let signatureBytes: UnsafeMutablePointer<CChar>
  /// The blocks' invoke: the entry for scalars (``MadeBlockEntry``) or a libffi closure.
  let invoke: UnsafeRawPointer
  private let closure: FFIClosure?

  /// The prototypes kept for blocks still to be made.
  private static let cache = PreparationCache<String, BlockPrototype>(limit: 64)

  /// The most prototypes the cache keeps.
  static var limit: Int { cache.limit }

  /// The prototype for `signature` written as `text`, made on first use or after the cache
  /// dropped it.
  static func shared(for signature: MethodSignature, text: String) throws(InvocationError) -> BlockPrototype {
    try cache.value(for: text) { () throws(InvocationError) in try BlockPrototype(signature: signature, text: text) }
  }

  /// The number of prototypes the cache keeps (at most ``limit``).
  static var count: Int { cache.count }

  private init(signature: MethodSignature, text: String) throws(InvocationError) {
    self.text = text
    interface = try CallInterface(signature: signature, model: signature.model)
    plan = CallPlan(interface: interface)
    if plan.frameSlots != nil, let entry = cba_made_block_entry_address() {
      closure = nil
      invoke = entry
    } else {
      // The block pointer (argument 0) leads each call to its block's state.
      let closure = try FFIClosure(cif: interface.cif, userData: nil) { _, result, arguments, _ in
        guard let result, let arguments, let blockSlot = arguments[0] else { return }
        let block = blockSlot.load(as: UnsafeRawPointer.self)
        MadeBlockCaptures.respond(MadeBlockCaptures.of(block), block: block, result: result, arguments: arguments)
      }
      self.closure = closure
      invoke = closure.code
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
        part1: CBA_Block_descriptor_1(reserved: 0, size: UInt(MadeBlockCaptures.literalSize)),
        part2: CBA_Block_descriptor_2(
          copy: { destination, source in MadeBlockCaptures.copyCaptures(from: source, to: destination) },
          dispose: { block in MadeBlockCaptures.disposeCaptures(of: block) }),
        part3: CBA_Block_descriptor_3(signature: UnsafePointer(signatureBytes), layout: nil),
        entry_dispatch: closure == nil ? MadeBlockEntry.dispatch : nil))
  }

  deinit {
    plan.deallocate()
    descriptor.deallocate()
    signatureBytes.deallocate()
  }
}
