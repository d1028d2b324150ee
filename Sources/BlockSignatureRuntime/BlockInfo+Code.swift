// Where a block's code pointers point: a block is only called, copied or released once its
// invoke function and the helpers its flags announce lie in executable memory.

import BlockSignature

extension BlockInfo {
  /// The first of the block's code pointers — its invoke function, then its copy and dispose
  /// helpers when the flags announce them — that does not lie in executable memory of this
  /// process, named (`"invoke"`, `"copy helper"`, `"dispose helper"`) with its address; nil
  /// when all of them do, and for a block read from another process.
  ///
  /// Reading a block calls none of them; calling the block or `_Block_copy` does, and a
  /// pointer into data, a NULL or an unmapped address would crash the process there:
  ///
  ///     if let (role, address) = info.codeOutsideExecutableMemory {
  ///       print("not callable: its \(role) 0x\(String(address, radix: 16)) is not in executable memory")
  ///     }
  public var codeOutsideExecutableMemory: (role: String, address: UInt)? {
    guard processID == nil else { return nil }
    var pointers: [(role: String, address: UInt)] = [("invoke", invokeAddress)]
    if flags.contains(.hasCopyDispose) {
      pointers.append(("copy helper", copyHelperAddress ?? 0))
      pointers.append(("dispose helper", disposeHelperAddress ?? 0))
    }
    let map = MemoryMap.current()
    return pointers.first { $0.address == 0 || map.protection(of: $0.address)?.executable != true }
  }
}
