import Foundation

/// Objective-C compiled by gcc against GNUstep Base, as Debian builds GNUstep: the oracle the
/// Objective-C layer's tests compare with.
package enum GNUstepLibrary {
  /// Why an Objective-C fixture could not be built or loaded.
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
  }

  /// Compiles `source` with gcc and `gnustep-config`'s flags into a shared library, loads it
  /// (`RTLD_NOW | RTLD_GLOBAL`) and returns its handle; the files are removed once it is loaded.
  package static func load(source: String) throws -> UnsafeMutableRawPointer {
    let (folder, library) = try build(source: source)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try CompiledCLibrary(opening: library.path, global: true).handle
  }

  /// Compiles `source` with gcc and `gnustep-config`'s flags into `libfixture.so` in a fresh
  /// temporary folder; returns the folder (the caller removes it) and the library.
  package static func build(source: String) throws -> (folder: URL, library: URL) {
    let folder = try Toolchain.temporaryDirectory("blocksig-gnustep")
    let file = folder.appendingPathComponent("fixture.m")
    let library = folder.appendingPathComponent("libfixture.so")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let objcFlags = try GNUstepPrograms.config("--objc-flags")
    let arguments =
      ["-std=gnu11", "-shared", "-fPIC", "-w"] + objcFlags.filter { $0 != "-MMD" && $0 != "-MP" }
      + [file.path, "-o", library.path] + (try GNUstepPrograms.config("--base-libs"))
    let output = try Toolchain.run(Toolchain.tool("gcc"), arguments)
    guard output.status == 0 else {
      try? FileManager.default.removeItem(at: folder)
      throw Failure(description: "gcc failed: \(output.stderr)")
    }
    return (folder, library)
  }

  /// The address of `symbol` in a loaded fixture.
  package static func symbol(_ symbol: String, in handle: UnsafeMutableRawPointer) throws -> UnsafeMutableRawPointer {
    guard let address = dlsym(handle, symbol) else { throw Failure(description: "no symbol \(symbol)") }
    return address
  }
}
