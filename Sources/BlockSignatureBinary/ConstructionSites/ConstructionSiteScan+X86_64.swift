// x86_64: the instructions that load an address, and the stores that follow them.

import BlockSignature
import CBlockSignatureShims

extension ConstructionSiteScan {
  /// x86 code cannot be decoded from an arbitrary offset, so every offset is tried for the
  /// few instructions that load an address, each followed by the store that may come next.
  func scanX86(
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

  func load(
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
  func aarch64CalleeSlots(
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
  func x86Copy(of register: UInt8, _ bytes: UnsafeRawBufferPointer, _ p: Int) -> UInt8? {
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
  func x86Reload(
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
  func x86Store(of register: UInt8, _ bytes: UnsafeRawBufferPointer, _ p: Int) -> AddressLoad.Slot? {
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
  func x86Memory(
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
}
