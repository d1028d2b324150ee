extension TypeCode {
  /// `TypeCode(rawValue:)` as a switch the optimizer inlines and threads into the rules'
  /// switches on the code (the synthesized initializer is an out-of-line call).
  @inline(__always)
  package init?(byte: UInt8) {
    switch byte {
    case 0x63: self = .char
    case 0x69: self = .int
    case 0x73: self = .short
    case 0x6C: self = .long
    case 0x71: self = .longLong
    case 0x43: self = .unsignedChar
    case 0x49: self = .unsignedInt
    case 0x53: self = .unsignedShort
    case 0x4C: self = .unsignedLong
    case 0x51: self = .unsignedLongLong
    case 0x74: self = .int128
    case 0x54: self = .unsignedInt128
    case 0x66: self = .float
    case 0x64: self = .double
    case 0x44: self = .longDouble
    case 0x20: self = .otherFloat
    case 0x42: self = .bool
    case 0x76: self = .void
    case 0x2A: self = .cString
    case 0x23: self = .`class`
    case 0x3A: self = .selector
    case 0x25: self = .atom
    case 0x3F: self = .unknown
    default: return nil
    }
  }
}
