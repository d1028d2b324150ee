import BlockSignature

/// The chained pointer formats decoded (`DYLD_CHAINED_PTR_*`).
enum ChainedPointerFormat: UInt16 {
  case arm64e = 1
  case pointer64 = 2
  case pointer64Offset = 6
  case arm64eUserland = 9
  case arm64eUserland24 = 12

  enum Target {
    case rebase(UInt64, isOffset: Bool)
    case bind(Int, Int64)
  }

  /// Bytes per unit of `next`.
  var stride: UInt64 { 8 / (self == .pointer64 || self == .pointer64Offset ? 2 : 1) }

  /// Whether rebase targets are offsets from the preferred load address (else addresses).
  var targetsAreOffsets: Bool { self != .pointer64 && self != .arm64e }

  func decode(_ word: UInt64) -> (target: Target, next: UInt64) {
    switch self {
    case .pointer64, .pointer64Offset:
      let next = (word >> 51) & 0xfff
      if word >> 63 == 1 {
        return (.bind(Int(word & 0xff_ffff), Int64((word >> 24) & 0xff)), next)
      }
      return (
        .rebase((word & 0xf_ffff_ffff) | ((word >> 36) & 0xff) << 56, isOffset: targetsAreOffsets), next
      )
    case .arm64e, .arm64eUserland, .arm64eUserland24:
      let next = (word >> 51) & 0x7ff
      let isAuth = word >> 63 == 1
      let isBind = (word >> 62) & 1 == 1
      let ordinalMask: UInt64 = self == .arm64eUserland24 ? 0xff_ffff : 0xffff
      switch (isAuth, isBind) {
      case (false, false):
        return (
          .rebase((word & 0x7ff_ffff_ffff) | ((word >> 43) & 0xff) << 56, isOffset: targetsAreOffsets), next
        )
      case (false, true):
        // 19-bit signed addend at bit 32.
        let raw = (word >> 32) & 0x7_ffff
        let addend = Int64(bitPattern: raw << 45) >> 45
        return (.bind(Int(word & ordinalMask), addend), next)
      case (true, false):
        // Auth rebases always hold an offset from the load address; report it as one.
        return (.rebase(word & 0xffff_ffff, isOffset: true), next)
      case (true, true):
        return (.bind(Int(word & ordinalMask), 0), next)
      }
    }
  }
}
