// The hook tests share the C fixtures' record of what the last block received, so they run one
// at a time.

import BlockSignature
import BlockSignatureFFI
import BlockSignatureHook
import HookFixtures
import Synchronization
import Testing

@Suite(.serialized) struct HookTests {}

/// A hook's record of what it saw, safe from any thread.
final class Seen: Sendable {
  private let values = Mutex<[String]>([])
  func append(_ value: String) { values.withLock { $0.append(value) } }
  var all: [String] { values.withLock { $0 } }
}

/// The bytes of a block's header and of its descriptor: the parts its flags say it has
/// (reserved and size; the helpers with BLOCK_HAS_COPY_DISPOSE; the signature and layout with
/// BLOCK_HAS_SIGNATURE), never past them; only the first `descriptorWords` when given.
func headerBytes(_ block: UnsafeRawPointer, descriptorWords: Int? = nil) -> [UInt8] {
  let header = Array(UnsafeRawBufferPointer(start: block, count: 32))
  let flags = UInt32(bitPattern: block.load(fromByteOffset: 8, as: Int32.self))
  let parts = 2 + (flags & (1 << 25) != 0 ? 2 : 0) + (flags & (1 << 30) != 0 ? 2 : 0)
  let words = min(descriptorWords ?? parts, parts)
  let descriptor = block.load(fromByteOffset: 24, as: UnsafeRawPointer.self)
  return header + Array(UnsafeRawBufferPointer(start: descriptor, count: 8 * words))
}
