import BlockSignature
import CBlockSignatureShims

/// Readable forms of the mangled names blocks are found under: Swift symbols (`$s…`, such as
/// the reabstraction thunks that invoke `@convention(block)` closures), Itanium C++ symbols
/// (`_Z…`), and the invoke functions clang names after the function a block is written in
/// (`___ZN2NS3Foo3barEi_block_invoke_2`, `__29-[Foo bar:]_block_invoke`).
///
///     SymbolDemangler.demangle("___ZN2NS3Foo3barEi_block_invoke_2")
///     // "block 2 in NS::Foo::bar(int)": the invoke of the second block written there
///     SymbolDemangler.demangle("$sIeg_IeyB_TR")
///     // "reabstraction thunk helper from @escaping @callee_guaranteed () -> () to …"
///     SymbolDemangler.demangle("__main_block_invoke")  // nil: already readable
///
/// Swift names are demangled by the Swift runtime's `swift_demangle` and C++ names by the C++
/// runtime's `__cxa_demangle`, whichever this process has loaded (a Swift program has both on
/// Linux). The leading underscore Mach-O adds to every C name is taken off first.
public enum SymbolDemangler {
  /// The longest name demangled, in bytes. Names come from the binaries read, which may be
  /// hostile; the runtimes' demanglers recurse once per level of nesting, and a name this
  /// long cannot nest deep enough to exhaust a worker thread's stack. Real names of blocks'
  /// code are far shorter.
  public static let maximumLength = 1024

  /// The demangled form of `name`, or nil when it is not a mangled name this process can
  /// demangle (a plain C name, a damaged mangling, a name longer than ``maximumLength``, or
  /// no runtime for it).
  public static func demangle(_ name: String) -> String? {
    guard name.utf8.count <= maximumLength else { return nil }
    if let block = blockInvoke(name) { return block }
    return demangleSymbol(name)
  }

  /// A Swift or C++ symbol, Mach-O's extra underscore allowed.
  static func demangleSymbol(_ name: String) -> String? {
    let bare = name.drop { $0 == "_" }
    if bare.hasPrefix("$s") || bare.hasPrefix("$S") || bare.hasPrefix("$e") || name.hasPrefix("_T0") {
      // swift_demangle takes the `$s` form with or without one leading underscore.
      return call(cbs_demangle_swift, bare.hasPrefix("$") ? "\(bare)" : name)
    }
    if bare.hasPrefix("Z"), name.hasPrefix("_") {
      return call(cbs_demangle_cxx, "_" + bare)
    }
    return nil
  }

  /// `<prefix><function>_block_invoke[_N][.N]`: the invoke of the N-th block clang wrote in
  /// `function` ("block N in function"), when `function` demangles (C++ or Swift) or is an
  /// Objective-C method as Apple's targets name it (`<length>-[Class selector]`; GNUstep's
  /// `_i_Class__selector` turns colons into underscores, which cannot be undone).
  static func blockInvoke(_ name: String) -> String? {
    let bytes = Array(name.utf8)
    let marker = Array("_block_invoke".utf8)
    guard bytes.count > marker.count,
      let start = (0...(bytes.count - marker.count)).last(where: {
        bytes[$0..<($0 + marker.count)].elementsEqual(marker)
      })
    else { return nil }
    var tail = bytes[(start + marker.count)...]
    if let dot = tail.firstIndex(of: UInt8(ascii: ".")) {
      guard tail[(dot + 1)...].allSatisfy(isDigit) else { return nil }
      tail = tail[..<dot]
    }
    var number = 1
    if !tail.isEmpty {
      guard tail.first == UInt8(ascii: "_"), tail.count > 1, tail.count < 10, tail.dropFirst().allSatisfy(isDigit)
      else { return nil }
      number = tail.dropFirst().reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
      guard number > 1 else { return nil }
    }
    let function = bytes[..<start]
    let inner = function.drop { $0 == UInt8(ascii: "_") }
    let readable: String
    if let first = inner.first, isDigit(first),
      let sign = inner.firstIndex(where: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") }),
      inner[..<sign].allSatisfy(isDigit), inner.count > sign - inner.startIndex + 1,
      inner[sign + 1] == UInt8(ascii: "["), inner.last == UInt8(ascii: "]")
    {
      readable = String(decoding: inner[sign...], as: UTF8.self)
    } else if let demangled = demangleSymbol(
      String(decoding: function.dropFirst(function.starts(with: Array("___".utf8)) ? 2 : 0), as: UTF8.self))
    {
      readable = demangled
    } else {
      return nil
    }
    return number == 1 ? "block in \(readable)" : "block \(number) in \(readable)"
  }

  private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  private static func call(
    _ demangler: (UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>?, _ name: String
  ) -> String? {
    guard let result = name.withCString(demangler) else { return nil }
    defer { cbs_free(result) }
    let text = String(cString: result)
    return text.isEmpty || text == name ? nil : text
  }
}
