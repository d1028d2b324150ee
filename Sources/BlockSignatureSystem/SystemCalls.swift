// Every system call the project makes, and the one platform import ladder (argument-parser
// `Utilities/Platform.swift`, swift-system `Internals/Syscalls.swift`): no other target
// imports the C library. Each wrapper returns a `Result` or an optional; the libraries above
// turn failures into their typed errors.

import CBlockSignatureShims

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
package func system_mapFile(_ path: String) -> Result<(UnsafeMutableRawPointer?, Int), SystemCallError> {
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
package func system_unmap(_ address: UnsafeMutableRawPointer, _ size: Int) {
  _ = munmap(address, size)
}

/// `memchr`: the first `byte` in `[start, start + count)`.
@inline(__always)
package func system_memchr(_ start: UnsafeRawPointer, _ byte: UInt8, _ count: Int) -> UnsafeRawPointer? {
  UnsafeRawPointer(memchr(start, Int32(byte), count))
}

/// The first occurrence of the three bytes `a b c` in `[start, start + count)`: `memchr` for the
/// first byte (vectorised in libc), then a compare (glibc's `memmem` needs `_GNU_SOURCE`).
@inline(__always)
package func system_find3(_ start: UnsafeRawPointer, _ count: Int, _ a: UInt8, _ b: UInt8, _ c: UInt8)
  -> UnsafeRawPointer?
{
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

// MARK: - The dynamic linker, files and /proc (used by BlockSignatureRuntime)

/// `dlopen`: nil `path` is the main program. `onlyIfLoaded` adds `RTLD_NOLOAD`; `global` makes
/// the library's symbols available to the libraries loaded after it (`RTLD_GLOBAL`).
package func system_dlopen(_ path: String?, onlyIfLoaded: Bool = false, global: Bool = false)
  -> UnsafeMutableRawPointer?
{
  dlopen(path, (onlyIfLoaded ? RTLD_LAZY | RTLD_NOLOAD : RTLD_NOW) | (global ? RTLD_GLOBAL : RTLD_LOCAL))
}

/// The size of a memory page: mappings start and end at its multiples.
package let system_pageSize = UInt(max(1, sysconf(Int32(_SC_PAGESIZE))))

/// `dlsym` in a handle from `system_dlopen`.
package func system_dlsym(_ handle: UnsafeMutableRawPointer, _ name: String) -> UnsafeMutableRawPointer? {
  dlsym(handle, name)
}

/// `dlclose`.
package func system_dlclose(_ handle: UnsafeMutableRawPointer) {
  _ = dlclose(handle)
}

/// The text of the last `dlopen` failure.
package func system_dlerror() -> String? {
  dlerror().map { String(cString: $0) }
}

/// Whether the file at `path` can be opened for reading (`access(R_OK)`) and is a regular file
/// (symbolic links followed): `dlopen` of a FIFO would wait for a writer.
package func system_checkReadable(_ path: String) -> Result<Void, SystemCallError> {
  guard access(path, R_OK) == 0 else { return .failure(SystemCallError(call: "access", code: errno)) }
  var info = stat()
  guard stat(path, &info) == 0 else { return .failure(SystemCallError(call: "stat", code: errno)) }
  guard info.st_mode & S_IFMT == S_IFREG else {
    return .failure(SystemCallError(call: "stat", code: EINVAL, explanation: "not a regular file"))
  }
  return .success(())
}

/// The calling thread's `errno`, read right after a failed call.
package func system_errno() -> Int32 { errno }

/// The `errno` values the module tells apart.
package enum SystemErrno {
  /// `EFAULT`: the address is not readable.
  package static let fault = EFAULT
  /// `ENOENT`: no such file (under `/proc`: no such process).
  package static let noSuchFile = ENOENT
}

/// Whether two paths name the same file (same device and inode).
package func system_sameFile(_ a: String, _ b: String) -> Bool {
  if a == b { return true }
  var first = stat()
  var second = stat()
  guard stat(a, &first) == 0, stat(b, &second) == 0 else { return false }
  return first.st_dev == second.st_dev && first.st_ino == second.st_ino
}

/// The whole of a `/proc` file such as `/proc/<pid>/maps`, read to its end (the kernel hands
/// out about a page of lines per `read`), up to `limit` bytes.
package func system_readProcFile(_ path: String, limit: Int = 64 << 20) -> Result<[UInt8], SystemCallError> {
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

// MARK: - Pipes and child processes (used by BlockSignatureRuntime's ContainedRun)

/// A pipe whose two ends are close-on-exec: a forked child holds the write end, a program it
/// runs with `exec` does not.
package func system_pipe() -> Result<(read: Int32, write: Int32), SystemCallError> {
  var ends: [Int32] = [-1, -1]
  guard pipe(&ends) == 0 else { return .failure(SystemCallError(call: "pipe", code: errno)) }
  for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
  return .success((ends[0], ends[1]))
}

/// `write` of all of `bytes` (retrying on EINTR and short writes); false when it failed.
@discardableResult
package func system_writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
  var offset = 0
  while offset < bytes.count {
    let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
    if count < 0 {
      if errno == EINTR { continue }
      return false
    }
    offset += count
  }
  return true
}

/// Everything a pipe holds until every writer has closed it, at most `limit` bytes; with
/// `nonBlocking`, stops at what is there now instead of waiting for writers.
package func system_readPipe(_ fd: Int32, limit: Int, nonBlocking: Bool) -> [UInt8] {
  if nonBlocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 4096)
  while bytes.count < limit {
    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if count < 0 && errno == EINTR { continue }
    if count <= 0 { break }
    bytes.append(contentsOf: chunk[0..<count])
  }
  return bytes
}

/// `close`.
package func system_close(_ fd: Int32) { _ = close(fd) }

/// `fflush` of standard output and standard error, before a fork (a buffer both processes
/// held would be written twice).
package func system_flushStandardStreams() {
  _ = fflush(stdout)
  _ = fflush(stderr)
}

/// `_exit`: ends a forked child at once, after flushing what it printed (no `atexit`
/// handlers of the parent's run twice).
package func system_exitChild(_ status: Int32) -> Never {
  system_flushStandardStreams()
  _exit(status)
}

/// The conventional name of a signal (`SIGSEGV`), or `signal N`.
package func system_signalName(_ signal: Int32) -> String {
  let names: [Int32: String] = [
    SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGFPE: "SIGFPE", SIGABRT: "SIGABRT",
    SIGTRAP: "SIGTRAP", SIGSYS: "SIGSYS", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGINT: "SIGINT",
    SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGUSR1: "SIGUSR1",
    SIGUSR2: "SIGUSR2", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
  ]
  return names[signal] ?? "signal \(signal)"
}

/// The signals that mean the user stopped the program (an interrupt, a hang-up, a
/// termination), as opposed to a crash.
package let system_stopSignals: Set<Int32> = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE]

/// The signals whose `si_addr` is the memory address a bad access was about.
package let system_memoryFaultSignals: Set<Int32> = [SIGSEGV, SIGBUS]

/// The value of the environment variable `name`, if set.
package func system_environment(_ name: String) -> String? {
  getenv(name).map { String(cString: $0) }
}

/// Whether `path` names a regular file (symbolic links followed).
package func system_isRegularFile(_ path: String) -> Bool {
  var info = stat()
  return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
}

/// How a program that `system_runProgram` ran ended.
package enum ProgramEnd: Equatable, Sendable {
  /// It exited with this status.
  case exited(Int32)
  /// This signal ended it.
  case signaled(Int32)
  /// It ran past the time limit and was killed.
  case timedOut
}

/// Runs `executable` with `arguments` in `directory`, in this process's process group (an
/// interrupt from the terminal reaches both), its output and errors written to the two files,
/// and waits at most `timeLimit` seconds, after which it is killed.
package func system_runProgram(
  _ executable: String, _ arguments: [String], directory: String, outputPath: String, errorPath: String,
  timeLimit: Int
) -> Result<ProgramEnd, SystemCallError> {
  var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
  defer { for pointer in argv { free(pointer) } }
  let pid = cbs_spawn(executable, &argv, directory, outputPath, errorPath)
  guard pid > 0 else { return .failure(SystemCallError(call: "posix_spawn", code: errno)) }
  var status: Int32 = 0
  var signal: Int32 = 0
  switch cbs_wait_child_for(pid, timeLimit * 1000, &status, &signal) {
  case 1: return .success(signal != 0 ? .signaled(signal) : .exited(status))
  case 0:
    kill(pid, SIGKILL)
    _ = cbs_wait_child(pid, &status, &signal)
    return .success(.timedOut)
  default: return .failure(SystemCallError(call: "waitpid", code: errno))
  }
}

/// `free`, for memory a C API handed over (`class_copyMethodList`'s lists).
package func system_free(_ pointer: UnsafeMutableRawPointer?) { free(pointer) }

/// `realpath`: `path` with symbolic links resolved, or nil when it cannot be.
package func system_realpath(_ path: String) -> String? {
  guard let real = realpath(path, nil) else { return nil }
  defer { free(real) }
  return String(cString: real)
}

// MARK: - Folders and file identities (the binary scanner's batch of files)

/// What a path names.
package enum FileKind: Sendable {
  case regular, directory, symbolicLink, other
}

/// The kind of file at `path` (`lstat` unless `followingLinks`), or nil when there is none.
package func system_fileKind(_ path: String, followingLinks: Bool) -> FileKind? {
  var info = stat()
  guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
  switch info.st_mode & S_IFMT {
  case S_IFREG: return .regular
  case S_IFDIR: return .directory
  case S_IFLNK: return .symbolicLink
  default: return .other
  }
}

/// The device and inode of the file `path` names (links followed): two paths with the same
/// identity are one file.
package func system_fileIdentity(_ path: String) -> [UInt64]? {
  var info = stat()
  guard stat(path, &info) == 0 else { return nil }
  return [UInt64(info.st_dev), UInt64(info.st_ino)]
}

/// The names in the folder `path` (without `.` and `..`), in the order the folder lists them.
package func system_directoryEntries(_ path: String) -> Result<[String], SystemCallError> {
  guard let folder = opendir(path) else { return .failure(SystemCallError(call: "opendir", code: errno)) }
  defer { closedir(folder) }
  var names: [String] = []
  while let entry = readdir(folder) {
    let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
      String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
    if name != "." && name != ".." { names.append(name) }
  }
  return .success(names)
}

/// `isatty`: whether the descriptor is a terminal.
package func system_isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

/// One `read` of standard input into `buffer`: the byte count (0 at its end), retried on EINTR.
package func system_readStandardInput(_ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, SystemCallError> {
  while true {
    let count = read(0, buffer.baseAddress, buffer.count)
    if count >= 0 { return .success(count) }
    if errno != EINTR { return .failure(SystemCallError(call: "read", code: errno)) }
  }
}

/// Whether the calling thread is the process's main thread.
package func system_isMainThread() -> Bool { cbs_is_main_thread() != 0 }

/// `pthread_exit`: ends the calling thread, not the process.
package func system_exitThread() -> Never { pthread_exit(nil) }
