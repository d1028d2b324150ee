// A type measured on one data model, and the calling convention's verdict on it: the last step
// of `TypeEncoding.abiShape(for:asParameter:writtenSlot:assumingHalfPrecision:)`.

/// A type as the layout engine measured it on one model: its size, alignment and the caveats
/// under which that layout holds.
struct ABIMeasurement {
  /// The type as written, qualifiers kept.
  let encoding: TypeEncoding
  /// The type as the conventions classify it (see `passedType(asParameter:)`).
  let type: TypeEncoding
  let model: DataModel
  let convention: ConventionFamily
  let size: Int
  let alignment: Int
  /// Whether the layout is not known at all: fields not encoded, or no size.
  let isUnknown: Bool
  /// The engine's caveats, less an ambiguous space where the target settles it.
  let caveats: LayoutCaveats

  /// The caveats under which a layout, and so how the type is passed, is a guess.
  static let estimatedLayouts: LayoutCaveats = [
    .bitfieldUnitAssumed, .ambiguousFloatingPoint, .microsoftBitfields, .unsupportedOnTarget,
  ]

  init(
    encoding: TypeEncoding, type: TypeEncoding, model: DataModel, size: Int, alignment: Int,
    engineCaveats: LayoutCaveats, assumingHalfPrecision: Bool
  ) {
    (self.encoding, self.type, self.model, self.size, self.alignment) = (encoding, type, model, size, alignment)
    convention = ConventionFamily(model)
    isUnknown = !engineCaveats.isDisjoint(with: [.unknownSize, .fieldsNotEncoded])
    var caveats = engineCaveats
    // clang has no `__float128` for AArch64 or Windows x64: a space there is a 2-byte
    // `_Float16` or `__bf16`, passed alike (`[2 x half]` for both in a structure on AArch64).
    if convention == .aapcs64 || convention == .windowsX64 || assumingHalfPrecision {
      caveats.remove(.ambiguousFloatingPoint)
    }
    self.caveats = caveats
  }

  /// Whether the layout is a guess (NeXT bitfield units, an open space, …).
  var isEstimate: Bool { !caveats.isDisjoint(with: Self.estimatedLayouts) }

  /// The shape: unknown passing for a guessed or unknown layout (`isSizeKnown` kept unless the
  /// layout is unknown), else the convention's.
  func shape(isEstimate: Bool, isSizeKnown: Bool, asParameter: Bool) -> ABIShape {
    if isUnknown || isEstimate {
      return ABIShape(size: size, alignment: alignment, passing: .unknown, isSizeKnown: isSizeKnown && !isUnknown)
    }
    return conventionShape(asParameter: asParameter)
  }

  /// The convention's passing for a layout that is certain, with the alignment of a copy in
  /// memory: the type's (a hidden pointer's buffer, the caller's copy behind a pointer), or
  /// that of the stack slot an argument is copied to.
  private func conventionShape(asParameter: Bool) -> ABIShape {
    let passing: ParameterPassing
    var memoryAlignment = alignment
    switch convention {
    case .systemV:
      passing = type.systemVPassing(size: size, model: model, asParameter: asParameter)
      // clang: `byval … align 8` for a structure of 24 `char`s as for one of three `long long`s.
      if asParameter { memoryAlignment = max(alignment, 8) }
    case .aapcs64:
      passing = type.aapcs64Passing(size: size, alignment: alignment, model: model, asParameter: asParameter)
    case .windowsX64: passing = type.windowsPassing(size: size, asParameter: asParameter)
    case .i386:
      passing = type.i386Passing(size: size, asParameter: asParameter)
      // clang: `byval … align 4` for every record, scalars in 4-byte slots.
      if asParameter { memoryAlignment = 4 }
    }
    return ABIShape(size: size, alignment: memoryAlignment, passing: passing, isSizeKnown: true)
  }
}
