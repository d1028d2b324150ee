import CBlockSignatureShims

/// Checked reads of this process's own memory.
///
/// On Linux, `process_vm_readv` on the process itself fails with `EFAULT` for an unmapped
/// or unreadable (`PROT_NONE`) address instead of faulting, so a wild pointer becomes an
/// error rather than a crash. Where that call is unavailable (another OS, a seccomp
/// sandbox), reads are unchecked and ``isChecked`` is false.
struct ProcessMemory {
  /// Whether reads are checked against the process's mappings.
  let isChecked: Bool

  init() {
    var probe: UInt64 = 0
    var target: UInt64 = 0x5a5a
    let read = withUnsafeMutableBytes(of: &probe) { buffer in
      withUnsafeBytes(of: &target) { cbs_read_memory($0.baseAddress, buffer.baseAddress!, 8) }
    }
    isChecked = read == 8 && probe == target
  }

  /// Whether `count` bytes at `address` can be read.
  func isReadable(_ address: UInt, count: Int) -> Bool {
    guard address != 0, count >= 0 else { return false }
    let (end, overflow) = address.addingReportingOverflow(UInt(count))
    guard !overflow else { return false }
    guard isChecked else { return true }
    var scratch = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    var position = address
    while position < end {
      let chunk = Int(min(UInt(MemoryLayout.size(ofValue: scratch)), end - position))
      let read = withUnsafeMutableBytes(of: &scratch) { buffer in
        cbs_read_memory(UnsafeRawPointer(bitPattern: position), buffer.baseAddress!, chunk)
      }
      guard read > 0 else { return false }
      position += UInt(read)
    }
    return true
  }

  /// The bytes of the NUL-terminated string at `address`, without the NUL.
  ///
  /// - Returns: the bytes and whether a NUL ended them within `limit` bytes, or `nil` when
  ///   the first byte is unreadable.
  func cString(at address: UInt, limit: Int) -> (bytes: [UInt8], terminated: Bool)? {
    guard address != 0 else { return nil }
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
          cbs_read_memory(UnsafeRawPointer(bitPattern: position), buffer.baseAddress!, want)
        }
        guard read > 0 else { return bytes.isEmpty ? nil : (bytes, false) }
      } else {
        // Unchecked: read byte by byte so nothing past the terminator is touched.
        guard let pointer = UnsafePointer<UInt8>(bitPattern: position) else { return nil }
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
        return (bytes, true)
      }
      bytes.append(contentsOf: chunk[0..<read])
      position += UInt(read)
    }
    return (bytes, false)
  }
}
