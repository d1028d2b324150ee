// The `blocksig method --json` and `blocksig block --json` document
// (Schemas/blocksig-convert-1.schema.json).

/// `blocksig method|block --json`, version 1.
struct ConversionReportV1: Encodable {
  let serializationVersion = 1
  var input: String
  var inputForm: String
  var form: String
  var target: String
  var signature: String
}
