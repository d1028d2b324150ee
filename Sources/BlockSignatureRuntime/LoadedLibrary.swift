/// A shared library loaded into this process with `dlopen`, and the blocks it hands out.
///
///     let library = try LoadedLibrary(loading: ".build/debug/libBlockFixtures.so")
///     let block = try library.blockReturned(byFunction: "bf_int_int")
///     let info = try BlockInfo(inspecting: block)
///
/// Before `dlopen` sees the file, BlockSignatureBinary's `ELFLoadCheck` checks it: a truncated or damaged library,
/// or one for another machine, is refused with an error instead of crashing the process in the
/// dynamic linker. Loading still runs the library's constructors: code nobody checked. The
/// library stays loaded for the life of the process (it is never closed), so the blocks it
/// returns stay valid.

import BlockSignature
import BlockSignatureBinary
import BlockSignatureSystem

public struct LoadedLibrary: @unchecked Sendable {
  /// The file the library was loaded from: the path given, or where the search for a bare
  /// name found it.
  public let path: String
  private let handle: UnsafeMutableRawPointer

  /// Finds `library` as `dlopen` does (a name with a slash is a path; a bare name is searched
  /// for in `LD_LIBRARY_PATH`, `/etc/ld.so.cache` and the default folders), checks the file
  /// with `ELFLoadCheck`, then opens it with `dlopen(path, RTLD_NOW | RTLD_LOCAL)`, or `RTLD_GLOBAL` when `sharingSymbols` is true (its
  /// symbols then serve the libraries loaded after it, as an Objective-C runtime's classes must).
  ///
  /// - Throws: ``LoadedLibraryError`` with kind `noSuchFile` (no such file, or a bare name the
  ///   search does not find), `notLoadable` (the file fails the check: its message says what
  ///   and where), or `cannotLoad` (not a regular file, or `dlopen`'s refusal, with its text).
  public init(loading library: String, sharingSymbols: Bool = false) throws(LoadedLibraryError) {
    let path = try Self.checkedFile(for: library)
    guard let handle = system_dlopen(path, global: sharingSymbols) else {
      var reason = system_dlerror() ?? "dlopen failed"
      // glibc starts its message with the file it opened: said once, not twice.
      if reason.hasPrefix(path + ": ") { reason.removeFirst(path.count + 2) }
      throw LoadedLibraryError(kind: .cannotLoad, message: "\(path): \(reason)")
    }
    self.path = path
    self.handle = handle
  }

  /// The file `dlopen(library)` would load (searched for as ``init(loading:sharingSymbols:)``
  /// searches), once it is known to be readable, regular and fit to load (`ELFLoadCheck`):
  /// what every loader of the project calls before `dlopen`.
  ///
  ///     let path = try LoadedLibrary.checkedFile(for: "libgnustep-base.so")
  ///
  /// - Throws: ``LoadedLibraryError`` with kind `noSuchFile`, `notLoadable` or `cannotLoad`
  ///   (not a regular file).
  public static func checkedFile(for library: String) throws(LoadedLibraryError) -> String {
    guard let path = LibrarySearch.path(of: library) else {
      throw LoadedLibraryError(
        kind: .noSuchFile,
        message:
          "\(library): no such library (searched LD_LIBRARY_PATH, /etc/ld.so.cache and the default folders; write ./\(library) for a file in the current folder)"
      )
    }
    if case .failure(let error) = system_checkReadable(path) {
      // Missing or unreadable, or there but not a regular file (a directory, a FIFO).
      throw LoadedLibraryError(
        kind: error.explanation == nil ? .noSuchFile : .cannotLoad, message: "\(path): \(error.reason)")
    }
    do {
      try ELFLoadCheck.verify(fileAt: path)
    } catch {
      throw LoadedLibraryError(kind: .notLoadable, message: "\(path): \(error.message)", fileOffset: error.offset)
    }
    return path
  }

  /// The address of a symbol the library (or a library it loads) defines.
  public func address(of symbol: String) throws(LoadedLibraryError) -> UnsafeRawPointer {
    guard let address = system_dlsym(handle, symbol) else {
      throw LoadedLibraryError(kind: .noSuchSymbol, message: "\(path): no symbol named '\(symbol)'")
    }
    return UnsafeRawPointer(address)
  }

  /// Calls the `const void *(*)(void)` function `symbol` and returns the block it returns.
  ///
  /// The symbol must lie in executable memory; a data symbol is refused rather than called.
  /// Nothing can check that the function really takes no arguments and returns a block:
  /// that is the caller's promise.
  public func blockReturned(byFunction symbol: String) throws(LoadedLibraryError) -> UnsafeRawPointer {
    let address = try self.address(of: symbol)
    guard MemoryMap.current().protection(of: UInt(bitPattern: address))?.executable == true else {
      throw LoadedLibraryError(
        kind: .notAFunction,
        message:
          "\(path): '\(symbol)' is not a function (it lies in non-executable memory); use --variable for a block variable"
      )
    }
    typealias Maker = @convention(c) () -> UnsafeRawPointer?
    guard let block = unsafeBitCast(address, to: Maker.self)() else {
      throw LoadedLibraryError(kind: .nullBlock, message: "\(path): \(symbol)() returned NULL")
    }
    return block
  }

  /// Reads the block pointer held by the global variable `symbol`.
  public func blockHeld(byVariable symbol: String) throws(LoadedLibraryError) -> UnsafeRawPointer {
    let address = try self.address(of: symbol)
    guard let protection = MemoryMap.current().protection(of: UInt(bitPattern: address)), protection.readable,
      !protection.executable
    else {
      throw LoadedLibraryError(
        kind: .notAVariable, message: "\(path): '\(symbol)' is not a readable variable; use --symbol for a function")
    }
    guard UInt(bitPattern: address) % UInt(MemoryLayout<UnsafeRawPointer>.alignment) == 0,
      let block = address.load(as: UnsafeRawPointer?.self)
    else {
      throw LoadedLibraryError(kind: .nullBlock, message: "\(path): variable '\(symbol)' holds NULL or is misaligned")
    }
    return block
  }
}

/// Why a library or one of its blocks could not be had.
public struct LoadedLibraryError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The kind of failure.
  public enum Kind: String, Hashable, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// The file does not exist or cannot be read.
    case noSuchFile
    /// `dlopen` refused the file, or it is not a regular file (a directory, a FIFO: not
    /// handed to `dlopen`, which would wait for a FIFO's writer).
    case cannotLoad
    /// The file is not a shared library this machine can load: truncated, damaged, or for
    /// another machine or byte order (`ELFLoadCheck` said so before `dlopen` saw it).
    case notLoadable
    /// No symbol of that name.
    case noSuchSymbol
    /// A function was expected but the symbol lies in memory that is not executable.
    case notAFunction
    /// A variable was expected but the symbol lies in executable memory.
    case notAVariable
    /// The function returned, or the variable holds, NULL.
    case nullBlock

    /// What the kind means, in a few words.
    public var description: String {
      switch self {
      case .noSuchFile: "no such file"
      case .cannotLoad: "cannot load"
      case .notLoadable: "not loadable"
      case .noSuchSymbol: "no such symbol"
      case .notAFunction: "not a function"
      case .notAVariable: "not a variable"
      case .nullBlock: "null block"
      }
    }
  }

  /// The kind of failure.
  public var kind: Kind
  /// What went wrong, in words.
  public var message: String
  /// For `notLoadable`: the offset in the file of what is wrong, when one place is.
  public var fileOffset: UInt64?

  /// Creates an error.
  public init(kind: Kind, message: String, fileOffset: UInt64? = nil) {
    self.kind = kind
    self.message = message
    self.fileOffset = fileOffset
  }

  /// The message.
  public var description: String { message }
}
