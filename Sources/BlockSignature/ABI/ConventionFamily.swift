// The four calling conventions the ABI rules know, each with a file of its own rules:
// SystemVClassification.swift, AAPCS64Classification.swift, WindowsX64Passing.swift,
// I386Passing.swift.

/// The calling-convention family of a data model: Apple's arm64 is an AAPCS64.
enum ConventionFamily {
  case systemV, aapcs64, windowsX64, i386

  init(_ model: DataModel) {
    switch model.callingConvention {
    case .systemV: self = .systemV
    case .aapcs64, .appleARM64: self = .aapcs64
    case .windowsX64: self = .windowsX64
    case .i386: self = .i386
    }
  }
}
