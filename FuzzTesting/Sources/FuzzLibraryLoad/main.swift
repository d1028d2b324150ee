// Fuzzes the loading path of `LoadedLibrary`: the check that runs before `dlopen`
// (`ELFLoadCheck`) on any bytes, and, for the inputs that pass it, `dlopen` itself in a forked
// child with a deadline. The check must never crash, hang or allocate without bound; a file
// it lets through must never die of SIGBUS in the dynamic linker (a segment read past the end
// of the file, which the check exists to refuse). Other crashes of a passed file are the
// library's own code, which the commands contain in a child of their own.
import BlockSignatureBinary
import BlockSignatureRuntime
import Glibc

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLibraryLoad(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  let bytes = UnsafeRawBufferPointer(start: count == 0 ? nil : start, count: count)
  guard (try? ELFLoadCheck.verify(bytes)) != nil else { return 0 }
  var template = Array("/tmp/fuzz-library-XXXXXX".utf8CString)
  let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
  guard fd >= 0 else { return 0 }
  let path = String(cString: template)
  defer { unlink(path) }
  _ = write(fd, bytes.baseAddress, bytes.count)
  close(fd)
  let child = fork()
  if child == 0 {
    // The child dies of its own signals: not through AddressSanitizer's or libFuzzer's
    // handlers, which would report the parent's input as a crash.
    for fatal in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGALRM] { signal(fatal, SIG_DFL) }
    // Whatever the library's constructors do, end within the parent's deadline.
    alarm(2)
    _ = try? LoadedLibrary(loading: path)
    _exit(0)
  }
  guard child > 0 else { return 0 }
  var status: Int32 = 0
  while waitpid(child, &status, 0) < 0 && errno == EINTR {}
  // WTERMSIG: the low 7 bits of a status are the signal that ended the child.
  if status & 0x7f == SIGBUS {
    fatalError("a file that passed ELFLoadCheck died of SIGBUS in dlopen")
  }
  return 0
}
