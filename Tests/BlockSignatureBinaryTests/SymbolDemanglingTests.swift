import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// `SymbolDemangler`: the names clang and Swift give blocks' code, against the toolchain's
/// own demanglers (`llvm-cxxfilt`, `swift demangle`) and the symbol tables of objects clang
/// builds here.
@Suite struct SymbolDemanglingTests {
  static let cxxSource = """
    namespace NS { struct Foo { int bar(int x); template <class T> static T tm(T t); }; }
    int NS::Foo::bar(int x) {
      int (^b)(int) = ^(int y) { return y + x; };
      int (^c)(int) = ^(int y) { return y * x; };
      return b(x) + c(x);
    }
    template <class T> T NS::Foo::tm(T t) { T (^b)(T) = ^(T y) { return y; }; return b(t); }
    template long NS::Foo::tm<long>(long);
    static int s = ^{ return 3; }();

    """

  /// The symbols of an object clang builds from `source` with `arguments`, by `llvm-nm`.
  static func symbols(_ source: String, fileName: String, _ arguments: [String]) throws -> [String] {
    let (directory, object) = try Toolchain.compileC(
      source, fileName: fileName, arguments: ["-fblocks", "-c"] + arguments, output: "symbols.o")
    defer { try? FileManager.default.removeItem(at: directory) }
    let nm = try #require(Toolchain.find(anyOf: ["llvm-nm", "nm"]))
    return try Toolchain.check(nm, [object.path]).stdout.split(separator: "\n").compactMap { line in
      line.split(separator: " ", maxSplits: 2).last.map(String.init)
    }
  }

  /// What `tool arguments name` prints, trimmed.
  static func demangled(by tool: URL, _ arguments: [String], _ name: String) throws -> String {
    try Toolchain.check(tool, arguments + [name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// C++ functions and the invokes of the blocks in them, on ELF and on Mach-O (one more
  /// underscore): each invoke reads "block [N] in <the function, as llvm-cxxfilt demangles it>".
  @Test(arguments: [["-x", "c++"], ["-x", "c++", "--target=arm64-apple-macos13"]])
  func cxxBlockInvokes(_ arguments: [String]) throws {
    let filter = try #require(Toolchain.find("llvm-cxxfilt"), "llvm-cxxfilt not found")
    let names = try Self.symbols(Self.cxxSource, fileName: "blocks.cpp", arguments)
    let invokes = names.filter { $0.contains("_block_invoke") }
    #expect(invokes.count == 4, "\(names)")
    let macho = arguments.contains { $0.contains("apple") }
    for name in invokes {
      let marker = try #require(name.range(of: "_block_invoke"))
      let suffix = name[marker.upperBound...]
      var function = String(name[..<marker.lowerBound])
      // The function's own mangled name: `__` (`___` on Mach-O) before it, none for a global's.
      if function.hasPrefix(macho ? "____Z" : "___Z") { function.removeFirst(2) }
      let cxx = macho ? String(function.dropFirst()) : function
      let expected = try Self.demangled(by: filter, [], cxx)
      #expect(expected != cxx, "llvm-cxxfilt left \(cxx) as it is")
      let number = suffix.isEmpty ? "" : " \(suffix.dropFirst())"
      #expect(SymbolDemangler.demangle(name) == "block\(number) in \(expected)", "\(name)")
    }
    // The functions themselves.
    for name in names where name.contains("3Foo3bar") && !name.contains("_block_invoke") {
      #expect(SymbolDemangler.demangle(name) == "NS::Foo::bar(int)", "\(name)")
    }
  }

  /// Objective-C methods on Apple's targets: `___10-[Foo bar]_block_invoke_2` is the second
  /// block in -[Foo bar].
  @Test func objectiveCMethodBlockInvokes() throws {
    let names = try Self.symbols(
      """
      __attribute__((objc_root_class)) @interface Foo - (void)bar; + (int)baz:(int)x; @end
      void use(void (^)(void));
      @implementation Foo
      - (void)bar { use(^{}); use(^{ (void)self; }); }
      + (int)baz:(int)x { use(^{ (void)x; }); return x; }
      @end

      """, fileName: "methods.m", ["--target=arm64-apple-macos13"])
    let demangled = Set(names.filter { $0.contains("_block_invoke") }.compactMap(SymbolDemangler.demangle))
    #expect(demangled == ["block in -[Foo bar]", "block 2 in -[Foo bar]", "block in +[Foo baz:]"], "\(names)")
  }

  /// Swift symbols (the reabstraction thunks that invoke `@convention(block)` closures, found
  /// in the toolchain's Foundation by `dump`) read as `swift demangle -compact --no-sugar` prints
  /// them (the runtime's demangler writes `Swift.Optional<T>`, not `T?`).
  @Test func swiftSymbols() throws {
    let swift = try #require(Toolchain.find("swift"))
    let names = [
      "$sIeg_IeyB_TR", "$sIegh_IeyBh_TR", "$sSo20CFRunLoopObserverRefaSgSo0aB8ActivityVIeggy_AcEIeyByy_TR",
      "$s10Foundation8ProgressC6cancelyyF",
    ]
    for name in names {
      let expected = try Self.demangled(by: swift, ["demangle", "-compact", "--no-sugar"], name)
      #expect(expected != name)
      #expect(SymbolDemangler.demangle(name) == expected, "\(name)")
      // Mach-O's extra underscore.
      #expect(SymbolDemangler.demangle("_" + name) == expected, "_\(name)")
    }
  }

  /// Names from a hostile binary: deeply nested manglings and very long ones, demangled on a
  /// thread with a small stack (dump's workers have 512 KiB). Past `maximumLength` bytes a
  /// name is not demangled at all, so neither runtime's demangler recurses without bound.
  @Test func hostileNamesOnASmallStack() {
    let nested = [
      "_Z" + String(repeating: "N1a", count: 3000) + "1bE" + String(repeating: "E", count: 3000) + "v",
      "_Z1f" + String(repeating: "PFv", count: 2000) + "v",
      "$s" + String(repeating: "Say", count: 3000) + "G",
      "___Z1f" + String(repeating: "PFv", count: 2000) + "v_block_invoke",
      "_Z1fIJ" + String(repeating: "IJ", count: 300) + String(repeating: "E", count: 300) + "EEvv",
      // Just under the limit: as deep as a demangled name can be.
      "_Z1f" + String(repeating: "PF", count: 250) + "v" + String(repeating: "E", count: 250) + "v",
      "$s" + String(repeating: "Say", count: 340) + String(repeating: "G", count: 1),
      "_Z" + String(repeating: "N1a", count: 200) + "1bE" + String(repeating: "E", count: 200) + "v",
    ]
    #expect(nested.suffix(3).allSatisfy { $0.utf8.count <= SymbolDemangler.maximumLength })
    let done = DispatchSemaphore(value: 0)
    let worker = Thread {
      for name in nested {
        let result = SymbolDemangler.demangle(name)
        #expect(name.utf8.count <= SymbolDemangler.maximumLength || result == nil, "\(name.prefix(20))…")
      }
      done.signal()
    }
    worker.stackSize = 512 << 10
    worker.start()
    done.wait()
  }

  /// Names that are already readable, or are not valid manglings, stay as they are (nil).
  @Test func plainAndDamagedNames() {
    for name in [
      "main", "__main_block_invoke", "__two_block_invoke_2", "___two_block_invoke", "_block_invoke", "__block_invoke",
      "_Z", "_ZN3Foo", "___ZN3Foo_block_invoke", "$s", "__copy_helper_block_8_32r", "__f_block_invoke_x",
      "___Z1fv_block_invoke_1", "___Z1fv_block_invoke_", "___Z1fv_block_invoke.x", "__11_i_Foo__bar_block_invoke",
      "", "_", "é_block_invoke",
    ] {
      #expect(SymbolDemangler.demangle(name) == nil, "\(name)")
    }
    // clang's uniquing suffix (`.13`) is not part of the name.
    #expect(SymbolDemangler.demangle("___Z1fv_block_invoke.13") == "block in f()")
    #expect(SymbolDemangler.demangle("___Z1fv_block_invoke_3.7") == "block 3 in f()")
  }
}
