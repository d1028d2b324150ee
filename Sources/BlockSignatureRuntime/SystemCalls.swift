// The dynamic linker and process files, through the module's one platform import ladder.

import BlockSignature
import BlockSignatureBinary

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

/// `dlopen`: nil `path` is the main program. `onlyIfLoaded` adds `RTLD_NOLOAD`.
func system_dlopen(_ path: String?, onlyIfLoaded: Bool = false) -> UnsafeMutableRawPointer? {
  dlopen(path, (onlyIfLoaded ? RTLD_LAZY | RTLD_NOLOAD : RTLD_NOW) | RTLD_LOCAL)
}

/// The size of a memory page: mappings start and end at its multiples.
let system_pageSize = UInt(max(1, sysconf(Int32(_SC_PAGESIZE))))

/// `dlsym` in a handle from `system_dlopen`.
func system_dlsym(_ handle: UnsafeMutableRawPointer, _ name: String) -> UnsafeMutableRawPointer? {
  dlsym(handle, name)
}

/// `dlclose`.
func system_dlclose(_ handle: UnsafeMutableRawPointer) {
  _ = dlclose(handle)
}

/// The text of the last `dlopen` failure.
func system_dlerror() -> String? {
  dlerror().map { String(cString: $0) }
}

/// Whether the file at `path` can be opened for reading (`access(R_OK)`) and is a regular file
/// (symbolic links followed): `dlopen` of a FIFO would wait for a writer.
func system_checkReadable(_ path: String) -> Result<Void, SystemCallError> {
  guard access(path, R_OK) == 0 else { return .failure(SystemCallError(call: "access", code: errno)) }
  var info = stat()
  guard stat(path, &info) == 0 else { return .failure(SystemCallError(call: "stat", code: errno)) }
  guard info.st_mode & S_IFMT == S_IFREG else {
    return .failure(SystemCallError(call: "stat", code: EINVAL, explanation: "not a regular file"))
  }
  return .success(())
}

/// The calling thread's `errno`, read right after a failed call.
func system_errno() -> Int32 { errno }

/// The `errno` values the module tells apart.
enum SystemErrno {
  /// `EFAULT`: the address is not readable.
  static let fault = EFAULT
  /// `ENOENT`: no such file (under `/proc`: no such process).
  static let noSuchFile = ENOENT
}

/// Whether two paths name the same file (same device and inode).
func system_sameFile(_ a: String, _ b: String) -> Bool {
  if a == b { return true }
  var first = stat()
  var second = stat()
  guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
  return first.st_dev == second.st_dev && first.st_ino == second.st_ino
}

/// The whole of a `/proc` file such as `/proc/<pid>/maps`, read to its end (the kernel hands
/// out about a page of lines per `read`), up to `limit` bytes.
func system_readProcFile(_ path: String, limit: Int = 64 << 20) -> Result<[UInt8], SystemCallError> {
  var fd: Int32
  repeat { fd = open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
  guard fd >= 0 else { return .failure(SystemCallError(call: "open", code: errno)) }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 1 << 16)
  while bytes.count < limit {
    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if count < 0 {
      if errno == EINTR { continue }
      return .failure(SystemCallError(call: "read", code: errno))
    }
    if count == 0 { break }
    bytes.append(contentsOf: chunk[0..<count])
  }
  return .success(bytes)
}
