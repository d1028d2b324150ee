import Foundation

/// Method type strings clang writes for Objective-C methods, read from its textual IR: the
/// oracle for block → method conversions.
package enum ObjCMethodTypes {
  /// Compiles `source` as Objective-C for the GNUstep 2.0 runtime (`-S -emit-llvm`, no runtime
  /// needed) and returns each selector's type string, keyed by selector name (`m3::`).
  ///
  /// Declare the methods in a protocol and reference it (`@protocol(P)`) so clang emits them.
  package static func gnustep(source: String, includeDirectories: [String] = []) throws -> [String: String] {
    let folder = try Toolchain.temporaryDirectory("blocksig-objc")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("methods.m")
    try source.write(to: file, atomically: true, encoding: .utf8)
    var arguments = [
      "-x", "objective-c", "-fobjc-runtime=gnustep-2.0", "-fblocks", "-S", "-emit-llvm", "-o", "-",
    ]
    for directory in includeDirectories { arguments += ["-I", directory] }
    arguments.append(file.path)
    let ir = try Toolchain.runClang(arguments).stdout
    // String constants by symbol; quoted symbols may contain spaces (`@".objc_sel_types_ 18@0:8 16"`).
    var strings: [String: [UInt8]] = [:]
    for line in ir.split(separator: "\n") where line.hasPrefix("@") {
      guard let equals = line.range(of: "\" = ") ?? line.range(of: " = "),
        let body = line.range(of: "constant [")?.upperBound,
        let quote = line.range(of: "c\"", range: body..<line.endIndex)?.upperBound
      else { continue }
      var symbol = line[line.index(after: line.startIndex)..<equals.lowerBound]
      if symbol.hasPrefix("\"") { symbol = symbol.dropFirst() }
      strings[String(symbol)] = ClangIR.unescape(line[quote...].prefix { $0 != "\"" })
    }
    func string(_ symbol: Substring) -> String? {
      let bare = symbol.hasPrefix("\"") ? String(symbol.dropFirst().dropLast()) : String(symbol)
      let bytes = strings[bare]
      return bytes.map { String(decoding: $0, as: UTF8.self) }
    }
    var result: [String: String] = [:]
    // @".objc_selector_m0::_…" = … global { ptr, ptr } { ptr @".objc_sel_name_m0::", ptr @".objc_sel_types_…" }
    for line in ir.split(separator: "\n")
    where line.hasPrefix("@\".objc_selector_") || line.hasPrefix("@.objc_selector_") {
      guard let open = line.range(of: "} { ptr @")?.upperBound,
        let separator = line.range(of: ", ptr @", range: open..<line.endIndex),
        let close = line.range(of: " }", range: separator.upperBound..<line.endIndex)
      else { continue }
      let nameSymbol = line[open..<separator.lowerBound]
      let typesSymbol = line[separator.upperBound..<close.lowerBound]
      if let name = string(nameSymbol), let types = string(typesSymbol) { result[name] = types }
    }
    return result
  }

  /// Compiles `source` as Objective-C for an Apple target (extended encodings: class names and
  /// nested block signatures) and returns the IR's string constants.
  package static func appleStrings(source: String) throws -> [String] {
    let folder = try Toolchain.temporaryDirectory("blocksig-objc")
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("extended.m")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let ir = try Toolchain.runClang([
      "-target", "x86_64-apple-macosx11", "-x", "objective-c", "-fblocks", "-S", "-emit-llvm", "-o", "-",
      file.path,
    ]).stdout
    return ClangIR(ir).strings.values.map { String(decoding: $0, as: UTF8.self) }
  }
}
