/// Relocation type numbers that matter for pointer slots, per machine.
struct ELFRelocationKinds {
  /// Absolute pointer-sized relocations (`R_X86_64_64`, `R_AARCH64_ABS64`, `R_386_32`, `R_ARM_ABS32`).
  var absolute: Set<UInt32>
  /// GOT entry relocations (`GLOB_DAT`): pointer-sized, symbol-valued.
  var globalData: Set<UInt32>
  /// Base-relative relocations (`RELATIVE`).
  var relative: Set<UInt32>
  var architecture: String
  /// Relocations of instructions that load an address, in relocatable objects: what the
  /// construction-site reader needs to know where code points (`R_X86_64_PC32`/`PLT32`;
  /// AArch64 `ADR_PREL_LO21`, `ADR_PREL_PG_HI21(_NC)`, `ADD_ABS_LO12_NC`).
  var code: [UInt32: CodeFixup.Kind] = [:]

  init(machine: UInt16, is64: Bool) {
    switch machine {
    case 62:
      self.init(absolute: [1], globalData: [6], relative: [8], architecture: "x86_64")
      code = [2: .pcRelative32, 4: .pcRelative32]
    case 3: self.init(absolute: [1], globalData: [6], relative: [8], architecture: "i386")
    case 183:
      self.init(absolute: [257], globalData: [1025], relative: [1027], architecture: "aarch64")
      code = [274: .adr21, 275: .page21, 276: .page21, 277: .low12]
    case 40: self.init(absolute: [2], globalData: [21], relative: [23], architecture: "arm")
    case 243:
      self.init(absolute: is64 ? [2] : [1], globalData: [], relative: [3], architecture: is64 ? "riscv64" : "riscv32")
    default: self.init(absolute: [], globalData: [], relative: [], architecture: "machine-\(machine)")
    }
  }

  init(absolute: Set<UInt32>, globalData: Set<UInt32>, relative: Set<UInt32>, architecture: String) {
    self.absolute = absolute
    self.globalData = globalData
    self.relative = relative
    self.architecture = architecture
  }
}
