import BlockSignatureBinary
import BlockSignatureRuntime
import Foundation
import TestSupport
import Testing

/// `LoadedLibrary` checks the file before `dlopen`: a damaged library is a typed error, never a
/// crash of this process; a bare name is searched for as `dlopen` searches.
@Suite struct LoadedLibraryCheckTests {
  @Test func aTruncatedLibraryIsNotLoadable() throws {
    let dispatch = try #require(Toolchain.runtimeLibraryDirectory).appendingPathComponent("libdispatch.so")
    let folder = try Toolchain.temporaryDirectory("loaded-library-check")
    defer { try? FileManager.default.removeItem(at: folder) }
    let cut = folder.appendingPathComponent("libcut.so")
    try Data(contentsOf: dispatch).prefix(8192).write(to: cut)
    let error = try #require(throws: LoadedLibraryError.self) { try LoadedLibrary(loading: cut.path) }
    #expect(error.kind == .notLoadable)
    #expect(error.message.hasPrefix("\(cut.path): segment "), "\(error)")
    #expect(error.message.hasSuffix("past the end of the file (0x2000 bytes)"), "\(error)")
    #expect(error.fileOffset != nil)
  }

  @Test func bareNamesAreSearchedAsDlopenSearches() throws {
    // libc is in /etc/ld.so.cache on every Debian machine.
    let path = try #require(LibrarySearch.path(of: "libc.so.6"))
    #expect(path.hasPrefix("/") && path.hasSuffix("/libc.so.6"))
    #expect(LibrarySearch.path(of: "./libc.so.6") == "./libc.so.6")
    #expect(LibrarySearch.path(of: "libblocksig-no-such-library.so") == nil)
    let error = try #require(throws: LoadedLibraryError.self) {
      try LoadedLibrary(loading: "libblocksig-no-such-library.so")
    }
    #expect(error.kind == .noSuchFile)
    #expect(error.message.contains("no such library (searched LD_LIBRARY_PATH, /etc/ld.so.cache"))
    #expect(try LoadedLibrary(loading: "libc.so.6").path == path)
  }
}
