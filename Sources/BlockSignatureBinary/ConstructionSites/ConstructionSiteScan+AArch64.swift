// AArch64: code decoded word by word, registers followed through moves, spills and calls.

import BlockSignature

extension ConstructionSiteScan {
  /// AArch64 code is decoded word by word, keeping the address each register was last given
  /// by `adrp`/`add`/`adr`, and the slots where a 64-bit `str`, `stur` or `stp` stored it. A
  /// 64-bit `ldr`/`ldur` from such a slot (unoptimized code spills an address and reloads it
  /// for a second literal) loads it again.
  func scanAArch64(
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
