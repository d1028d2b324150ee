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

/// The bytes of a block's header and of its descriptor's first `descriptorWords` words.
func headerBytes(_ block: UnsafeRawPointer, descriptorWords: Int = 6) -> [UInt8] {
  let header = Array(UnsafeRawBufferPointer(start: block, count: 32))
  let descriptor = block.load(fromByteOffset: 24, as: UnsafeRawPointer.self)
  return header + Array(UnsafeRawBufferPointer(start: descriptor, count: 8 * descriptorWords))
}
