import BlockSignature
import BlockSignatureBinary
import Foundation
import TestSupport
import Testing

/// What clang emits for one global block (`-target arm64-apple-macos13 -S -emit-llvm`): the
/// literal's flags, the descriptor's size and the signature string. The truth the images carry.
struct ClangGlobalBlock {
  var flags: UInt32
  var size: UInt64
  var signature: String

  static func fromClang() throws -> ClangGlobalBlock {
    let clang = try #require(Toolchain.find("clang"), "clang not found on PATH")
    let directory = try Toolchain.temporaryDirectory("macho-linked")
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = directory.appendingPathComponent("gb.c")
    try "int (^gb)(int, long) = ^(int a, long b) { return a + (int)b; };\n"
      .write(to: source, atomically: true, encoding: .utf8)
    let ir = try Toolchain.check(
      clang, ["-target", "arm64-apple-macos13", "-fblocks", "-S", "-emit-llvm", "-o", "-", source.path]
    ).stdout
    let truth = try #require(LLVMTruth.descriptors(inIR: ir).first)
    let literalLine = try #require(
      ir.split(separator: "\n").first { $0.hasPrefix("@__block_literal_global") })
    // `{ ptr @_NSConcreteGlobalBlock, i32 1342177280, i32 0, ptr @…, ptr @… }`
    let flagsText = try #require(
      literalLine.components(separatedBy: "i32 ").dropFirst().first?.split(separator: ",").first)
    let flags = try #require(UInt32(flagsText))
    return ClangGlobalBlock(flags: flags, size: truth.size, signature: try #require(truth.signature))
  }
}

/// Builds a minimal linked MH_DYLIB: `__TEXT` (`__text`, `__cstring` with the signature),
/// `__DATA_CONST,__const` with a descriptor and a global literal, `__LINKEDIT` with the symbol
/// table (`_NSConcreteGlobalBlock` undefined) and either chained fixups or dyld info opcodes.
struct MachOImageBuilder {
  enum Fixups {
    case chained(pointerFormat: UInt16)
    case classic
  }

  var arm64 = true
  var fixups: Fixups
  var block: ClangGlobalBlock
  // Damage knobs for hostile variants.
  var lastNext: UInt64? = nil  // bytes from the chain's last entry to a next one (nil: 0, the end)
  var importsOffsetOverride: UInt32? = nil
  var pageStartOverride: UInt16? = nil
  var everyWordChains = false
  var bindOpcodesOverride: [UInt8]? = nil
  var rebaseOpcodesOverride: [UInt8]? = nil
  /// Classic only: a lazy bind stream (`LC_DYLD_INFO` lazy_bind_off/size) placed after the bind
  /// opcodes; empty (the default) leaves lazy_bind_size 0.
  var lazyBindOpcodes: [UInt8] = []
  /// The symbol the literal's isa slot is bound to (the symbol table always has the global one).
  var isaSymbol = "__NSConcreteGlobalBlock"
  /// `DYLD_CHAINED_IMPORT` (1), `_ADDEND` (2) or `_ADDEND64` (3).
  var importsFormat: UInt32 = 1

  static let base: UInt64 = 0x1_0000_0000
  static let pageSize: UInt64 = 0x4000
  static let textOffset: UInt64 = 0x1000
  static let cstringOffset: UInt64 = 0x1100
  static let dataOffset: UInt64 = 0x4000  // segment 1
  static let linkeditOffset: UInt64 = 0x8000  // segment 2
  static let descriptor: UInt64 = base + dataOffset
  static let literal: UInt64 = descriptor + 0x20

  private var bytes: [UInt8] = []

  init(fixups: Fixups, block: ClangGlobalBlock, arm64: Bool = true) {
    self.fixups = fixups
    self.block = block
    self.arm64 = arm64
  }

  private mutating func put32(_ value: UInt32, at offset: Int) {
    withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 4, with: $0) }
  }
  private mutating func put64(_ value: UInt64, at offset: Int) {
    withUnsafeBytes(of: value.littleEndian) { bytes.replaceSubrange(offset..<offset + 8, with: $0) }
  }
  private mutating func putName(_ name: String, at offset: Int) {
    bytes.replaceSubrange(offset..<offset + name.utf8.count, with: Array(name.utf8))
  }

  static func uleb(_ value: UInt64) -> [UInt8] {
    var out: [UInt8] = []
    var rest = value
    repeat {
      var byte = UInt8(rest & 0x7f)
      rest >>= 7
      if rest != 0 { byte |= 0x80 }
      out.append(byte)
    } while rest != 0
    return out
  }

  /// Whether `format` is one of the arm64e formats (stride 8, bind at bit 62).
  static func isARM64E(_ format: UInt16) -> Bool { format == 1 || format == 9 || format == 12 }

  /// A chained rebase entry; `next` counts bytes (divided by the format's stride here).
  func chainEntry(rebaseTo address: UInt64, next: UInt64, pointerFormat: UInt16) -> UInt64 {
    if Self.isARM64E(pointerFormat) {
      let target = pointerFormat == 1 ? address : address - Self.base
      return (target & 0x7ff_ffff_ffff) | ((next / 8) & 0x7ff) << 51
    }
    let target = pointerFormat == 6 ? address - Self.base : address
    return (target & 0xf_ffff_ffff) | ((next / 4) & 0xfff) << 51
  }

  func chainBind(ordinal: UInt64, next: UInt64, pointerFormat: UInt16) -> UInt64 {
    if Self.isARM64E(pointerFormat) { return 1 << 62 | ((next / 8) & 0x7ff) << 51 | ordinal }
    return 1 << 63 | ((next / 4) & 0xfff) << 51 | ordinal
  }

  // swiftlint:disable:next function_body_length
  mutating func build() -> [UInt8] {
    var linkedit: [UInt8] = []
    // Symbol table: 0 = _gb_block_invoke, 1 = __NSConcreteGlobalBlock (C `_NSConcreteGlobalBlock`, undefined).
    let strings: [UInt8] =
      [0x20, 0] + Array("__NSConcreteGlobalBlock".utf8) + [0] + Array("_gb_block_invoke".utf8) + [0]
    var symbolTable: [UInt8] = []
    func nlist(_ strx: UInt32, _ type: UInt8, _ sect: UInt8, _ value: UInt64) -> [UInt8] {
      var entry = withUnsafeBytes(of: strx.littleEndian, Array.init)
      entry += [type, sect, 0, 0]
      entry += withUnsafeBytes(of: value.littleEndian, Array.init)
      return entry
    }
    symbolTable += nlist(26, 0x0f, 1, Self.base + Self.textOffset)  // _gb_block_invoke
    symbolTable += nlist(2, 0x01, 0, 0)  // _NSConcreteGlobalBlock
    var fixupsBlob: [UInt8] = []
    var dyldInfo: [UInt8] = []  // rebase, bind, then lazy bind
    var rebaseSize = 0
    var bindSize = 0
    // Data words: descriptor {0, size, sig, 0}, literal {isa, flags|0, invoke, descriptor}.
    var data = [UInt64](repeating: 0, count: 8)
    data[1] = block.size
    data[5] = UInt64(block.flags)
    let signatureAddress = Self.base + Self.cstringOffset
    let invokeAddress = Self.base + Self.textOffset
    switch fixups {
    case .chained(let format):
      let last = lastNext ?? 0
      data[2] = chainEntry(rebaseTo: signatureAddress, next: 16, pointerFormat: format)  // → 0x20
      data[4] = chainBind(ordinal: 0, next: 16, pointerFormat: format)  // → 0x30
      data[6] = chainEntry(rebaseTo: invokeAddress, next: 8, pointerFormat: format)  // → 0x38
      if Self.isARM64E(format) {
        // arm64e signs invoke pointers: an authenticated rebase (offset from the load address).
        data[6] = 1 << 63 | (invokeAddress - Self.base) | 1 << 51
      }
      data[7] = chainEntry(rebaseTo: Self.descriptor, next: last, pointerFormat: format)
      // Header (28) | pad | starts_in_image @32 | starts_in_segment @48 | imports | symbols.
      var blob = [UInt8](repeating: 0, count: 48)
      func set32(_ value: UInt32, _ at: Int) {
        withUnsafeBytes(of: value.littleEndian) { blob.replaceSubrange(at..<at + 4, with: $0) }
      }
      let startsInSegment: [UInt8] = {
        var segment = [UInt8](repeating: 0, count: 24)
        withUnsafeBytes(of: UInt32(24).littleEndian) { segment.replaceSubrange(0..<4, with: $0) }
        withUnsafeBytes(of: UInt16(Self.pageSize).littleEndian) { segment.replaceSubrange(4..<6, with: $0) }
        withUnsafeBytes(of: format.littleEndian) { segment.replaceSubrange(6..<8, with: $0) }
        withUnsafeBytes(of: Self.dataOffset.littleEndian) { segment.replaceSubrange(8..<16, with: $0) }
        withUnsafeBytes(of: UInt16(1).littleEndian) { segment.replaceSubrange(20..<22, with: $0) }
        withUnsafeBytes(of: (pageStartOverride ?? 0x10).littleEndian) {
          segment.replaceSubrange(22..<24, with: $0)
        }
        return segment
      }()
      blob += startsInSegment  // 48..<72
      let importsOffset = 72
      switch importsFormat {  // ordinal 1, name at 1, addend 0
      case 2:
        blob += withUnsafeBytes(of: (UInt32(1) << 9 | 1).littleEndian, Array.init) + [0, 0, 0, 0]
      case 3:
        blob +=
          withUnsafeBytes(of: (UInt64(1) << 32 | 1).littleEndian, Array.init)
          + [UInt8](repeating: 0, count: 8)
      default:
        blob += withUnsafeBytes(of: (UInt32(1) << 9 | 1).littleEndian, Array.init)
      }
      let symbolsOffset = blob.count
      blob += [0] + Array(isaSymbol.utf8) + [0]
      set32(0, 0)
      set32(32, 4)
      set32(importsOffsetOverride ?? UInt32(importsOffset), 8)
      set32(UInt32(symbolsOffset), 12)
      set32(1, 16)
      set32(importsFormat, 20)  // DYLD_CHAINED_IMPORT, _ADDEND, _ADDEND64
      set32(0, 24)
      set32(3, 32)  // seg_count
      set32(0, 36)
      set32(16, 40)  // __DATA_CONST starts at 32 + 16
      set32(0, 44)
      if everyWordChains {
        // Every word of the page chains to the next one: a chain that never ends by itself.
        data = [UInt64](
          repeating: chainEntry(rebaseTo: Self.descriptor, next: 8, pointerFormat: format),
          count: Int(Self.pageSize / 8))
      }
      fixupsBlob = blob
    case .classic:
      data[2] = signatureAddress
      data[6] = invokeAddress
      data[7] = Self.descriptor
      let rebase: [UInt8] =
        rebaseOpcodesOverride
        ?? ([0x11, 0x21] + Self.uleb(0x10) + [0x51, 0x21] + Self.uleb(0x30) + [0x52, 0x00])
      let bind: [UInt8] =
        bindOpcodesOverride
        ?? ([0x11, 0x40] + Array(isaSymbol.utf8) + [0, 0x51, 0x71] + Self.uleb(0x20) + [0x90, 0x00])
      dyldInfo = rebase + bind + lazyBindOpcodes
      rebaseSize = rebase.count
      bindSize = bind.count
    }
    // __LINKEDIT layout: symbols, strings, fixups (8-aligned).
    let symbolOffset = Int(Self.linkeditOffset)
    linkedit += symbolTable
    let stringOffset = symbolOffset + linkedit.count
    linkedit += strings
    while linkedit.count % 8 != 0 { linkedit.append(0) }
    let fixupsOffset = symbolOffset + linkedit.count
    linkedit += fixupsBlob + dyldInfo
    while linkedit.count % 8 != 0 { linkedit.append(0) }

    bytes = [UInt8](repeating: 0, count: Int(Self.linkeditOffset) + linkedit.count)
    bytes.replaceSubrange(symbolOffset..<symbolOffset + linkedit.count, with: linkedit)
    // Code: arm64 `ret` / x86_64 `ret` padded.
    let code: [UInt8] = arm64 ? [0xc0, 0x03, 0x5f, 0xd6] : [0xc3, 0x90, 0x90, 0x90]
    bytes.replaceSubrange(Int(Self.textOffset)..<Int(Self.textOffset) + 4, with: code)
    putName(block.signature, at: Int(Self.cstringOffset))
    for (index, word) in data.enumerated() { put64(word, at: Int(Self.dataOffset) + index * 8) }

    // Header and load commands.
    var commands: [[UInt8]] = []
    func segment(
      _ name: String, vm: UInt64, vmSize: UInt64, file: UInt64, fileSize: UInt64, prot: UInt32,
      sections: [(String, UInt64, UInt64, UInt32)]
    ) -> [UInt8] {
      var command = [UInt8](repeating: 0, count: 72 + 80 * sections.count)
      func w32(_ v: UInt32, _ at: Int) {
        withUnsafeBytes(of: v.littleEndian) { command.replaceSubrange(at..<at + 4, with: $0) }
      }
      func w64(_ v: UInt64, _ at: Int) {
        withUnsafeBytes(of: v.littleEndian) { command.replaceSubrange(at..<at + 8, with: $0) }
      }
      func name16(_ s: String, _ at: Int) {
        command.replaceSubrange(at..<at + s.utf8.count, with: Array(s.utf8))
      }
      w32(0x19, 0)
      w32(UInt32(command.count), 4)
      name16(name, 8)
      w64(vm, 24); w64(vmSize, 32); w64(file, 40); w64(fileSize, 48)
      w32(prot, 56); w32(prot, 60); w32(UInt32(sections.count), 64)
      for (index, section) in sections.enumerated() {
        let at = 72 + index * 80
        name16(section.0, at)
        name16(name, at + 16)
        w64(Self.base + section.1, at + 32)
        w64(section.2, at + 40)
        w32(UInt32(section.1), at + 48)
        w32(3, at + 52)
        w32(section.3, at + 64)
      }
      return command
    }
    let linkeditSize = UInt64(linkedit.count)
    commands.append(
      segment(
        "__TEXT", vm: Self.base, vmSize: 0x4000, file: 0, fileSize: 0x4000, prot: 5,
        sections: [
          ("__text", Self.textOffset, 4, 0x8000_0400),
          ("__cstring", Self.cstringOffset, UInt64(block.signature.utf8.count + 1), 0x2),
        ]))
    commands.append(
      segment(
        "__DATA_CONST", vm: Self.base + Self.dataOffset, vmSize: 0x4000, file: Self.dataOffset,
        fileSize: 0x4000, prot: 3, sections: [("__const", Self.dataOffset, 64, 0)]))
    commands.append(
      segment(
        "__LINKEDIT", vm: Self.base + Self.linkeditOffset, vmSize: 0x4000, file: Self.linkeditOffset,
        fileSize: linkeditSize, prot: 1, sections: []))
    func words(_ values: [UInt32]) -> [UInt8] {
      values.flatMap { v in withUnsafeBytes(of: v.littleEndian, Array.init) }
    }
    commands.append(words([0x2, 24, UInt32(symbolOffset), 2, UInt32(stringOffset), UInt32(strings.count)]))
    // LC_DYSYMTAB: local 0..<0, extdef 0..<1, undef 1..<2.
    commands.append(words([0xb, 80, 0, 0, 0, 1, 1, 1] + [UInt32](repeating: 0, count: 12)))
    switch fixups {
    case .chained:
      commands.append(words([0x8000_0034, 16, UInt32(fixupsOffset), UInt32(fixupsBlob.count)]))
    case .classic:
      let lazyBindOffset = lazyBindOpcodes.isEmpty ? 0 : UInt32(fixupsOffset + rebaseSize + bindSize)
      commands.append(
        words([
          0x8000_0022, 48, UInt32(fixupsOffset), UInt32(rebaseSize),
          UInt32(fixupsOffset + rebaseSize), UInt32(bindSize), 0, 0,
          lazyBindOffset, UInt32(lazyBindOpcodes.count), 0, 0,
        ]))
    }
    let commandBytes = commands.flatMap { $0 }
    put32(0xfeed_facf, at: 0)
    put32(arm64 ? 0x0100_000c : 0x0100_0007, at: 4)
    put32(0, at: 8)
    put32(6, at: 12)  // MH_DYLIB
    put32(UInt32(commands.count), at: 16)
    put32(UInt32(commandBytes.count), at: 20)
    put32(0x0010_0085, at: 24)
    bytes.replaceSubrange(32..<32 + commandBytes.count, with: commandBytes)
    return bytes
  }
}
