// The one platform import ladder of the module (argument-parser `Utilities/Platform.swift`).

import BlockSignature

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Android)
  @preconcurrency import Android
#else
  #error("Unsupported platform")
#endif

// MARK: - System calls (the one choke point, swift-system `Internals/Syscalls.swift`)

/// An OS error: the failed call and its `errno`, captured once right after the call.
package struct SystemCallError: Error, Sendable {
  package var call: String
  package var code: Int32
  /// What went wrong when it is not the call's `errno` (a check of our own after the call).
  package var explanation: String? = nil
  package var message: String { explanation ?? "\(call): \(reason)" }
  /// `strerror` of the code, e.g. "No such file or directory".
  package var reason: String { explanation ?? String(cString: strerror(code)) }

  package init(call: String, code: Int32, explanation: String? = nil) {
    self.call = call
    self.code = code
    self.explanation = explanation
  }
}

/// Maps the regular file at `path` read-only. Returns the mapping (nil for an empty file) and its size.
/// Opens without blocking (`O_NONBLOCK`), so a FIFO with no writer is refused like any other
/// file that is not regular, instead of waiting for one.
func system_mapFile(_ path: String) -> Result<(UnsafeMutableRawPointer?, Int), SystemCallError> {
  var fd: Int32
  repeat { fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) } while fd < 0 && errno == EINTR
  if fd < 0 { return .failure(SystemCallError(call: "open", code: errno)) }
  defer { close(fd) }
  var info = stat()
  if fstat(fd, &info) != 0 { return .failure(SystemCallError(call: "fstat", code: errno)) }
  if (info.st_mode & S_IFMT) != S_IFREG {
    return .failure(SystemCallError(call: "fstat", code: EINVAL, explanation: "not a regular file"))
  }
  let size = Int(info.st_size)
  if size == 0 { return .success((nil, 0)) }
  let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
  if address == MAP_FAILED || address == nil {
    return .failure(SystemCallError(call: "mmap", code: errno))
  }
  return .success((address, size))
}

/// Unmaps a mapping made by `system_mapFile`.
func system_unmap(_ address: UnsafeMutableRawPointer, _ size: Int) {
  _ = munmap(address, size)
}

/// `memchr`: the first `byte` in `[start, start + count)`.
@inline(__always)
func system_memchr(_ start: UnsafeRawPointer, _ byte: UInt8, _ count: Int) -> UnsafeRawPointer? {
  UnsafeRawPointer(memchr(start, Int32(byte), count))
}

/// The first occurrence of the three bytes `a b c` in `[start, start + count)`: `memchr` for the
/// first byte (vectorised in libc), then a compare (glibc's `memmem` needs `_GNU_SOURCE`).
@inline(__always)
func system_find3(_ start: UnsafeRawPointer, _ count: Int, _ a: UInt8, _ b: UInt8, _ c: UInt8) -> UnsafeRawPointer? {
  var position = start
  var remaining = count
  while remaining >= 3, let hit = memchr(position, Int32(a), remaining - 2) {
    let found = UnsafeRawPointer(hit)
    if found.load(fromByteOffset: 1, as: UInt8.self) == b && found.load(fromByteOffset: 2, as: UInt8.self) == c {
      return found
    }
    remaining -= position.distance(to: found) + 1
    position = found + 1
  }
  return nil
}
