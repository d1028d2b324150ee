// The file the dynamic linker picks for a library name, found without loading anything, so
// that the file can be checked (`ELFLoadCheck`) before `dlopen` maps it.

import BlockSignature
import BlockSignatureSystem

/// Finds a shared library as `dlopen` does for a name without a slash.
///
/// The search follows the dynamic linker's order for any program: the folders of
/// `LD_LIBRARY_PATH`, then `/etc/ld.so.cache` (the libraries `ldconfig` lists for this
/// machine), then the default folders. A name with a slash is a path, used as it is. The
/// calling program's own `DT_RUNPATH` is not searched: the answer is the same for every
/// program.
///
///     LibrarySearch.path(of: "libgnustep-base.so")  // "/lib/x86_64-linux-gnu/libgnustep-base.so"
///     LibrarySearch.path(of: "./libfoo.so")          // "./libfoo.so"
package enum LibrarySearch {
  /// The file `dlopen(name)` loads, or nil when the search finds none.
  package static func path(of name: String) -> String? {
    guard !name.contains("/") else { return name }
    guard !name.isEmpty else { return nil }
    for folder in environmentFolders {
      let candidate = folder + "/" + name
      if system_isRegularFile(candidate) { return candidate }
    }
    if let cached = cachedPath(of: name) { return cached }
    for folder in defaultFolders {
      let candidate = folder + "/" + name
      if system_isRegularFile(candidate) { return candidate }
    }
    return nil
  }

  /// Where the search looks, in order, for messages: `LD_LIBRARY_PATH`'s folders,
  /// `/etc/ld.so.cache`, then the default folders.
  package static var searchedPlaces: [String] {
    environmentFolders + [cacheFile] + defaultFolders
  }

  static let cacheFile = "/etc/ld.so.cache"

  /// The folders of `LD_LIBRARY_PATH` (an empty entry is the current folder, as for ld.so).
  static var environmentFolders: [String] {
    guard let value = system_environment("LD_LIBRARY_PATH"), !value.isEmpty else { return [] }
    return value.split(separator: ":", omittingEmptySubsequences: false).map { $0.isEmpty ? "." : String($0) }
  }

  /// The dynamic linker's built-in folders on Debian: the multiarch ones, then the plain ones.
  static var defaultFolders: [String] {
    #if arch(x86_64)
      let triple = "x86_64-linux-gnu"
    #elseif arch(arm64)
      let triple = "aarch64-linux-gnu"
    #else
      let triple = "unknown"
    #endif
    return ["/lib/\(triple)", "/usr/lib/\(triple)", "/lib64", "/usr/lib64", "/lib", "/usr/lib"]
  }

  /// The cache's flags for a 64-bit library of this machine (glibc's `FLAG_ELF_LIBC6` with
  /// `FLAG_X8664_LIB64` or `FLAG_AARCH64_LIB64`).
  static var hostCacheFlags: Int32 {
    #if arch(x86_64)
      0x0303
    #elseif arch(arm64)
      0x0a03
    #else
      -1
    #endif
  }

  /// The path `/etc/ld.so.cache` gives for `name` on this machine (glibc's cache format 1.1:
  /// a 48-byte header, then entries of 24 bytes whose key and value are offsets in the file).
  static func cachedPath(of name: String) -> String? {
    guard let file = try? MappedFile(path: cacheFile) else { return nil }
    let bytes = ByteView(base: file.bytes, order: .little)
    let magic = Array("glibc-ld.so.cache1.1".utf8)
    guard bytes.count >= 48, bytes.base.prefix(magic.count).elementsEqual(magic), let count = bytes.u32(20) else {
      return nil
    }
    let wanted = Array(name.utf8)
    for index in 0..<UInt64(count) {
      let entry = 48 + index * 24
      guard let flags = bytes.u32(entry), let key = bytes.u32(entry + 4), let value = bytes.u32(entry + 8) else {
        return nil
      }
      guard Int32(bitPattern: flags) == hostCacheFlags,
        let keyRange = bytes.cStringRange(at: UInt64(key), end: UInt64(bytes.count), limit: 4096),
        bytes.base[keyRange].elementsEqual(wanted),
        let valueRange = bytes.cStringRange(at: UInt64(value), end: UInt64(bytes.count), limit: 4096)
      else { continue }
      return bytes.string(valueRange)
    }
    return nil
  }
}
