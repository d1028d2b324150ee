extension TypeQualifier {
  /// `TypeQualifier(rawValue:)` as a switch the optimizer inlines (see `TypeCode(byte:)`).
  @inline(__always)
  init?(byte: UInt8) {
    switch byte {
    case 0x72: self = .const
    case 0x6E: self = .in
    case 0x4E: self = .inout
    case 0x6F: self = .out
    case 0x4F: self = .bycopy
    case 0x52: self = .byref
    case 0x56: self = .oneway
    default: return nil
    }
  }
}
