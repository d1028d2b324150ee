/// The result of a compatibility check: the level, and every finding.
///
///     let report = try CompatibilityChecker(level: .equivalent).check(candidate, against: expected)
///     if !report.isCompatible {
///       for diagnostic in report.diagnostics { print(diagnostic) }
///     }
public struct CompatibilityReport: Hashable, Sendable {
  /// The level checked.
  public var level: CompatibilityLevel
  /// The data model sizes and register classes were taken from.
  public var model: DataModel
  /// The findings, in signature order: return value first, then arguments.
  public var diagnostics: [Diagnostic]

  /// Creates a report.
  public init(level: CompatibilityLevel, model: DataModel, diagnostics: [Diagnostic]) {
    self.level = level
    self.model = model
    self.diagnostics = diagnostics
  }

  /// Whether no diagnostic is an error (warnings and notes allowed).
  public var isCompatible: Bool { !diagnostics.contains { $0.severity == .error } }
}

extension CompatibilityChecker {
  /// Why `candidate` does not fit `expected` at `level` on `model`: the first error's message
  /// and every diagnostic; nil when it fits. What the libraries that refuse a misfit (calls,
  /// methods made from blocks) share before wrapping it in their own error.
  package static func misfit(
    of candidate: SignatureEncoding, to expected: SignatureEncoding, level: CompatibilityLevel, model: DataModel
  ) -> (firstError: String, diagnostics: [Diagnostic])? {
    let report = CompatibilityChecker(level: level, model: model).check(candidate, against: expected)
    guard !report.isCompatible else { return nil }
    let first = report.diagnostics.first { $0.severity == .error }.map(\.message) ?? "incompatible"
    return (first, report.diagnostics)
  }
}
