import BlockSignature

// Where code builds a stack block: the instructions that put a descriptor's address into a
// literal on the stack, and the invoke function stored next to it.
//
// A stack literal is `isa, flags, reserved, invoke, descriptor, captures…`: the code that fills
// it loads the invoke function's address and the descriptor's, and stores them in two
// neighbouring words, the invoke first. clang does this the same way at every optimization
// level, and so does Swift for `@convention(block)` closures:
//
//     x86_64   lea rcx, [rip + invoke]      ; mov [rsp + 0x18], rcx
//              lea rcx, [rip + descriptor]  ; mov [rsp + 0x20], rcx
//     aarch64  adrp x9, invoke@page ; add x9, x9, invoke@pageoff
//              adrp x10, desc@page  ; add x10, x10, desc@pageoff ; stp x9, x10, [sp, #24]
//
// Fixed-address x86_64 executables use immediates instead (`movabs rax, imm64`, or
// `mov qword [rsp + 0x20], imm32`). A loop may load both addresses into registers once and
// store them on each pass; a function may load the invoke long before; Swift passes the
// descriptor to a merged function (`…Tm`) that stores it: ``ConstructionSiteScan/Matcher``
// follows each of these, and guesses nothing when none applies.

/// Finds the address loads of an image's code that concern blocks: those of a descriptor, and
/// those of a code address near one.
struct ConstructionSiteScan {
  let image: BinaryImage
  /// Executable sections with contents: (address range, file range), sorted by address.
  let code: [(range: Range<UInt64>, file: Range<Int>)]
  /// Immediates are addresses only in fixed-address executables; in position-independent code
  /// small constants would look like addresses.
  let immediatesAreAddresses: Bool

  /// How far from a descriptor's load the invoke's is looked for, in bytes.
  static let window: UInt64 = 192
  /// The most construction sites read in one image: real ones have hundreds; code made of
  /// nothing but loads of a descriptor would otherwise cost a window's scan per 7 bytes.
  static let siteLimit = 1 << 16

  /// Whether this image's code can be read for construction sites: x86_64 and AArch64 images,
  /// linked (final addresses) or relocatable with the relocations of their code read (ELF and
  /// Mach-O objects: the addresses are in those relocations, not in the instructions).
  static func supports(_ image: BinaryImage) -> Bool {
    (image.hasFinalAddresses || !image.codeFixups.isEmpty) && image.pointerSize == 8
      && architecture(of: image) != nil
  }

  enum Architecture { case x86_64, aarch64 }

  static func architecture(of image: BinaryImage) -> Architecture? {
    switch image.architecture {
    case "x86_64": .x86_64
    case "aarch64", "arm64": image.bytes.order == .little ? .aarch64 : nil
    default: nil
    }
  }

  init(image: BinaryImage) {
    self.image = image
    var code: [(range: Range<UInt64>, file: Range<Int>)] = []
    for section in image.sections where section.isExecutable {
      guard let offset = section.fileOffset, offset < UInt64(image.bytes.count) else { continue }
      let length = min(section.size, UInt64(image.bytes.count) - offset)
      let (end, overflow) = section.address.addingReportingOverflow(length)
      guard length > 0, !overflow else { continue }
      code.append((section.address..<end, Int(offset)..<Int(offset + length)))
    }
    self.code = code.sorted { $0.range.lowerBound < $1.range.lowerBound }
    immediatesAreAddresses = image.kind == .executable || image.kind == .staticExecutable
  }

  /// Whether `address` lies in the image's code, or (in a relocatable object) is the external
  /// address of a symbol defined elsewhere, which code may call.
  func isCode(_ address: UInt64) -> Bool {
    code.contains { $0.range.contains(address) } || image.externalSymbol(at: address) != nil
  }

  /// The loads of one of `values` in the image's code, by instruction address: at most
  /// `limit` + 1 of them (the first found), so that hostile code cannot make the list grow
  /// without bound.
  func loads(of values: Set<UInt64>, limit: Int) -> [AddressLoad] {
    var found: [AddressLoad] = []
    guard let lowest = values.min(), let highest = values.max() else { return [] }
    for part in code where found.count <= limit {
      scan(part, from: part.range.lowerBound, to: part.range.upperBound) { load in
        // Most loads are of other addresses: two compares before a hash.
        if load.value >= lowest, load.value <= highest, found.count <= limit, values.contains(load.value) {
          found.append(load)
        }
      }
    }
    return found.sorted { $0.pc < $1.pc }
  }

  /// The loads of code addresses in `[low, high)` (clamped to the code section of `pc`), by
  /// address, into `found` (emptied first: one buffer serves every site).
  func codeLoads(around pc: UInt64, low: UInt64, high: UInt64, into found: inout [AddressLoad]) {
    found.removeAll(keepingCapacity: true)
    guard let part = code.first(where: { $0.range.contains(pc) }) else { return }
    scan(part, from: max(low, part.range.lowerBound), to: min(high, part.range.upperBound)) { load in
      if isCode(load.value) { found.append(load) }
    }
    found.sort { $0.pc < $1.pc }
  }

  func scan(
    _ part: (range: Range<UInt64>, file: Range<Int>), from low: UInt64, to high: UInt64,
    seed: (register: Int, value: UInt64)? = nil, _ visit: (AddressLoad) -> Void
  ) {
    guard low < high, let architecture = Self.architecture(of: image) else { return }
    let bytes = UnsafeRawBufferPointer(rebasing: image.bytes.base[part.file])
    let start = Int(low - part.range.lowerBound)
    let end = Int(high - part.range.lowerBound)
    switch architecture {
    case .x86_64: scanX86(bytes, start, end, base: part.range.lowerBound, visit)
    case .aarch64: scanAArch64(bytes, start, end, base: part.range.lowerBound, seed: seed, visit)
    }
  }

  /// Whether the image's code is AArch64, which is decoded word by word (x86 is matched
  /// byte patterns): registers are followed through moves, spills and calls there.
  var decodesRegisters: Bool { Self.architecture(of: image) == .aarch64 }
}
