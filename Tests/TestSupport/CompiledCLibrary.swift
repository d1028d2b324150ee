// A shared library compiled from C by the toolchain's clang and opened in the test process:
// the oracle of the tests that have compiled C call made blocks, or be called by invocations.

import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// C source compiled into a shared library (`-shared -fPIC` and the given flags) and opened
/// with `dlopen` (`RTLD_NOW | RTLD_LOCAL`); its symbols are read with `dlsym`.
///
///     let library = try CompiledCLibrary("int twice(int x) { return 2 * x; }", named: "twice")
///     let twice = try library.symbol("twice", as: (@convention(c) (Int32) -> Int32).self)
package struct CompiledCLibrary: @unchecked Sendable {
  /// What `dlopen` returned; the library stays open for the process's life.
  package let handle: UnsafeMutableRawPointer

  /// Compiles `source` as `name.c` into `libname.so` with `flags` (blocks and `-O1` by default).
  ///
  /// - Throws: What clang reports, or ``LoadFailure`` with `dlerror`'s message.
  package init(_ source: String, named name: String, flags: [String] = ["-fblocks", "-O1", "-w"]) throws {
    let (_, product) = try Toolchain.compileC(
      source, fileName: "\(name).c", arguments: flags + ["-shared", "-fPIC"], output: "lib\(name).so")
    try self.init(opening: product.path)
  }

  /// Opens a library built some other way (gcc for GNUstep's Objective-C); `global` makes its
  /// symbols serve the libraries opened after it (`RTLD_GLOBAL`).
  ///
  /// - Throws: ``LoadFailure`` with `dlerror`'s message.
  package init(opening path: String, global: Bool = false) throws {
    guard let handle = dlopen(path, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL)) else {
      throw LoadFailure(message: String(cString: dlerror()))
    }
    self.handle = handle
  }

  /// The address of symbol `name`; a test expectation fails when there is none.
  package func address(_ name: String) throws -> UnsafeMutableRawPointer {
    try #require(dlsym(handle, name), "no symbol \(name)")
  }

  /// Symbol `name` as a function (or pointer) of `type`.
  package func symbol<T>(_ name: String, as type: T.Type) throws -> T {
    unsafeBitCast(try address(name), to: type)
  }
}
