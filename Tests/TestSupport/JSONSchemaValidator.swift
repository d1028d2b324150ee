import Foundation

/// Validates JSON documents against the repository's JSON Schema files (`Schemas/`) with the
/// reference implementation, Python's `jsonschema` (Debian `python3-jsonschema`).
package enum JSONSchemaValidator {
  /// The repository's `Schemas` folder.
  package static let schemas = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Schemas")

  /// The first error of each document of `documents` (one JSON document per line) against
  /// `schema` (a file name in `Schemas/`), or an empty list when every one is valid.
  package static func errors(in documents: String, schema: String) throws -> [String] {
    let script = """
      import json, sys, jsonschema
      schema = json.load(open(sys.argv[1]))
      jsonschema.Draft202012Validator.check_schema(schema)
      validator = jsonschema.Draft202012Validator(schema)
      for number, line in enumerate(sys.stdin.read().splitlines(), 1):
          if not line.strip():
              continue
          for error in sorted(validator.iter_errors(json.loads(line)), key=lambda e: list(e.path))[:1]:
              print(f"document {number}: {'/'.join(map(str, error.path))}: {error.message}")
      """
    let output = try Toolchain.run(
      "/usr/bin/env", ["python3", "-c", script, schemas.appendingPathComponent(schema).path], stdin: documents)
    guard output.status == 0 else { throw SchemaCheckFailure(message: output.stderr) }
    return output.stdout.split(separator: "\n").map(String.init)
  }

  /// `document` (pretty or compact) as one line.
  package static func compact(_ document: String) throws -> String {
    let object = try JSONSerialization.jsonObject(with: Data(document.utf8), options: [.fragmentsAllowed])
    return String(
      decoding: try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed]), as: UTF8.self)
  }
}

/// The validator itself failed (no python3 or jsonschema, a schema that is not valid).
package struct SchemaCheckFailure: Error, CustomStringConvertible {
  package var message: String
  package var description: String { message }
}
