// The `blocksig check --json` document (Schemas/blocksig-check-1.schema.json).

import BlockSignature

/// `blocksig check --json`, version 1.
struct CheckReportV1: Encodable {
  struct DiagnosticV1: Encodable {
    var position: String
    var candidate: String
    var expected: String
    var severity: String
    var message: String
    var id: String
    var notes: [String]
    @ExplicitNull var fixIt: String? = nil
  }

  let serializationVersion = 1
  var compatible: Bool
  var level: String
  var target: String
  var candidate: String
  var expected: String
  var diagnostics: [DiagnosticV1]

  init(_ report: CompatibilityReport, candidate: String, expected: String) {
    compatible = report.isCompatible
    level = report.level.rawValue
    target = report.model.name
    self.candidate = candidate
    self.expected = expected
    diagnostics = report.diagnostics.map { diagnostic in
      DiagnosticV1(
        position: diagnostic.location.position.description, candidate: diagnostic.location.candidate,
        expected: diagnostic.location.expected, severity: diagnostic.severity.rawValue,
        message: diagnostic.message,
        id: diagnostic.id.id, notes: diagnostic.notes.map(\.message),
        fixIt: diagnostic.fixIts.first?.replacement)
    }
  }
}
