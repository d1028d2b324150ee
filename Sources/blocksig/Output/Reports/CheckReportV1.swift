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
    var fixIt: String?

    enum CodingKeys: String, CodingKey {
      case position, candidate, expected, severity, message, id, notes, fixIt
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(position, forKey: .position)
      try container.encode(candidate, forKey: .candidate)
      try container.encode(expected, forKey: .expected)
      try container.encode(severity, forKey: .severity)
      try container.encode(message, forKey: .message)
      try container.encode(id, forKey: .id)
      try container.encode(notes, forKey: .notes)
      try container.encode(fixIt, forKey: .fixIt)  // null when there is none
    }
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
