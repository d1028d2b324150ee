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
  let closure: FFIClosure

  /// The prototypes kept for blocks still to be made, with when each was last used.
  private struct Cache {
    var prototypes: [String: (prototype: BlockPrototype, lastUse: UInt64)] = [:]
    var clock: UInt64 = 0

    mutating func use(_ text: String) -> BlockPrototype? {
      guard let entry = prototypes[text] else { return nil }
      clock += 1
      prototypes[text] = (entry.prototype, clock)
      return entry.prototype
    }

    /// Stores `prototype`, dropping the least recently used beyond `limit`: a dropped one lives
    /// on while blocks made from it do.
    mutating func store(_ prototype: BlockPrototype, limit: Int) {
      clock += 1
      prototypes[prototype.text] = (prototype, clock)
      while prototypes.count > limit, let oldest = prototypes.min(by: { $0.value.lastUse < $1.value.lastUse }) {
        prototypes[oldest.key] = nil
      }
    }
  }

  private static let cache = Locked(Cache())

  /// The most prototypes the cache keeps.
  static let limit = 64

  /// The prototype for `signature` written as `text`, made on first use or after the cache
  /// dropped it.
  static func shared(for signature: MethodSignature, text: String) throws(InvocationError) -> BlockPrototype {
    if let known = cache.withLock({ $0.use(text) }) { return known }
    let made = try BlockPrototype(signature: signature, text: text)
    // Two threads may make one at once: the first stored wins, the other is dropped unused.
    return cache.withLock { cache in
      if let known = cache.use(text) { return known }
      cache.store(made, limit: limit)
      return made
    }
  }

  /// The number of prototypes the cache keeps (at most ``limit``).
  static var count: Int { cache.withLock { $0.prototypes.count } }

  private init(signature: MethodSignature, text: String) throws(InvocationError) {
    self.text = text
    interface = try CallInterface(signature: signature, model: signature.model)
    plan = CallPlan(interface: interface)
    // The block pointer (argument 0) leads each call to its block's state.
    closure = try FFIClosure(cif: interface.cif, userData: nil) { _, result, arguments, _ in
      guard let result, let arguments, let blockSlot = arguments[0] else { return }
      let block = blockSlot.load(as: UnsafeRawPointer.self)
      MadeBlockState.with(block) { $0.respond(block: block, result: result, arguments: arguments) }
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
