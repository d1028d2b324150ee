// Size, alignment and passing of one type on one data model: what the abi level compares and
// the placement rules consume. Computed without allocating (the layout engine's measuring
// walk, no field arrays): TypeEncoding+ABIShape.swift.

/// Size, alignment and passing of one type on one model.
package struct ABIShape: Hashable {
  package var size: Int
  package var alignment: Int
  /// ``ParameterPassing/unknown`` when the encoding leaves the layout an estimate.
  package var passing: ParameterPassing
  /// Whether ``size`` is certain: the encoding's, or an argument's slot in the frame.
  package var isSizeKnown: Bool
}
