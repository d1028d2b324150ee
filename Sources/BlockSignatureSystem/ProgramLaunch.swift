// Starting another program and waiting for it, and what a launcher asks of its own process:
// its environment, its executable, its working directory. For `blocksig trace` and its agent.

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Android)
  @preconcurrency import Android
#endif

/// Every variable of this process's environment, by name.
package func system_environmentVariables() -> [String: String] {
  var result: [String: String] = [:]
  var entry = environ
  while let pointer = entry.pointee {
    let text = String(cString: pointer)
    if let equals = text.firstIndex(of: "=") {
      result[String(text[..<equals])] = String(text[text.index(after: equals)...])
    }
    entry += 1
  }
  return result
}

/// The path of this process's executable (`/proc/self/exe`), if it can be read.
package func system_executablePath() -> String? {
  var buffer = [CChar](repeating: 0, count: 4096)
  let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
  guard count > 0 else { return nil }
  return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// The current working directory, if it can be read.
package func system_currentDirectory() -> String? {
  guard let directory = getcwd(nil, 0) else { return nil }
  defer { free(directory) }
  return String(cString: directory)
}

/// Whether this process may run the file at `path` (`access(X_OK)`).
package func system_isExecutable(_ path: String) -> Bool { access(path, X_OK) == 0 }

/// This process's ID.
package func system_processID() -> Int32 { getpid() }

/// `unlink`; whether it worked.
@discardableResult
package func system_removeFile(_ path: String) -> Bool { unlink(path) == 0 }

/// Sleeps for `microseconds`.
package func system_sleep(microseconds: UInt32) { _ = usleep(microseconds) }

/// Creates the file at `path`, or empties it (mode 0644 when new).
package func system_createEmptyFile(_ path: String) -> Result<Void, SystemCallError> {
  let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  guard descriptor >= 0 else { return .failure(SystemCallError(call: "open", code: errno)) }
  close(descriptor)
  return .success(())
}

/// Opens the file at `path` for appending (created with mode 0644 when missing), or a copy of
/// standard error when `path` is nil; the descriptor is closed on `exec`.
package func system_openForAppending(_ path: String?) -> Result<Int32, SystemCallError> {
  let descriptor =
    path.map { open($0, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644) } ?? fcntl(2, F_DUPFD_CLOEXEC, 3)
  guard descriptor >= 0 else { return .failure(SystemCallError(call: path == nil ? "fcntl" : "open", code: errno)) }
  return .success(descriptor)
}

/// Runs `program` with `arguments` (the first is its name) and `environment`, and waits for it;
/// the terminal's interrupt and quit reach the program alone (this process ignores them from
/// the start). Returns its exit status, or 128 + the signal that ended it.
package func system_spawnAndWait(
  _ program: String, arguments: [String], environment: [String: String]
) -> Result<Int32, SystemCallError> {
  let argv = arguments.map { strdup($0) } + [nil]
  let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
  defer {
    argv.forEach { free($0) }
    envp.forEach { free($0) }
  }
  var pid: pid_t = 0
  let spawned = posix_spawn(&pid, program, nil, nil, argv, envp)
  guard spawned == 0 else { return .failure(SystemCallError(call: "posix_spawn", code: spawned)) }
  signal(SIGINT, SIG_IGN)
  signal(SIGQUIT, SIG_IGN)
  var status: Int32 = 0
  while waitpid(pid, &status, 0) < 0 {
    guard errno == EINTR else { return .failure(SystemCallError(call: "waitpid", code: errno)) }
  }
  if status & 0x7f == 0 { return .success((status >> 8) & 0xff) }
  return .success(128 + (status & 0x7f))
}

/// Runs `handler` when the process exits normally (`atexit`).
package func system_atExit(_ handler: @escaping @convention(c) () -> Void) { _ = atexit(handler) }
