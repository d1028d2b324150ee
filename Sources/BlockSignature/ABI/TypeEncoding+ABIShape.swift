// How a type is passed or returned on a data model: measured by the layout engine, settled by
// an argument's slot in the frame where the encoding leaves it open (ABIMeasurement+WrittenSlot.swift),
// then classified by the model's calling convention (ABIMeasurement.swift).

extension TypeEncoding {
  /// How the type is passed on `model`; `asParameter` makes an array a pointer.
  ///
  /// Where the encoding leaves the layout an estimate the passing is ``ParameterPassing/unknown``:
  /// fields not encoded or no size (`{S}`, `?`), NeXT bitfields (`b5` may be a `char`, `int` or
  /// `long long` unit: `{?=b1}` is 1 byte for a `_Bool : 1`, not 4), a space where the target
  /// has `__float128` (`_Float16` or `__bf16`, 2 bytes, or `__float128`, 16, on x86-64 System V
  /// and i386). An argument's `writtenSlot`, the bytes its offsets give it, is clang's own size
  /// for it: it settles a space or a record with spaces when it agrees with the 2 bytes assumed,
  /// and shows a hidden layout (packed, over-aligned) when an aggregate's differs; the size is
  /// then known, the passing not (`{P=ci}` in 5 bytes is packed, its `int` unaligned).
  /// `assumingHalfPrecision` reads every space as the 2-byte `_Float16`, one of its readings.
  package func abiShape(
    for model: DataModel, asParameter: Bool, writtenSlot: Int? = nil, assumingHalfPrecision: Bool = false
  ) -> ABIShape {
    let type = passedType(asParameter: asParameter)
    var engine = LayoutEngine(model: model)
    guard let (size, alignment) = try? engine.measure(type) else {
      return ABIShape(size: 0, alignment: 1, passing: .unknown, isSizeKnown: false)
    }
    if case .primitive(.void) = type {
      return ABIShape(size: 0, alignment: 1, passing: .void, isSizeKnown: true)
    }
    let measured = ABIMeasurement(
      encoding: self, type: type, model: model, size: size, alignment: alignment, engineCaveats: engine.caveats,
      assumingHalfPrecision: assumingHalfPrecision)
    if asParameter, let slot = writtenSlot, measured.isOpenToWrittenSlot {
      return measured.parameterShape(writtenSlot: slot)
    }
    return measured.shape(isEstimate: measured.isEstimate, isSizeKnown: !measured.isEstimate, asParameter: asParameter)
  }

  /// The type the conventions classify: qualifiers removed, an array parameter a pointer, and an
  /// `_Atomic` scalar the scalar, which every target passes and returns as the scalar (clang:
  /// `float` and `double` in floating-point registers, `x86_fp80`); an atomic aggregate keeps
  /// rules of its own (``systemVPassing(size:model:asParameter:)``, ``windowsPassing(size:asParameter:)``).
  private func passedType(asParameter: Bool) -> TypeEncoding {
    var type = unqualified
    if asParameter, case .array = type { type = .pointer(.primitive(.void)) }
    if case .atomic(let inner) = type, inner.unqualified.isScalar { type = inner.unqualified }
    return type
  }

  /// How a value of this type is returned on `model`: its ``abiShape(for:asParameter:writtenSlot:assumingHalfPrecision:)``,
  /// except for a lone space on x86_64 System V, whose size is open but whose register is not:
  /// `_Float16`, `__bf16` and `__float128` all come back in XMM0.
  func returnShape(for model: DataModel) -> ABIShape {
    let shape = abiShape(for: model, asParameter: false)
    if !shape.isSizeKnown, ConventionFamily(model) == .systemV, case .primitive(.otherFloat) = unqualified {
      return ABIShape(
        size: shape.size, alignment: shape.alignment, passing: .eightbytes(.sse, .none), isSizeKnown: false)
    }
    return shape
  }
}
