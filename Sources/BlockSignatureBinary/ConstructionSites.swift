import BlockSignature
import CBlockSignatureShims

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

/// One place where a value (an address) is put into a register or a stack slot.
struct AddressLoad {
  /// The instruction that loads the value (or, for an immediate store, stores it).
  var pc: UInt64
  var value: UInt64
  /// Where the value is then stored: base registers and displacements (AArch64 code may
  /// store a value twice, in a spill slot and in the literal).
  var slots = Slots()
  /// The register loaded and where the next instruction starts, for a store found later or
  /// in a callee (``ConstructionSiteScan/laterStore(of:before:)``,
  /// ``ConstructionSiteScan/calleeSlots(of:)``); no register for an x86 immediate store.
  var register: UInt8? = nil
  var next: UInt64 = 0

  struct Slot: Hashable {
    var base: UInt8
    var displacement: Int64

    /// The slot a word before this one.
    var wordBefore: Slot { Slot(base: base, displacement: displacement &- 8) }
  }

  /// Up to four slots, kept inline: a load is made for every address the code loads, and an
  /// array each would cost an allocation each.
  struct Slots {
    private var first: Slot?
    private var second: Slot?
    private var third: Slot?
    private var fourth: Slot?

    var isEmpty: Bool { first == nil }

    /// Adds `slot`, unless four are kept already.
    mutating func append(_ slot: Slot) {
      if first == nil {
        first = slot
      } else if second == nil {
        second = slot
      } else if third == nil {
        third = slot
      } else if fourth == nil {
        fourth = slot
      }
    }

    /// The slots kept, in the order added.
    var all: [Slot] { [first, second, third, fourth].compactMap { $0 } }

    func contains(_ slot: Slot) -> Bool {
      first == slot || second == slot || third == slot || fourth == slot
    }

    /// Whether some slot of `other` is a word after one of these.
    func precedes(_ other: Slots) -> Bool {
      func before(_ slot: Slot?) -> Bool { slot.map { contains($0.wordBefore) } ?? false }
      return before(other.first) || before(other.second) || before(other.third) || before(other.fourth)
    }
  }
}

/// Finds the address loads of an image's code that concern blocks: those of a descriptor, and
/// those of a code address near one.
struct ConstructionSiteScan {
  let image: BinaryImage
  /// Executable sections with contents: (address range, file range), sorted by address.
  private let code: [(range: Range<UInt64>, file: Range<Int>)]
  /// Immediates are addresses only in fixed-address executables; in position-independent code
  /// small constants would look like addresses.
  private let immediatesAreAddresses: Bool

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

  private enum Architecture { case x86_64, aarch64 }

  private static func architecture(of image: BinaryImage) -> Architecture? {
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

  private func scan(
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

  // MARK: Matching

  /// Finds each descriptor load's invoke, keeping what the loads share: one buffer of nearby
  /// loads, and the count of backward traces (bounded by ``traceLimit``).
  struct Matcher {
    let scan: ConstructionSiteScan
    private var nearby: [AddressLoad] = []
    private var traces = 0
    /// Sites whose invoke was not traced back because ``traceLimit`` were already.
    private(set) var untraced = 0

    init(scan: ConstructionSiteScan) { self.scan = scan }

    /// The invoke stored beside the descriptor `load` puts into a literal, and how it was
    /// found: the code address stored a word before the descriptor, (1) in the window around
    /// the load, the descriptor stored at once or later (a loop's register); (2) loaded into a
    /// register long before (traced back); (3) when the descriptor is passed to the code a
    /// call or jump leads to, stored there: before the jump (a shared tail) or in the callee
    /// (a merged function). Nil when none is found: no guess is made.
    mutating func invoke(
      of descriptor: AddressLoad, functionStart: UInt64?, functionEnd: UInt64?
    ) -> (load: AddressLoad, match: BlockConstructionSite.InvokeMatch)? {
      var load = descriptor
      // Past a jump, the bytes that follow are another path's: a later store is looked for
      // only when the load is not passed on.
      let passed = scan.calleeSlots(of: load)
      if passed == nil, let slot = scan.laterStore(of: load, before: functionEnd ?? .max) {
        load.slots.append(slot)
      }
      let window = ConstructionSiteScan.window
      let low = max(load.pc >= window ? load.pc - window : 0, functionStart ?? 0)
      let high = min(load.pc &+ window < load.pc ? .max : load.pc + window, functionEnd ?? .max)
      scan.codeLoads(around: load.pc, low: low, high: high, into: &nearby)
      if !load.slots.isEmpty {
        for position in nearby.indices where nearby[position].slots.isEmpty {
          if let slot = scan.laterStore(of: nearby[position]) { nearby[position].slots.append(slot) }
        }
        // (1) The closest code address stored a word before the descriptor.
        var best: AddressLoad?
        for candidate in nearby where candidate.slots.precedes(load.slots) {
          let distance = candidate.pc.distance(to: load.pc).magnitude
          if let found = best, found.pc.distance(to: load.pc).magnitude <= distance { continue }
          best = candidate
        }
        if let best { return (best, .slot) }
        // (2) Traced back.
        guard traces < ConstructionSiteScan.traceLimit else {
          untraced += 1
          return nil
        }
        traces += 1
        if scan.decodesRegisters {
          // The decode from further back keeps the invoke in its register to the store.
          let back = ConstructionSiteScan.traceWindow
          let wide = max(functionStart ?? 0, load.pc >= back ? load.pc - back : 0)
          scan.codeLoads(around: load.pc, low: wide, high: high, into: &nearby)
          if let traced = nearby.last(where: { $0.slots.precedes(load.slots) }) { return (traced, .slot) }
        } else {
          for slot in load.slots.all {
            if let traced = scan.tracedLoad(into: slot.wordBefore, before: load.pc, after: functionStart ?? 0) {
              return (traced, .slot)
            }
          }
        }
      }
      // (3) Passed on.
      guard let (callee, slots) = passed else { return nil }
      if let before = nearby.last(where: { $0.pc < load.pc && $0.slots.precedes(slots) }) { return (before, .slot) }
      var calleeLoads: [AddressLoad] = []
      scan.codeLoads(around: callee, low: callee, high: callee &+ 384, into: &calleeLoads)
      for var candidate in calleeLoads {
        if candidate.slots.isEmpty, let slot = scan.laterStore(of: candidate) { candidate.slots.append(slot) }
        if candidate.slots.precedes(slots) { return (candidate, .callee) }
      }
      return nil
    }
  }

  // MARK: x86_64

  /// x86 code cannot be decoded from an arbitrary offset, so every offset is tried for the
  /// few instructions that load an address, each followed by the store that may come next.
  private func scanX86(
    _ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int, base: UInt64, _ visit: (AddressLoad) -> Void
  ) {
    let count = bytes.count
    func int32(_ at: Int) -> Int32 { Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: Int32.self)) }
    var p = start
    while p < end {
      if !immediatesAreAddresses, let pointer = bytes.baseAddress {
        // Only `lea` counts: skip to the next 0x8D opcode byte.
        let from = p + 1
        let limit = min(end + 1, count)
        guard from < limit else { break }
        let found = from + cbs_find_byte(pointer + from, limit - from, 0x8D)
        guard found < limit else { break }
        p = found - 1
      }
      let rex = bytes[p]
      // lea r64, [rip + disp32]: REX.W 8D modrm(00 reg 101) disp32.
      if rex & 0xF8 == 0x48, p + 7 <= count, bytes[p + 1] == 0x8D, bytes[p + 2] & 0xC7 == 0x05 {
        let register = (bytes[p + 2] >> 3) & 7 | (rex & 4) << 1
        let displacement = int32(p + 3)
        let inPlace = base &+ UInt64(p + 7) &+ UInt64(bitPattern: Int64(displacement))
        let value: UInt64?
        if image.hasFinalAddresses {
          value = inPlace
        } else if let fixup = image.codeFixup(at: base &+ UInt64(p + 3)), fixup.kind == .pcRelative32 {
          value = fixup.target
        } else if displacement != 0, inPlace >= base, inPlace - base < UInt64(count) {
          value = inPlace  // an object's reference within its own section: resolved by the assembler
        } else {
          value = nil  // a displacement a relocation will fill: not an address yet
        }
        if let value { visit(load(p, base, value, x86Store(of: register, bytes, p + 7), register, length: 7)) }
      }
      if immediatesAreAddresses {
        // movabs r64, imm64: REX.W(B) B8+r imm64.
        if rex & 0xFE == 0x48, p + 10 <= count, bytes[p + 1] & 0xF8 == 0xB8 {
          let register = bytes[p + 1] & 7 | (rex & 1) << 3
          let value = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: p + 2, as: UInt64.self))
          visit(load(p, base, value, x86Store(of: register, bytes, p + 10), register, length: 10))
        }
        // mov r32, imm32 (zero-extended): B8+r imm32, not the tail of a movabs.
        if rex & 0xF8 == 0xB8, p + 5 <= count, p == 0 || bytes[p - 1] & 0xFE != 0x48 {
          let value = UInt64(UInt32(bitPattern: int32(p + 1)))
          visit(load(p, base, value, x86Store(of: rex & 7, bytes, p + 5), rex & 7, length: 5))
        }
        // mov qword [base + disp], imm32 (sign-extended): REX.W C7 modrm(mod 000 rm) ….
        if rex & 0xF8 == 0x48, p + 3 <= count, bytes[p + 1] == 0xC7, bytes[p + 2] & 0x38 == 0,
          let (slot, length) = x86Memory(bytes, p, rex: rex), p + length + 4 <= count
        {
          let value = UInt64(bitPattern: Int64(int32(p + length)))
          visit(load(p, base, value, slot, nil, length: length + 4))
        }
      }
      p += 1
    }
  }

  private func load(
    _ p: Int, _ base: UInt64, _ value: UInt64, _ slot: AddressLoad.Slot?, _ register: UInt8?, length: Int
  ) -> AddressLoad {
    var load = AddressLoad(pc: base &+ UInt64(p), value: value)
    if let slot { load.slots.append(slot) }
    load.register = register
    load.next = base &+ UInt64(p + length)
    return load
  }

  /// How far after an x86 load its register's store is looked for, in bytes.
  static let laterStoreWindow = 96

  /// For an x86 load not stored by the instruction after it (a loop may load an address into
  /// a register once and store it on every pass): the first `mov [base + disp], reg` of that
  /// register within ``laterStoreWindow`` bytes after it. The bytes are tried at every offset,
  /// so a store is only trusted where another one pairs with it.
  /// The search stops at `end` (the end of the load's function, when the symbols say).
  func laterStore(of load: AddressLoad, before end: UInt64 = .max) -> AddressLoad.Slot? {
    // AArch64's decode already saw every store of the register while it held the address.
    guard !decodesRegisters, let register = load.register, load.slots.isEmpty,
      let part = code.first(where: { $0.range.contains(load.pc) }), part.range.contains(load.next)
    else { return nil }
    let bytes = UnsafeRawBufferPointer(rebasing: image.bytes.base[part.file])
    let start = Int(load.next - part.range.lowerBound)
    let limit = min(start + Self.laterStoreWindow, bytes.count, Int(clamping: end &- part.range.lowerBound))
    for q in start..<max(start, limit) {
      if let slot = x86Store(of: register, bytes, q) { return slot }
    }
    return nil
  }

  /// Swift merges functions that differ only in constants into one (`…Tm`) and passes the
  /// constants in: the caller loads a descriptor's address into an argument register and
  /// jumps to or calls the merged function, which builds the literal. For an x86 load not
  /// stored where it is, followed within 16 bytes by a `call` or `jmp`: the callee's
  /// address, and the slots the register reaches there: its first store within 128 bytes of
  /// the callee's start, and, when that is a spill, the store of the register it is reloaded
  /// into.
  func calleeSlots(of load: AddressLoad) -> (callee: UInt64, slots: AddressLoad.Slots)? {
    guard let register = load.register, load.slots.isEmpty,
      let part = code.first(where: { $0.range.contains(load.pc) }), part.range.contains(load.next)
    else { return nil }
    if decodesRegisters { return aarch64CalleeSlots(of: load, register: Int(register), in: part) }
    let bytes = UnsafeRawBufferPointer(rebasing: image.bytes.base[part.file])
    let start = Int(load.next - part.range.lowerBound)
    var callee: UInt64?
    for q in start..<min(start + 16, bytes.count - 1) {
      let target: UInt64
      switch bytes[q] {
      case 0xE8,
        0xE9 where q + 5 <= bytes.count:  // call / jmp rel32
        if let fixup = image.codeFixup(at: part.range.lowerBound &+ UInt64(q + 1)), fixup.kind == .pcRelative32 {
          target = fixup.target  // an object's call: its target is in a relocation
        } else {
          let displacement = Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: q + 1, as: Int32.self))
          target = part.range.lowerBound &+ UInt64(q + 5) &+ UInt64(bitPattern: Int64(displacement))
        }
      case 0xEB:  // jmp rel8
        target = part.range.lowerBound &+ UInt64(q + 2) &+ UInt64(bitPattern: Int64(Int8(bitPattern: bytes[q + 1])))
      default:
        continue
      }
      if isCode(target) {
        callee = target
        break
      }
    }
    guard let callee, let target = code.first(where: { $0.range.contains(callee) }) else { return nil }
    let code = UnsafeRawBufferPointer(rebasing: image.bytes.base[target.file])
    let entry = Int(callee - target.range.lowerBound)
    var slots = AddressLoad.Slots()
    var holders = [register]  // the register, and one it is copied into (`mov r14, rcx`)
    for q in entry..<min(entry + 128, code.count) {
      if holders.count == 1, let copy = x86Copy(of: register, code, q) {
        holders.append(copy)
        continue
      }
      guard let spill = holders.lazy.compactMap({ self.x86Store(of: $0, code, q) }).first else { continue }
      slots.append(spill)
      // A reload of that slot into another register, stored at once: the literal's field.
      for r in (q + 3)..<min(entry + 384, code.count) {
        guard let (reloaded, length) = x86Reload(of: spill, code, r),
          let slot = x86Store(of: reloaded, code, r + length)
        else { continue }
        slots.append(slot)
        break
      }
      break
    }
    return slots.isEmpty ? nil : (callee, slots)
  }

  /// How far before a descriptor's store the invoke's register is traced back, in bytes.
  static let traceWindow: UInt64 = 4096
  /// The most sites traced back in one image (real code needs a handful; each costs a
  /// window's scan).
  static let traceLimit = 4096

  /// x86: the invoke stored into `slot` by a register loaded long before (a function may load
  /// the invoke's address into a callee-saved register early, across calls, and store it into
  /// the literal next to the descriptor): the last `mov [slot], reg` in `[low, pc)`, then the
  /// last `lea reg, [rip + code]` before that store, in the same range.
  func tracedLoad(into slot: AddressLoad.Slot, before pc: UInt64, after low: UInt64) -> AddressLoad? {
    guard Self.architecture(of: image) == .x86_64, let part = code.first(where: { $0.range.contains(pc) }) else {
      return nil
    }
    let bytes = UnsafeRawBufferPointer(rebasing: image.bytes.base[part.file])
    let first = Int(
      max(low, part.range.lowerBound, pc >= Self.traceWindow ? pc - Self.traceWindow : 0) - part.range.lowerBound)
    let end = Int(pc - part.range.lowerBound)
    // The store into the slot, and the register it stores.
    var store: (at: Int, register: UInt8)?
    for q in stride(from: end - 3, through: first, by: -1) {
      guard bytes[q] & 0xF8 == 0x48, bytes[q + 1] == 0x89, let (operand, _) = x86Memory(bytes, q, rex: bytes[q]),
        operand == slot
      else { continue }
      store = (q, (bytes[q + 2] >> 3) & 7 | (bytes[q] & 4) << 1)
      break
    }
    guard let store else { return nil }
    var traced: AddressLoad?
    scanX86(bytes, first, store.at, base: part.range.lowerBound) { load in
      if load.register == store.register, isCode(load.value), load.next <= part.range.lowerBound &+ UInt64(store.at) {
        traced = load
      }
    }
    return traced
  }

  /// AArch64: a `b` or `bl` within the four instructions after the load; the callee is decoded
  /// with the register holding the address from its first instruction (its moves, spills and
  /// reloads followed), and the slots where that address is stored are returned.
  private func aarch64CalleeSlots(
    of load: AddressLoad, register: Int, in part: (range: Range<UInt64>, file: Range<Int>)
  ) -> (callee: UInt64, slots: AddressLoad.Slots)? {
    let bytes = UnsafeRawBufferPointer(rebasing: image.bytes.base[part.file])
    var p = Int(load.next - part.range.lowerBound)
    var callee: UInt64?
    while callee == nil, p + 4 <= bytes.count, p < Int(load.next - part.range.lowerBound) + 16 {
      let word = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: p, as: UInt32.self))
      if word & 0x7C00_0000 == 0x1400_0000 {  // b / bl imm26
        let offset = (Int64(word & 0x03FF_FFFF) << 38) >> 36
        let target = part.range.lowerBound &+ UInt64(p) &+ UInt64(bitPattern: offset)
        if isCode(target) { callee = target }
      }
      p += 4
    }
    guard let callee, let target = code.first(where: { $0.range.contains(callee) }) else { return nil }
    var slots = AddressLoad.Slots()
    scan(target, from: callee, to: min(callee &+ 384, target.range.upperBound), seed: (register, load.value)) {
      if $0.value == load.value { for slot in $0.slots.all { slots.append(slot) } }
    }
    return slots.isEmpty ? nil : (callee, slots)
  }

  /// `mov dst, register` between 64-bit registers at `p` (REX.W 89 /r or 8B /r, mod 11):
  /// the destination.
  private func x86Copy(of register: UInt8, _ bytes: UnsafeRawBufferPointer, _ p: Int) -> UInt8? {
    guard p + 3 <= bytes.count else { return nil }
    let rex = bytes[p]
    let modrm = bytes[p + 2]
    guard rex & 0xF8 == 0x48, modrm >> 6 == 3 else { return nil }
    let field = (modrm >> 3) & 7 | (rex & 4) << 1  // ModRM.reg
    let operand = modrm & 7 | (rex & 1) << 3  // ModRM.rm
    switch bytes[p + 1] {
    case 0x89 where field == register && operand != register: return operand  // mov rm, reg
    case 0x8B where operand == register && field != register: return field  // mov reg, rm
    default: return nil
    }
  }

  /// `mov reg, [base + disp]` (REX.W 8B /r) at `p` reading `slot`: the register and the
  /// instruction's length.
  private func x86Reload(
    of slot: AddressLoad.Slot, _ bytes: UnsafeRawBufferPointer, _ p: Int
  ) -> (register: UInt8, length: Int)? {
    guard p + 3 <= bytes.count else { return nil }
    let rex = bytes[p]
    guard rex & 0xF8 == 0x48, bytes[p + 1] == 0x8B, let (operand, length) = x86Memory(bytes, p, rex: rex),
      operand == slot
    else { return nil }
    return ((bytes[p + 2] >> 3) & 7 | (rex & 4) << 1, length)
  }

  /// The stack slot of `mov [base + disp], r64` (REX.W 89 /r) at `p`, if the instruction there
  /// is that store of `register`.
  private func x86Store(of register: UInt8, _ bytes: UnsafeRawBufferPointer, _ p: Int) -> AddressLoad.Slot? {
    guard p + 3 <= bytes.count else { return nil }
    let rex = bytes[p]
    guard rex & 0xF8 == 0x48, bytes[p + 1] == 0x89, (bytes[p + 2] >> 3) & 7 | (rex & 4) << 1 == register else {
      return nil
    }
    return x86Memory(bytes, p, rex: rex)?.slot
  }

  /// The memory operand of the instruction `REX opcode modrm [sib] [disp]` at `p`: a base
  /// register and a displacement (no index, not RIP-relative), and the instruction's length
  /// up to its immediate.
  private func x86Memory(
    _ bytes: UnsafeRawBufferPointer, _ p: Int, rex: UInt8
  ) -> (slot: AddressLoad.Slot, length: Int)? {
    let modrm = bytes[p + 2]
    let mod = modrm >> 6
    var register = modrm & 7
    var length = 3
    guard mod != 3 else { return nil }
    if register == 4 {
      guard p + 4 <= bytes.count else { return nil }
      let sib = bytes[p + 3]
      // An index register, or no base (disp32 alone): not a stack slot.
      guard (sib >> 3) & 7 | (rex & 2) << 2 == 4, !(mod == 0 && sib & 7 == 5) else { return nil }
      register = sib & 7
      length = 4
    } else if mod == 0 && register == 5 {
      return nil  // RIP-relative: a global, not a stack literal
    }
    register |= (rex & 1) << 3
    let displacement: Int64
    switch mod {
    case 1:
      guard p + length + 1 <= bytes.count else { return nil }
      displacement = Int64(Int8(bitPattern: bytes[p + length]))
      length += 1
    case 2:
      guard p + length + 4 <= bytes.count else { return nil }
      displacement = Int64(Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: p + length, as: Int32.self)))
      length += 4
    default:
      displacement = 0
    }
    return (AddressLoad.Slot(base: register, displacement: displacement), length)
  }

  // MARK: AArch64

  /// AArch64 code is decoded word by word, keeping the address each register was last given
  /// by `adrp`/`add`/`adr`, and the slots where a 64-bit `str`, `stur` or `stp` stored it. A
  /// 64-bit `ldr`/`ldur` from such a slot (unoptimized code spills an address and reloads it
  /// for a second literal) loads it again.
  private func scanAArch64(
    _ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int, base: UInt64,
    seed: (register: Int, value: UInt64)? = nil, _ visit: (AddressLoad) -> Void
  ) {
    // Per register: its last load, visited once the register is given another value (so at
    // most 32 loads wait, whatever the size of the code).
    var current = [AddressLoad?](repeating: nil, count: 32)
    // Stack slots holding an address (bounded: cleared when full or on another path).
    var stored: [AddressLoad.Slot: UInt64] = [:]
    func forget(_ register: Int) {
      if let load = current[register] { visit(load) }
      current[register] = nil
    }
    func set(_ register: Int, _ pc: UInt64, _ value: UInt64) {
      guard register != 31 else { return }  // sp or xzr: no address to follow
      forget(register)
      var load = AddressLoad(pc: pc, value: value)
      load.register = UInt8(register)
      load.next = pc &+ 4
      current[register] = load
    }
    func forgetAll() {
      for register in 0..<32 { forget(register) }
      stored.removeAll(keepingCapacity: true)
    }
    func store(_ register: Int, base: Int, displacement: Int64) {
      let slot = AddressLoad.Slot(base: UInt8(base), displacement: displacement)
      guard register != 31, let value = current[register]?.value else {
        stored[slot] = nil
        return
      }
      if stored.count >= 256 { stored.removeAll(keepingCapacity: true) }
      stored[slot] = value
      current[register]!.slots.append(slot)
    }
    func reload(_ register: Int, _ pc: UInt64, base: Int, displacement: Int64) {
      if let value = stored[AddressLoad.Slot(base: UInt8(base), displacement: displacement)] {
        set(register, pc, value)
      } else {
        forget(register)
      }
    }
    var p = start & ~3
    if let seed { set(seed.register, base &+ UInt64(p), seed.value) }  // an argument passed in
    while p + 4 <= end {
      let word = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: p, as: UInt32.self))
      let pc = base &+ UInt64(p)
      let rd = Int(word & 31)
      let rn = Int((word >> 5) & 31)
      if word & 0x9F00_0000 == 0x9000_0000 || word & 0x9F00_0000 == 0x1000_0000 {
        // adrp / adr rd, label
        let isPage = word & 0x8000_0000 != 0
        if image.hasFinalAddresses {
          let immediate = (Int64(((word >> 5) & 0x7FFFF) << 2 | (word >> 29) & 3) << 43) >> 43
          set(
            rd, pc,
            isPage ? (pc & ~0xFFF) &+ UInt64(bitPattern: immediate << 12) : pc &+ UInt64(bitPattern: immediate))
        } else if let fixup = image.codeFixup(at: pc), fixup.kind == (isPage ? .page21 : .adr21) {
          set(rd, pc, isPage ? fixup.target & ~0xFFF : fixup.target)
        } else {
          forget(rd)
        }
      } else if word & 0xFF80_0000 == 0x9100_0000 {
        // add xd, xn, #imm{, lsl #12}
        if rn != 31, let known = current[rn]?.value {
          let shift: UInt64 = word & (1 << 22) != 0 ? 12 : 0
          var immediate = UInt64((word >> 10) & 0xFFF) << shift
          if !image.hasFinalAddresses, let fixup = image.codeFixup(at: pc), fixup.kind == .low12 {
            immediate = fixup.target & 0xFFF
          }
          set(rd, pc, known &+ immediate)
        } else {
          forget(rd)
        }
      } else if word & 0xFFC0_0000 == 0xF900_0000 {
        // str xt, [xn, #imm12 * 8]
        store(rd, base: rn, displacement: Int64((word >> 10) & 0xFFF) * 8)
      } else if word & 0xFFE0_0C00 == 0xF800_0000 {
        // stur xt, [xn, #simm9]
        store(rd, base: rn, displacement: (Int64((word >> 12) & 0x1FF) << 55) >> 55)
      } else if word & 0xFFC0_0000 == 0xF940_0000 {
        // ldr xt, [xn, #imm12 * 8]
        reload(rd, pc, base: rn, displacement: Int64((word >> 10) & 0xFFF) * 8)
      } else if word & 0xFFE0_0C00 == 0xF840_0000 {
        // ldur xt, [xn, #simm9]
        reload(rd, pc, base: rn, displacement: (Int64((word >> 12) & 0x1FF) << 55) >> 55)
      } else if word & 0xFFC0_0000 == 0xA900_0000 {
        // stp xt, xt2, [xn, #simm7 * 8]
        let displacement = ((Int64((word >> 15) & 0x7F) << 57) >> 57) * 8
        store(rd, base: rn, displacement: displacement)
        store(Int((word >> 10) & 31), base: rn, displacement: displacement + 8)
      } else if word & 0xFFE0_FFE0 == 0xAA00_03E0 {
        // mov xd, xm (orr xd, xzr, xm): the address moves with it.
        let source = Int((word >> 16) & 31)
        if source != 31, let value = current[source]?.value { set(rd, pc, value) } else { forget(rd) }
      } else if word & 0xFFFF_C000 == 0xDAC1_0000 {
        // pacia, pacib, pacda, pacdb, aut* (and their zero-modifier forms): arm64e signs an
        // invoke pointer in place before storing it; the register still holds that address.
      } else if word & 0xFC00_0000 == 0x9400_0000 || word & 0xFFFF_FC1F == 0xD63F_0000 {
        // bl / blr: the callee may change x0–x18 and x30.
        for register in 0...18 { forget(register) }
        forget(30)
      } else if word & 0x7C00_0000 == 0x1400_0000 || word & 0xFE1F_FC1F == 0xD61F_0000 {
        // b / br / ret: another path begins.
        forgetAll()
      } else if word & 0x1C00_0000 == 0x1000_0000 || word & 0x0E00_0000 == 0x0A00_0000 {
        // Other data processing writes rd.
        forget(rd)
      } else if word & 0x0A00_0000 == 0x0800_0000, word & (1 << 22) != 0 {
        // Loads write rt (and rt2 for a pair).
        forget(rd)
        if word & 0x3800_0000 == 0x2800_0000 { forget(Int((word >> 10) & 31)) }
      }
      p += 4
    }
    for register in 0..<32 { forget(register) }
  }
}
