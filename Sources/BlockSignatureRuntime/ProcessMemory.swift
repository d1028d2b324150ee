import BlockSignature
import BlockSignatureBinary
import BlockSignatureSystem
import CBlockSignatureShims

/// Checked reads of a process's memory: this process's own, or another's.
///
/// On Linux, `process_vm_readv` fails with `EFAULT` for an unmapped or unreadable
/// (`PROT_NONE`) address instead of faulting, so a wild pointer becomes an error rather than
/// a crash. Where that call is unavailable for this process (another OS, a seccomp sandbox),
/// its own reads are unchecked and ``isChecked`` is false; another process's memory is read
/// through that call only.
///
/// This process's reads of bytes inside a readable segment of a loaded object (where blocks'
/// descriptors and signatures live) are copied without a system call, under the dynamic
/// linker's lock (`cbs_copy_from_loaded_image`); other bytes go through `process_vm_readv`.
package struct ProcessMemory {
  /// The process read; nil for this one.
  let pid: Int32?
  /// Whether reads are checked against the process's mappings.
  let isChecked: Bool

  /// This process's memory.
  package init() {
    pid = nil
    isChecked = Self.ownReadsAreChecked
  }

  /// Whether `process_vm_readv` reads this process: probed once (each call costs a system
  /// call, a microsecond or more on a virtual machine).
  private static let ownReadsAreChecked: Bool = {
    var probe: UInt64 = 0
    var target: UInt64 = 0x5a5a
    let read = withUnsafeMutableBytes(of: &probe) { buffer in
      withUnsafeBytes(of: &target) { cbs_read_memory($0.baseAddress, buffer.baseAddress!, 8) }
    }
    return read == 8 && probe == target
  }()

  /// The memory of process `pid`, read with `process_vm_readv` (which needs the right to trace
  /// it: the same user and, under Yama, a `ptrace_scope` that allows it, or `CAP_SYS_PTRACE`).
  init(process pid: Int32) {
    self.pid = pid
    isChecked = true
  }

  /// Copies `buffer.count` bytes at `address` into `buffer`; nil when every byte was read,
  /// otherwise why not (`EFAULT` where the memory is not readable, `ESRCH` when the process is
  /// gone, `EPERM` when it may not be read).
  func read(_ address: UInt, into buffer: UnsafeMutableRawBufferPointer) -> SystemCallError? {
    let fault = SystemCallError(call: "process_vm_readv", code: SystemErrno.fault)
    guard let base = buffer.baseAddress, !buffer.isEmpty else { return nil }
    guard address != 0, !address.addingReportingOverflow(UInt(buffer.count)).overflow else { return fault }
    guard isChecked else {
      // Unchecked (this process only): the caller vouches for the address.
      base.copyMemory(from: UnsafeRawPointer(bitPattern: address)!, byteCount: buffer.count)
      return nil
    }
    if pid == nil, cbs_copy_from_loaded_image(address, base, buffer.count) == 1 { return nil }
    var done = 0
    while done < buffer.count {
      let read = cbs_read_process_memory(pid ?? -1, address + UInt(done), base + done, buffer.count - done)
      if read < 0 { return SystemCallError(call: "process_vm_readv", code: system_errno()) }
      if read == 0 { return fault }
      done += read
    }
    return nil
  }

  /// Reads a value of a trivial type `T` at `address`; see ``read(_:into:)``.
  func read<T: BitwiseCopyable>(_ type: T.Type, at address: UInt, into value: inout T) -> SystemCallError? {
    withUnsafeMutableBytes(of: &value) { read(address, into: $0) }
  }

  /// The bytes of the NUL-terminated string at `address`, without the NUL.
  ///
  /// - Returns: the bytes and whether a NUL ended them within `limit` bytes, or the error of
  ///   the first read when not even the first byte is readable.
  package func cString(at address: UInt, limit: Int) -> Result<(bytes: [UInt8], terminated: Bool), SystemCallError> {
    guard address != 0 else { return .failure(SystemCallError(call: "process_vm_readv", code: SystemErrno.fault)) }
    if pid == nil, isChecked, let found = ownLoadedString(at: address, limit: limit) { return .success(found) }
    var bytes: [UInt8] = []
    var position = address
    var chunk = [UInt8](repeating: 0, count: 256)
    while bytes.count < limit {
      // Never cross a 256-byte boundary in one read, so a string that ends just before an
      // unreadable page is still read whole.
      let toBoundary = 256 - Int(position % 256)
      let want = min(toBoundary, limit - bytes.count)
      let read: Int
      if isChecked {
        read = chunk.withUnsafeMutableBytes { buffer in
          cbs_read_process_memory(pid ?? -1, position, buffer.baseAddress!, want)
        }
        guard read > 0 else {
          if bytes.isEmpty {
            return .failure(
              SystemCallError(call: "process_vm_readv", code: read < 0 ? system_errno() : SystemErrno.fault))
          }
          return .success((bytes, false))
        }
      } else {
        // Unchecked: read byte by byte so nothing past the terminator is touched.
        guard let pointer = UnsafePointer<UInt8>(bitPattern: position) else {
          return .failure(SystemCallError(call: "read", code: SystemErrno.fault))
        }
        var n = 0
        while n < want {
          chunk[n] = pointer[n]
          n += 1
          if chunk[n - 1] == 0 { break }
        }
        read = n
      }
      if let nul = chunk[0..<read].firstIndex(of: 0) {
        bytes.append(contentsOf: chunk[0..<nul])
        return .success((bytes, true))
      }
      bytes.append(contentsOf: chunk[0..<read])
      position += UInt(read)
    }
    return .success((bytes, false))
  }

  /// The string at `address` when it lies in a readable segment of a loaded object and ends
  /// within it or at `limit`; nil otherwise (read through `process_vm_readv` then).
  private func ownLoadedString(at address: UInt, limit: Int) -> (bytes: [UInt8], terminated: Bool)? {
    // Measured first, then copied into an array of that length (the object may be unloaded
    // in between: the copy then fails, and the caller reads another way).
    var terminated: Int32 = 0
    let length = cbs_copy_string_from_loaded_image(address, nil, limit, &terminated)
    guard length >= 0, terminated != 0 || length == limit else { return nil }
    var copied = -1
    var ignored: Int32 = 0
    let bytes = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
      copied = length == 0 ? 0 : cbs_copy_string_from_loaded_image(address, buffer.baseAddress, length, &ignored)
      count = max(0, min(copied, length))
    }
    guard copied == length else { return nil }
    return (bytes, terminated != 0)
  }
}
